#define N 16

void kernel_nonaffine(double A[N * N], double x[N])
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      x[i] += A[i * j];
}
