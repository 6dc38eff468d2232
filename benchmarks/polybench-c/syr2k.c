/* syr2k.c: symmetric rank-2k update, C := alpha*A*B^T + alpha*B*A^T + beta*C
 *
 * C is N x N and only its lower triangle is updated; A and B are N x M.
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

void kernel_syr2k(int n, int m,
                  DATA_TYPE alpha, DATA_TYPE beta,
                  DATA_TYPE POLYBENCH_2D(C, N, N, n, n),
                  DATA_TYPE POLYBENCH_2D(A, N, M, n, m),
                  DATA_TYPE POLYBENCH_2D(B, N, M, n, m))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
#pragma endscop
}
