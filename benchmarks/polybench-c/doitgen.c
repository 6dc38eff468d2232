/* doitgen.c: multi-resolution analysis kernel (MADNESS), A[r][q][:] := A[r][q][:] * C4
 *
 * Every row A[r][q] of the 3-d array is multiplied by C4, through the scratch vector sum.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(NR) && !defined(NQ) && !defined(NP)
#  if defined(MINI_DATASET)
#    define NR 10
#    define NQ 8
#    define NP 12
#  elif defined(SMALL_DATASET)
#    define NR 25
#    define NQ 20
#    define NP 30
#  elif defined(MEDIUM_DATASET)
#    define NR 50
#    define NQ 40
#    define NP 60
#  elif defined(LARGE_DATASET)
#    define NR 150
#    define NQ 140
#    define NP 160
#  elif defined(EXTRALARGE_DATASET)
#    define NR 250
#    define NQ 220
#    define NP 270
#  endif
#endif

void kernel_doitgen(int nr, int nq, int np,
                    DATA_TYPE POLYBENCH_3D(A, NR, NQ, NP, nr, nq, np),
                    DATA_TYPE POLYBENCH_2D(C4, NP, NP, np, np),
                    DATA_TYPE POLYBENCH_1D(sum, NP, np))
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < _PB_NR; r++)
    for (q = 0; q < _PB_NQ; q++) {
      for (p = 0; p < _PB_NP; p++) {
        sum[p] = SCALAR_VAL(0.0);
        for (s = 0; s < _PB_NP; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < _PB_NP; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
