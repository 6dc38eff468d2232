/* bicg.c: the two matrix-vector products of BiCG, s := A^T r and q := A p
 *
 * A is N x M: s (length M) := A^T r, q (length N) := A p, in one sweep over A.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(M) && !defined(N)
#  if defined(MINI_DATASET)
#    define M 38
#    define N 42
#  elif defined(SMALL_DATASET)
#    define M 116
#    define N 124
#  elif defined(MEDIUM_DATASET)
#    define M 390
#    define N 410
#  elif defined(LARGE_DATASET)
#    define M 1900
#    define N 2100
#  elif defined(EXTRALARGE_DATASET)
#    define M 1800
#    define N 2200
#  endif
#endif

void kernel_bicg(int m, int n,
                 DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                 DATA_TYPE POLYBENCH_1D(s, M, m),
                 DATA_TYPE POLYBENCH_1D(q, N, n),
                 DATA_TYPE POLYBENCH_1D(p, M, m),
                 DATA_TYPE POLYBENCH_1D(r, N, n))
{
  int i, j;

#pragma scop
  for (j = 0; j < _PB_M; j++)
    s[j] = SCALAR_VAL(0.0);
  for (i = 0; i < _PB_N; i++) {
    q[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_M; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
}
