#define N 16

void kernel_bound(double A[N], int len[N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < len[i]; j++)
      A[j] += 1.0;
}
