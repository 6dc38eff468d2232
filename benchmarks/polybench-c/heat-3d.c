/* heat-3d.c: 3-d heat equation, explicit 7-point stencil
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
#    define N 10
#  elif defined(SMALL_DATASET)
#    define TSTEPS 40
#    define N 20
#  elif defined(MEDIUM_DATASET)
#    define TSTEPS 100
#    define N 40
#  elif defined(LARGE_DATASET)
#    define TSTEPS 500
#    define N 120
#  elif defined(EXTRALARGE_DATASET)
#    define TSTEPS 1000
#    define N 200
#  endif
#endif

void kernel_heat_3d(int tsteps, int n,
                    DATA_TYPE POLYBENCH_3D(A, N, N, N, n, n, n),
                    DATA_TYPE POLYBENCH_3D(B, N, N, N, n, n, n))
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        for (k = 1; k < _PB_N - 1; k++)
          B[i][j][k] = SCALAR_VAL(0.125) * (A[i + 1][j][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i - 1][j][k])
                     + SCALAR_VAL(0.125) * (A[i][j + 1][k] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j - 1][k])
                     + SCALAR_VAL(0.125) * (A[i][j][k + 1] - SCALAR_VAL(2.0) * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < _PB_N - 1; i++)
      for (j = 1; j < _PB_N - 1; j++)
        for (k = 1; k < _PB_N - 1; k++)
          A[i][j][k] = SCALAR_VAL(0.125) * (B[i + 1][j][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i - 1][j][k])
                     + SCALAR_VAL(0.125) * (B[i][j + 1][k] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j - 1][k])
                     + SCALAR_VAL(0.125) * (B[i][j][k + 1] - SCALAR_VAL(2.0) * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}
