/* floyd-warshall.c: Floyd-Warshall all-pairs shortest paths
 *
 * path[i][j] := min(path[i][j], path[i][k] + path[k][j]) for every intermediate vertex k.
 * DATA_TYPE is int, as in PolyBench.
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
#    define N 2800
#  elif defined(EXTRALARGE_DATASET)
#    define N 5600
#  endif
#endif

void kernel_floyd_warshall(int n,
                           DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++)
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                     ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
}
