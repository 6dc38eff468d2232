/* gemm.c: general matrix multiply, C := alpha*A*B + beta*C
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(NI) && !defined(NJ) && !defined(NK)
#  if defined(MINI_DATASET)
#    define NI 20
#    define NJ 25
#    define NK 30
#  elif defined(SMALL_DATASET)
#    define NI 60
#    define NJ 70
#    define NK 80
#  elif defined(MEDIUM_DATASET)
#    define NI 200
#    define NJ 220
#    define NK 240
#  elif defined(LARGE_DATASET)
#    define NI 1000
#    define NJ 1100
#    define NK 1200
#  elif defined(EXTRALARGE_DATASET)
#    define NI 2000
#    define NJ 2300
#    define NK 2600
#  endif
#endif

void kernel_gemm(int ni, int nj, int nk,
                 DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),
                 DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                 DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_NI; i++) {
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_NK; k++)
      for (j = 0; j < _PB_NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}
