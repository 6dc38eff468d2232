/* gesummv.c: scalar, vector and matrix multiplication, y := alpha*A*x + beta*B*x
 *
 * tmp := A x, then y := alpha tmp + beta B x.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(N)
#  if defined(MINI_DATASET)
#    define N 30
#  elif defined(SMALL_DATASET)
#    define N 90
#  elif defined(MEDIUM_DATASET)
#    define N 250
#  elif defined(LARGE_DATASET)
#    define N 1300
#  elif defined(EXTRALARGE_DATASET)
#    define N 2800
#  endif
#endif

void kernel_gesummv(int n,
                    DATA_TYPE alpha, DATA_TYPE beta,
                    DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                    DATA_TYPE POLYBENCH_2D(B, N, N, n, n),
                    DATA_TYPE POLYBENCH_1D(tmp, N, n),
                    DATA_TYPE POLYBENCH_1D(x, N, n),
                    DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < _PB_N; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}
