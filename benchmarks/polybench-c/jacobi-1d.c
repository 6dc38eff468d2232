/* jacobi-1d.c: 1-d Jacobi stencil, 3-point average
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
#    define N 120
#  elif defined(MEDIUM_DATASET)
#    define TSTEPS 100
#    define N 400
#  elif defined(LARGE_DATASET)
#    define TSTEPS 500
#    define N 2000
#  elif defined(EXTRALARGE_DATASET)
#    define TSTEPS 1000
#    define N 4000
#  endif
#endif

void kernel_jacobi_1d(int tsteps, int n,
                      DATA_TYPE POLYBENCH_1D(A, N, n),
                      DATA_TYPE POLYBENCH_1D(B, N, n))
{
  int t, i;

#pragma scop
  for (t = 0; t < _PB_TSTEPS; t++) {
    for (i = 1; i < _PB_N - 1; i++)
      B[i] = SCALAR_VAL(0.33333) * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < _PB_N - 1; i++)
      A[i] = SCALAR_VAL(0.33333) * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}
