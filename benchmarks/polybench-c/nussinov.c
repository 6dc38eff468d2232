/* nussinov.c: Nussinov's dynamic program for RNA secondary structure
 *
 * table[i][j] is the best number of base pairs of seq[i..j]; bases are 0..3 and two bases
 * pair when they sum to 3. DATA_TYPE is int (PolyBench's bases are char, which synth's C
 * front end does not read; they are ints here).
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#define DATA_TYPE_IS_INT

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(N)
#  if defined(MINI_DATASET)
#    define N 60
#  elif defined(SMALL_DATASET)
#    define N 180
#  elif defined(MEDIUM_DATASET)
#    define N 500
#  elif defined(LARGE_DATASET)
#    define N 2500
#  elif defined(EXTRALARGE_DATASET)
#    define N 5500
#  endif
#endif

/* 1 when two bases pair (A-U and C-G, coded 0..3 so that a pair sums to 3) */
#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1) >= (s2) ? (s1) : (s2))

void kernel_nussinov(int n,
                     DATA_TYPE POLYBENCH_1D(seq, N, n),
                     DATA_TYPE POLYBENCH_2D(table, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = _PB_N - 1; i >= 0; i--)
    for (j = i + 1; j < _PB_N; j++) {
      if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < _PB_N)
        table[i][j] = max_score(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < _PB_N) {
        /* adjacent bases do not pair */
        if (i < j - 1)
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }
      for (k = i + 1; k < j; k++)
        table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
    }
#pragma endscop
}
