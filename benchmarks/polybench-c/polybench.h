/*
 * polybench.h: the conventions of PolyBench/C 4.2.1 that the kernel files in this
 * directory use, written for synth (not PolyBench's own header: no timers, no
 * allocation, no printing, only what a kernel function needs).
 *
 *   - the dataset: MINI_DATASET, SMALL_DATASET, MEDIUM_DATASET, LARGE_DATASET (the
 *     default) or EXTRALARGE_DATASET; each kernel file turns it into its sizes (N, M,
 *     NI, TSTEPS, ...), which -DNAME=VALUE overrides;
 *   - DATA_TYPE: double, or int / float with -DDATA_TYPE_IS_INT / -DDATA_TYPE_IS_FLOAT
 *     (floyd-warshall and nussinov define DATA_TYPE_IS_INT before including this file);
 *   - SCALAR_VAL(x) for a literal of DATA_TYPE, SQRT_FUN, EXP_FUN, POW_FUN;
 *   - POLYBENCH_1D/2D/3D(var, dims..., ddims...): an array parameter with the constant
 *     extents of the dataset (`var[dim + 0]...`); the run-time sizes (ddims) are only
 *     documentation, as with PolyBench's default (no C99 variable-length arrays);
 *   - _PB_N, _PB_M, _PB_NI, ... : the loop bounds, i.e. the size *parameters* of the
 *     kernel function (`_PB_N` is `n`), or the constant sizes with
 *     -DPOLYBENCH_USE_SCALAR_LB.
 */
#ifndef SYNTH_POLYBENCH_H
#define SYNTH_POLYBENCH_H

/* ---- dataset: LARGE unless one is chosen ---------------------------------------- */
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(MEDIUM_DATASET) \
    && !defined(LARGE_DATASET) && !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
#endif

/* ---- element type and its scalar helpers ---------------------------------------- */
#if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_DOUBLE
#endif

#if defined(DATA_TYPE_IS_INT)
#  define DATA_TYPE int
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x, y) pow(x, y)
#elif defined(DATA_TYPE_IS_FLOAT)
#  define DATA_TYPE float
#  define SCALAR_VAL(x) x##f
#  define SQRT_FUN(x) sqrtf(x)
#  define EXP_FUN(x) expf(x)
#  define POW_FUN(x, y) powf(x, y)
#else
#  define DATA_TYPE double
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x, y) pow(x, y)
#endif

/* ---- array parameters: constant extents ----------------------------------------- */
#define POLYBENCH_1D(var, dim1, ddim1) var[dim1 + 0]
#define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[dim1 + 0][dim2 + 0]
#define POLYBENCH_3D(var, dim1, dim2, dim3, ddim1, ddim2, ddim3) \
  var[dim1 + 0][dim2 + 0][dim3 + 0]

/* ---- loop bounds: the size parameters (or the constant sizes) ------------------- */
#ifdef POLYBENCH_USE_SCALAR_LB
#  define POLYBENCH_LOOP_BOUND(x, y) x
#else
#  define POLYBENCH_LOOP_BOUND(x, y) y
#endif

#define _PB_N POLYBENCH_LOOP_BOUND(N, n)
#define _PB_M POLYBENCH_LOOP_BOUND(M, m)
#define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
#define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
#define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)
#define _PB_NL POLYBENCH_LOOP_BOUND(NL, nl)
#define _PB_NM POLYBENCH_LOOP_BOUND(NM, nm)
#define _PB_NP POLYBENCH_LOOP_BOUND(NP, np)
#define _PB_NQ POLYBENCH_LOOP_BOUND(NQ, nq)
#define _PB_NR POLYBENCH_LOOP_BOUND(NR, nr)
#define _PB_NX POLYBENCH_LOOP_BOUND(NX, nx)
#define _PB_NY POLYBENCH_LOOP_BOUND(NY, ny)
#define _PB_TMAX POLYBENCH_LOOP_BOUND(TMAX, tmax)
#define _PB_TSTEPS POLYBENCH_LOOP_BOUND(TSTEPS, tsteps)
#define _PB_W POLYBENCH_LOOP_BOUND(W, w)
#define _PB_H POLYBENCH_LOOP_BOUND(H, h)

#endif /* SYNTH_POLYBENCH_H */
