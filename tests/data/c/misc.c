/* Assorted static control: a decreasing strided loop, a chained assignment, an assigned
   scalar parameter, a long size parameter, an int counter, a local array, a constant and
   a negated condition, '||', casts, and guarded reads (c ? A[i - 1] : 0). */
#define N 10

void kernel_misc(int n, long m, double alpha, double A[N], double B[N], int C[N],
                 double T[N][N])
{
  int i, j;
  long l;
  int cnt = 0;
  double tmp[N];

  alpha = alpha * 2.0;
  for (i = N - 1; i >= 1; i -= 2)
    A[i] = B[i] = (double) i;
  for (l = 0; l < m; l++)
    cnt++;
  for (i = 0; i < n; i++) {
    tmp[i] = alpha * B[i];
    C[i] = i % 3 == 0 ? cnt : -cnt;
    C[i] += (int) (B[i] * 3.0);
  }
  for (i = 0; i <= n - 1; i++)
    for (j = i; j < n; ++j) {
      T[i][j] = tmp[j] + (i != j ? 1.0 : 0.5);
      if (i != j)
        T[j][i] = i > 0 ? T[i - 1][j] : -1.0;
    }
  if (N > 5)
    A[0] = 42.0;
  else
    A[0] = 7.0;
  for (i = 0; i < N; i = i + 1)
    if (!(i < 3) || i == 9)
      A[i] -= 1.0;
}
