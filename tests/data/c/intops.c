/* int kernel: integer matrix-vector product, division and remainder, a reversed copy
   (decreasing loop), a strided loop and a long accumulator. */
#define N 48
#define M 20

long kernel_intops(int A[N][M], int x[M], int y[N], int r[N], int q[N])
{
  int i, j;
  long total = 0;

  for (i = 0; i < N; i++) {
    y[i] = 0;
    for (j = 0; j < M; j++)
      y[i] += A[i][j] * x[j];
  }
  for (i = N - 1; i >= 0; i--)
    r[N - 1 - i] = y[i] % 7 - y[i] / 3;
  for (i = 0; i < N; i += 2) {
    q[i] = -y[i];
    q[i + 1] = i;
  }
  for (i = 0; i < N; i++)
    total += y[i];
  return total;
}
