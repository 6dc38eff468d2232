/* jacobi-2d.c: 2-d Jacobi stencil, 5-point average
 *
 * Every time step computes B from A, then A from B, on the interior points.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(TSTEPS) && !defined(N)
#  if defined(MINI_DATASET)
#    define TSTEPS 20
#    define N 30
#  elif defined(SMALL_DATASET)
#    define TSTEPS 40
#    define N 90
#  elif defined(MEDIUM_DATASET)
#    define TSTEPS 100
#    define N 250
#  elif defined(LARGE_DATASET)
#    define TSTEPS 500
#    define N 1300
#  elif defined(EXTRALARGE_DATASET)
#    define TSTEPS 1000
#    define N 2800
#  endif
#endif

void kernel_jacobi_2d(int tsteps, int n,
                      DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                      DATA_TYPE POLYBENCH_2D(B, N, N, n, n))
{
  int t, i, j;

#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        B[i][j] = SCALAR_VAL(0.2) * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        A[i][j] = SCALAR_VAL(0.2) * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
  }
#pragma endscop
}
