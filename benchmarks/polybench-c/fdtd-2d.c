/* fdtd-2d.c: 2-d finite-difference time-domain (Yee) kernel
 *
 * Each time step sets the boundary row of ey from _fict_[t], updates ey and ex from hz,
 * then hz from ex and ey.
 *
 * Written for synth from the algorithm, in PolyBench/C 4.2.1's style (macros of
 * polybench.h); not PolyBench's file. Only the kernel function. */

#include "polybench.h"

/* Dataset sizes (-DMINI_DATASET ... -DEXTRALARGE_DATASET; LARGE by default,
   see polybench.h); -DNAME=VALUE for every size sets them directly. */
#if !defined(TMAX) && !defined(NX) && !defined(NY)
#  if defined(MINI_DATASET)
#    define TMAX 20
#    define NX 20
#    define NY 30
#  elif defined(SMALL_DATASET)
#    define TMAX 40
#    define NX 60
#    define NY 80
#  elif defined(MEDIUM_DATASET)
#    define TMAX 100
#    define NX 200
#    define NY 240
#  elif defined(LARGE_DATASET)
#    define TMAX 500
#    define NX 1000
#    define NY 1200
#  elif defined(EXTRALARGE_DATASET)
#    define TMAX 1000
#    define NX 2000
#    define NY 2600
#  endif
#endif

void kernel_fdtd_2d(int tmax, int nx, int ny,
                    DATA_TYPE POLYBENCH_2D(ex, NX, NY, nx, ny),
                    DATA_TYPE POLYBENCH_2D(ey, NX, NY, nx, ny),
                    DATA_TYPE POLYBENCH_2D(hz, NX, NY, nx, ny),
                    DATA_TYPE POLYBENCH_1D(_fict_, TMAX, tmax))
{
  int t, i, j;

#pragma scop
  for (t = 0; t < _PB_TMAX; t++) {
    for (j = 0; j < _PB_NY; j++)
      ey[0][j] = _fict_[t];
    for (i = 1; i < _PB_NX; i++)
      for (j = 0; j < _PB_NY; j++)
        ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < _PB_NX; i++)
      for (j = 1; j < _PB_NY; j++)
        ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < _PB_NX - 1; i++)
      for (j = 0; j < _PB_NY - 1; j++)
        hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j + 1] - ex[i][j]
                                                 + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}
