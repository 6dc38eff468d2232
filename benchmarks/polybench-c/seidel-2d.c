/* seidel-2d.c: 2-d Gauss-Seidel stencil, 9-point average in place
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(TSTEPS) && !defined(N)
#  if defined(MINI_DATASET)
#    define TSTEPS 20
#    define N 40
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

void kernel_seidel_2d(int tsteps, int n,
                      DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int t, i, j;

#pragma scop
  for (t = 0; t <= _PB_TSTEPS - 1; t++)
    for (i = 1; i <= _PB_N - 2; i++)
      for (j = 1; j <= _PB_N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / SCALAR_VAL(9.0);
#pragma endscop
}
