/* symm.c: symmetric matrix multiply, C := alpha*A*B + beta*C
 *
 * A (M x M) is symmetric and only its lower triangle is read; B and C are M x N.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

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

void kernel_symm(int m, int n,
                 DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE POLYBENCH_2D(C, M, N, m, n),
                 DATA_TYPE POLYBENCH_2D(A, M, M, m, m),
                 DATA_TYPE POLYBENCH_2D(B, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE acc;

#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      acc = SCALAR_VAL(0.0);
      for (k = 0; k < i; k++) {
        /* A[i][k] stands for A[k][i] too */
        C[k][j] += alpha * B[i][j] * A[i][k];
        acc += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * acc;
    }
#pragma endscop
}
