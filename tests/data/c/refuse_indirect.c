#define N 16

void kernel_gather(double A[N], int B[N], double C[N])
{
  for (int i = 0; i < N; i++)
    C[i] = A[B[i]];
}
