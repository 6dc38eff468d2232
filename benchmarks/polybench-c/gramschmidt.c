/* gramschmidt.c: Gram-Schmidt QR decomposition, A = Q R
 *
 * The M x N matrix A gives the orthonormal columns Q and the upper triangular R (N x N);
 * A's columns are left as their residuals.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include <math.h>

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(M) && !defined(N)
#  if defined(MINI_DATASET)
#    define M 20
#    define N 30
#  elif defined(SMALL_DATASET)
#    define M 60
#    define N 80
#  elif defined(MEDIUM_DATASET)
#    define M 200
#    define N 240
#  elif defined(LARGE_DATASET)
#    define M 1000
#    define N 1200
#  elif defined(EXTRALARGE_DATASET)
#    define M 2000
#    define N 2600
#  endif
#endif

void kernel_gramschmidt(int m, int n,
                        DATA_TYPE POLYBENCH_2D(A, M, N, m, n),
                        DATA_TYPE POLYBENCH_2D(R, N, N, n, n),
                        DATA_TYPE POLYBENCH_2D(Q, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE nrm;

#pragma scop
  for (k = 0; k < _PB_N; k++) {
    nrm = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_M; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = SQRT_FUN(nrm);
    for (i = 0; i < _PB_M; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < _PB_N; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < _PB_M; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < _PB_M; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}
