/* y := A^T (A x), with the bounds as constant macros. */
#define M 38
#define N 42
#define _PB_M M
#define _PB_N N
#define SCALAR_VAL(x) x

void kernel_atax(int m, int n, double A[M][N], double x[N], double y[N], double tmp[M])
{
  int i, j;

  for (i = 0; i < _PB_N; i++)
    y[i] = 0;
  for (i = 0; i < _PB_M; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < _PB_N; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}
