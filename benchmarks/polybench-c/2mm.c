/* 2mm.c: two matrix products, D := alpha*A*B*C + beta*D
 *
 * tmp := alpha * A * B, then D := tmp * C + beta * D.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL)
#  if defined(MINI_DATASET)
#    define NI 16
#    define NJ 18
#    define NK 22
#    define NL 24
#  elif defined(SMALL_DATASET)
#    define NI 40
#    define NJ 50
#    define NK 70
#    define NL 80
#  elif defined(MEDIUM_DATASET)
#    define NI 180
#    define NJ 190
#    define NK 210
#    define NL 220
#  elif defined(LARGE_DATASET)
#    define NI 800
#    define NJ 900
#    define NK 1100
#    define NL 1200
#  elif defined(EXTRALARGE_DATASET)
#    define NI 1600
#    define NJ 1800
#    define NK 2200
#    define NL 2400
#  endif
#endif

void kernel_2mm(int ni, int nj, int nk, int nl,
                DATA_TYPE alpha, DATA_TYPE beta,
                DATA_TYPE POLYBENCH_2D(tmp, NI, NJ, ni, nj),
                DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj),
                DATA_TYPE POLYBENCH_2D(C, NJ, NL, nj, nl),
                DATA_TYPE POLYBENCH_2D(D, NI, NL, ni, nl))
{
  int i, j, k;

#pragma scop
  /* tmp := alpha * A * B */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      tmp[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NK; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  /* D := beta * D + tmp * C */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++) {
      D[i][j] *= beta;
      for (k = 0; k < _PB_NJ; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}
