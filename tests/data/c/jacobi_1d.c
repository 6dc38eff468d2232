/* 3-point Jacobi stencil, TSTEPS time steps, two statements per step. */
#define TSTEPS 10
#define N 50
#define _PB_TSTEPS TSTEPS
#define _PB_N N

void kernel_jacobi_1d(int tsteps, int n, double A[N], double B[N])
{
  int t, i;

  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
