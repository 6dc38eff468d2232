/* ludcmp.c: LU decomposition followed by forward and backward substitution
 *
 * A := L U in place, then y := L^-1 b and x := U^-1 y.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(N)
#  if defined(MINI_DATASET)
#    define N 40
#  elif defined(SMALL_DATASET)
#    define N 120
#  elif defined(MEDIUM_DATASET)
#    define N 400
#  elif defined(LARGE_DATASET)
#    define N 2000
#  elif defined(EXTRALARGE_DATASET)
#    define N 4000
#  endif
#endif

void kernel_ludcmp(int n,
                   DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                   DATA_TYPE POLYBENCH_1D(b, N, n),
                   DATA_TYPE POLYBENCH_1D(x, N, n),
                   DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  /* forward substitution: L y = b */
  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  /* backward substitution: U x = y */
  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}
