/* 3mm.c: three matrix products, G := (A*B)*(C*D)
 *
 * E := A * B, F := C * D, G := E * F.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL) && !defined(NM)
#  if defined(MINI_DATASET)
#    define NI 16
#    define NJ 18
#    define NK 20
#    define NL 22
#    define NM 24
#  elif defined(SMALL_DATASET)
#    define NI 40
#    define NJ 50
#    define NK 60
#    define NL 70
#    define NM 80
#  elif defined(MEDIUM_DATASET)
#    define NI 180
#    define NJ 190
#    define NK 200
#    define NL 210
#    define NM 220
#  elif defined(LARGE_DATASET)
#    define NI 800
#    define NJ 900
#    define NK 1000
#    define NL 1100
#    define NM 1200
#  elif defined(EXTRALARGE_DATASET)
#    define NI 1600
#    define NJ 1800
#    define NK 2000
#    define NL 2200
#    define NM 2400
#  endif
#endif

void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                DATA_TYPE POLYBENCH_2D(E, NI, NJ, ni, nj),
                DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj),
                DATA_TYPE POLYBENCH_2D(F, NJ, NL, nj, nl),
                DATA_TYPE POLYBENCH_2D(C, NJ, NM, nj, nm),
                DATA_TYPE POLYBENCH_2D(D, NM, NL, nm, nl),
                DATA_TYPE POLYBENCH_2D(G, NI, NL, ni, nl))
{
  int i, j, k;

#pragma scop
  /* E := A * B */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NJ; j++) {
      E[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NK; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C * D */
  for (i = 0; i < _PB_NJ; i++)
    for (j = 0; j < _PB_NL; j++) {
      F[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NM; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E * F */
  for (i = 0; i < _PB_NI; i++)
    for (j = 0; j < _PB_NL; j++) {
      G[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_NJ; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}
