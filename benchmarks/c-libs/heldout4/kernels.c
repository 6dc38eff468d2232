/*
 * heldout4/kernels.c -- fourth held-out set of C loop kernels for synth.
 *
 * Written 2026-12-07 by a helper session (Claude) started by the synth
 * project.  The author did not read synth's source, its tests (beyond the
 * oracle's manifest conventions) or the other benchmark kernels; the
 * heldout3 manifest was read for the manifest format.  Every function was
 * written from memory in the style of the library it imitates (none is a
 * copy of that library's file):
 *
 *   srot_ref            netlib reference BLAS SROT (incx/incy, negative-inc start)
 *   sscal_ref           netlib reference BLAS SSCAL (unrolled by 5, nincx loop)
 *   dgemv_t             netlib reference BLAS DGEMV, TRANS='T', kx/ky, beta pass
 *   dger_f2c            CLAPACK (f2c) DGER: --x, a -= a_offset, 1-based loops
 *   dtrmv_lnn           reference BLAS DTRMV, UPLO='L', TRANS='N', DIAG='N'
 *   dsymv_u             reference BLAS DSYMV, UPLO='U' (temp1/temp2)
 *   arm_fir_f32         CMSIS-DSP block FIR, state buffer, pointer walks
 *   arm_dot_prod_f32    CMSIS-DSP dot product, loop unrolled by 4 + tail
 *   arm_scale_q15       CMSIS-DSP Q15 scale with shift and __SSAT
 *   cv_threshold_binary_8u  OpenCV THRESH_BINARY on uchar through a 256 table
 *   cv_addWeighted_8u   OpenCV addWeighted, saturate_cast<uchar>(cvRound)
 *   cv_box3x3_8u        OpenCV-style normalized 3x3 box blur (interior)
 *   cv_bgr2gray_8u      OpenCV RGB2Gray<uchar> fixed point, interleaved scn
 *   ggml_soft_max_f32   ggml soft_max forward: byte row strides, scale, max
 *   ggml_vec_silu_f32   ggml SiLU over a vector (inline helper)
 *   llama2_matmul       llama2.c matmul W (d,n) @ x (n,) -> xout (d,)
 *   sample_argmax       llama2.c sample_argmax (returns an index)
 *   DOUBLE_clip         NumPy clip inner loop (scalar fast path, strides, NaN)
 *   npy_where_f32       NumPy-style where(cond, x, y) with size_t, restrict
 *   heat2d_step         explicit 2-D heat equation step (5-point stencil)
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef unsigned char uchar;

/* ------------------------------------------------------------------ */
/* 1. Reference BLAS SROT: apply a plane rotation                      */
/* ------------------------------------------------------------------ */
void srot_ref(int n, float *sx, int incx, float *sy, int incy, float c,
              float s)
{
    int i, ix, iy;
    float stemp;

    if (n <= 0)
        return;
    if (incx == 1 && incy == 1) {
        for (i = 0; i < n; i++) {
            stemp = c * sx[i] + s * sy[i];
            sy[i] = c * sy[i] - s * sx[i];
            sx[i] = stemp;
        }
    } else {
        ix = 0;
        iy = 0;
        if (incx < 0)
            ix = (-n + 1) * incx;
        if (incy < 0)
            iy = (-n + 1) * incy;
        for (i = 0; i < n; i++) {
            stemp = c * sx[ix] + s * sy[iy];
            sy[iy] = c * sy[iy] - s * sx[ix];
            sx[ix] = stemp;
            ix = ix + incx;
            iy = iy + incy;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 2. Reference BLAS SSCAL: sx := sa*sx                                */
/* ------------------------------------------------------------------ */
void sscal_ref(int n, float sa, float *sx, int incx)
{
    int i, m, mp1, nincx;

    if (n <= 0 || incx <= 0)
        return;
    if (incx == 1) {
        /* code for increment equal to 1; clean-up loop */
        m = n % 5;
        if (m != 0) {
            for (i = 0; i < m; i++)
                sx[i] = sa * sx[i];
            if (n < 5)
                return;
        }
        mp1 = m;
        for (i = mp1; i < n; i += 5) {
            sx[i] = sa * sx[i];
            sx[i + 1] = sa * sx[i + 1];
            sx[i + 2] = sa * sx[i + 2];
            sx[i + 3] = sa * sx[i + 3];
            sx[i + 4] = sa * sx[i + 4];
        }
    } else {
        /* code for increment not equal to 1 */
        nincx = n * incx;
        for (i = 0; i < nincx; i += incx)
            sx[i] = sa * sx[i];
    }
}

/* ------------------------------------------------------------------ */
/* 3. Reference BLAS DGEMV, TRANS='T': y := alpha*A**T*x + beta*y      */
/*    column-major A is m-by-n (lda), x has m elements, y has n        */
/* ------------------------------------------------------------------ */
void dgemv_t(int m, int n, double alpha, const double *a, int lda,
             const double *x, int incx, double beta, double *y, int incy)
{
    int i, j, ix, iy, jy, kx, ky, lenx, leny;
    double temp;

    if (m == 0 || n == 0 || (alpha == 0.0 && beta == 1.0))
        return;

    lenx = m;
    leny = n;
    kx = (incx > 0) ? 0 : -(lenx - 1) * incx;
    ky = (incy > 0) ? 0 : -(leny - 1) * incy;

    /* First form y := beta*y. */
    if (beta != 1.0) {
        if (incy == 1) {
            if (beta == 0.0) {
                for (i = 0; i < leny; i++)
                    y[i] = 0.0;
            } else {
                for (i = 0; i < leny; i++)
                    y[i] = beta * y[i];
            }
        } else {
            iy = ky;
            if (beta == 0.0) {
                for (i = 0; i < leny; i++) {
                    y[iy] = 0.0;
                    iy += incy;
                }
            } else {
                for (i = 0; i < leny; i++) {
                    y[iy] = beta * y[iy];
                    iy += incy;
                }
            }
        }
    }
    if (alpha == 0.0)
        return;

    /* Form y := alpha*A**T*x + y. */
    jy = ky;
    if (incx == 1) {
        for (j = 0; j < n; j++) {
            temp = 0.0;
            for (i = 0; i < m; i++)
                temp += a[i + j * lda] * x[i];
            y[jy] += alpha * temp;
            jy += incy;
        }
    } else {
        for (j = 0; j < n; j++) {
            temp = 0.0;
            ix = kx;
            for (i = 0; i < m; i++) {
                temp += a[i + j * lda] * x[ix];
                ix += incx;
            }
            y[jy] += alpha * temp;
            jy += incy;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 4. DGER as f2c writes it: A := alpha*x*y**T + A                     */
/*    (scalars by value; body keeps the 1-based pointer adjustments)   */
/* ------------------------------------------------------------------ */
void dger_f2c(int m, int n, double alpha, const double *x, int incx,
              const double *y, int incy, double *a, int lda)
{
    /* System generated locals */
    int a_dim1, a_offset, i__1, i__2;

    /* Local variables */
    int i__, j, ix, jy, kx;
    double temp;

    /* Parameter adjustments */
    --x;
    --y;
    a_dim1 = lda;
    a_offset = 1 + a_dim1;
    a -= a_offset;

    /* Quick return if possible. */
    if (m == 0 || n == 0 || alpha == 0.)
        return;

    if (incy > 0) {
        jy = 1;
    } else {
        jy = 1 - (n - 1) * incy;
    }
    if (incx == 1) {
        i__1 = n;
        for (j = 1; j <= i__1; ++j) {
            if (y[jy] != 0.) {
                temp = alpha * y[jy];
                i__2 = m;
                for (i__ = 1; i__ <= i__2; ++i__) {
                    a[i__ + j * a_dim1] += x[i__] * temp;
                }
            }
            jy += incy;
        }
    } else {
        if (incx > 0) {
            kx = 1;
        } else {
            kx = 1 - (m - 1) * incx;
        }
        i__1 = n;
        for (j = 1; j <= i__1; ++j) {
            if (y[jy] != 0.) {
                temp = alpha * y[jy];
                ix = kx;
                i__2 = m;
                for (i__ = 1; i__ <= i__2; ++i__) {
                    a[i__ + j * a_dim1] += x[ix] * temp;
                    ix += incx;
                }
            }
            jy += incy;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 5. Reference BLAS DTRMV, lower, no transpose, non-unit: x := A*x    */
/* ------------------------------------------------------------------ */
void dtrmv_lnn(int n, const double *a, int lda, double *x, int incx)
{
    int i, j, ix, jx, kx;
    double temp;

    if (n == 0)
        return;
    kx = (incx <= 0) ? -(n - 1) * incx : 0;

    if (incx == 1) {
        for (j = n - 1; j >= 0; j--) {
            if (x[j] != 0.0) {
                temp = x[j];
                for (i = n - 1; i > j; i--)
                    x[i] += temp * a[i + j * lda];
                x[j] *= a[j + j * lda];
            }
        }
    } else {
        kx += (n - 1) * incx;
        jx = kx;
        for (j = n - 1; j >= 0; j--) {
            if (x[jx] != 0.0) {
                temp = x[jx];
                ix = kx;
                for (i = n - 1; i > j; i--) {
                    x[ix] += temp * a[i + j * lda];
                    ix -= incx;
                }
                x[jx] *= a[j + j * lda];
            }
            jx -= incx;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 6. Reference BLAS DSYMV, upper triangle: y := alpha*A*x + beta*y    */
/* ------------------------------------------------------------------ */
void dsymv_u(int n, double alpha, const double *a, int lda, const double *x,
             int incx, double beta, double *y, int incy)
{
    int i, j, ix, iy, jx, jy, kx, ky;
    double temp1, temp2;

    if (n == 0 || (alpha == 0.0 && beta == 1.0))
        return;

    kx = (incx > 0) ? 0 : -(n - 1) * incx;
    ky = (incy > 0) ? 0 : -(n - 1) * incy;

    if (beta != 1.0) {
        if (incy == 1) {
            if (beta == 0.0) {
                for (i = 0; i < n; i++)
                    y[i] = 0.0;
            } else {
                for (i = 0; i < n; i++)
                    y[i] = beta * y[i];
            }
        } else {
            iy = ky;
            for (i = 0; i < n; i++) {
                y[iy] = (beta == 0.0) ? 0.0 : beta * y[iy];
                iy += incy;
            }
        }
    }
    if (alpha == 0.0)
        return;

    if (incx == 1 && incy == 1) {
        for (j = 0; j < n; j++) {
            temp1 = alpha * x[j];
            temp2 = 0.0;
            for (i = 0; i < j; i++) {
                y[i] += temp1 * a[i + j * lda];
                temp2 += a[i + j * lda] * x[i];
            }
            y[j] += temp1 * a[j + j * lda] + alpha * temp2;
        }
    } else {
        jx = kx;
        jy = ky;
        for (j = 0; j < n; j++) {
            temp1 = alpha * x[jx];
            temp2 = 0.0;
            ix = kx;
            iy = ky;
            for (i = 0; i < j; i++) {
                y[iy] += temp1 * a[i + j * lda];
                temp2 += a[i + j * lda] * x[ix];
                ix += incx;
                iy += incy;
            }
            y[jy] += temp1 * a[j + j * lda] + alpha * temp2;
            jx += incx;
            jy += incy;
        }
    }
}

/* ------------------------------------------------------------------ */
/* CMSIS-DSP types                                                      */
/* ------------------------------------------------------------------ */
typedef float float32_t;
typedef int16_t q15_t;
typedef int32_t q31_t;

/* ------------------------------------------------------------------ */
/* 7. CMSIS-DSP arm_fir_f32 (no loop unrolling), instance fields passed */
/*    as arguments.  pState holds numTaps-1+blockSize samples.          */
/* ------------------------------------------------------------------ */
void arm_fir_f32(uint16_t numTaps, float32_t *pState,
                 const float32_t *pCoeffs, const float32_t *pSrc,
                 float32_t *pDst, uint32_t blockSize)
{
    float32_t *pStateCurnt;          /* Points to the current sample of the state */
    float32_t *pStateBase = pState;  /* start of the state buffer */
    float32_t *px;                   /* Temporary pointer for state buffer */
    const float32_t *pb;             /* Temporary pointer for coefficient buffer */
    float32_t acc0;                  /* Accumulator */
    uint32_t i, tapCnt, blkCnt;

    /* pStateCurnt points to the location where the new input data should be written */
    pStateCurnt = &(pState[(numTaps - 1U)]);

    blkCnt = blockSize;
    while (blkCnt > 0U) {
        /* Copy one sample at a time into state buffer */
        *pStateCurnt++ = *pSrc++;

        acc0 = 0.0f;
        px = pState;
        pb = pCoeffs;

        i = numTaps;
        /* Perform the multiply-accumulates */
        do {
            acc0 += *px++ * *pb++;
            i--;
        } while (i > 0U);

        *pDst++ = acc0;

        /* Advance state pointer by 1 for the next sample */
        pState = pState + 1U;
        blkCnt--;
    }

    /* Processing is complete: copy the last numTaps - 1 samples to the
       start of the state buffer for the next call. */
    pStateCurnt = pStateBase;
    tapCnt = (numTaps - 1U);
    while (tapCnt > 0U) {
        *pStateCurnt++ = *pState++;
        tapCnt--;
    }
}

/* ------------------------------------------------------------------ */
/* 8. CMSIS-DSP arm_dot_prod_f32 (ARM_MATH_LOOPUNROLL)                  */
/* ------------------------------------------------------------------ */
void arm_dot_prod_f32(const float32_t *pSrcA, const float32_t *pSrcB,
                      uint32_t blockSize, float32_t *result)
{
    uint32_t blkCnt;
    float32_t sum = 0.0f;

    /* Loop unrolling: compute 4 outputs at a time */
    blkCnt = blockSize >> 2U;
    while (blkCnt > 0U) {
        sum += (*pSrcA++) * (*pSrcB++);
        sum += (*pSrcA++) * (*pSrcB++);
        sum += (*pSrcA++) * (*pSrcB++);
        sum += (*pSrcA++) * (*pSrcB++);
        blkCnt--;
    }

    /* Loop unrolling: compute remaining outputs */
    blkCnt = blockSize % 0x4U;
    while (blkCnt > 0U) {
        sum += (*pSrcA++) * (*pSrcB++);
        blkCnt--;
    }

    *result = sum;
}

/* ------------------------------------------------------------------ */
/* 9. CMSIS-DSP arm_scale_q15: saturating Q15 scale with a shift        */
/* ------------------------------------------------------------------ */
static inline int32_t __SSAT(int32_t val, uint32_t sat)
{
    if ((sat >= 1U) && (sat <= 32U)) {
        const int32_t max = (int32_t)((1U << (sat - 1U)) - 1U);
        const int32_t min = -1 - max;
        if (val > max)
            return max;
        else if (val < min)
            return min;
    }
    return val;
}

void arm_scale_q15(const q15_t *pSrc, q15_t scaleFract, int8_t shift,
                   q15_t *pDst, uint32_t blockSize)
{
    uint32_t blkCnt;
    int8_t kShift = 15 - shift;   /* Shift to apply after scaling */

    blkCnt = blockSize;
    while (blkCnt > 0U) {
        /* C = A * scale; scale and store result in destination buffer */
        *pDst++ = (q15_t)(__SSAT(((q31_t)*pSrc++ * scaleFract) >> kShift, 16));
        blkCnt--;
    }
}

/* ------------------------------------------------------------------ */
/* 10. OpenCV threshold, THRESH_BINARY on 8u, via a lookup table        */
/* ------------------------------------------------------------------ */
void cv_threshold_binary_8u(const uchar *src, size_t src_step, uchar *dst,
                            size_t dst_step, int width, int height,
                            uchar thresh, uchar maxval)
{
    int i, j;
    uchar tab[256];

    for (i = 0; i <= thresh; i++)
        tab[i] = 0;
    for (; i < 256; i++)
        tab[i] = maxval;

    for (i = 0; i < height; i++, src += src_step, dst += dst_step) {
        for (j = 0; j < width; j++)
            dst[j] = tab[src[j]];
    }
}

/* ------------------------------------------------------------------ */
/* 11. OpenCV addWeighted for 8u: saturate_cast<uchar>(a*s1 + b*s2 + g) */
/* ------------------------------------------------------------------ */
static inline int cvRound(float value)
{
    return (int)lrintf(value);
}

static inline uchar saturate_cast_u8(float v)
{
    int iv = cvRound(v);
    return (uchar)((unsigned)iv <= 255U ? iv : iv > 0 ? 255 : 0);
}

void cv_addWeighted_8u(const uchar *src1, size_t step1, const uchar *src2,
                       size_t step2, uchar *dst, size_t step, int width,
                       int height, const double *scalars)
{
    float alpha = (float)scalars[0];
    float beta = (float)scalars[1];
    float gamma = (float)scalars[2];

    for (; height--; src1 += step1, src2 += step2, dst += step) {
        int x = 0;
        for (; x <= width - 4; x += 4) {
            float t0, t1;
            t0 = src1[x] * alpha + src2[x] * beta + gamma;
            t1 = src1[x + 1] * alpha + src2[x + 1] * beta + gamma;
            dst[x] = saturate_cast_u8(t0);
            dst[x + 1] = saturate_cast_u8(t1);

            t0 = src1[x + 2] * alpha + src2[x + 2] * beta + gamma;
            t1 = src1[x + 3] * alpha + src2[x + 3] * beta + gamma;
            dst[x + 2] = saturate_cast_u8(t0);
            dst[x + 3] = saturate_cast_u8(t1);
        }
        for (; x < width; x++) {
            float t0 = src1[x] * alpha + src2[x] * beta + gamma;
            dst[x] = saturate_cast_u8(t0);
        }
    }
}

/* ------------------------------------------------------------------ */
/* 12. Normalized 3x3 box blur on 8u, interior pixels only             */
/* ------------------------------------------------------------------ */
void cv_box3x3_8u(const uchar *src, size_t sstep, uchar *dst, size_t dstep,
                  int width, int height)
{
    int x, y;

    for (y = 1; y < height - 1; y++) {
        const uchar *s0 = src + (size_t)(y - 1) * sstep;
        const uchar *s1 = s0 + sstep;
        const uchar *s2 = s1 + sstep;
        uchar *d = dst + (size_t)y * dstep;

        for (x = 1; x < width - 1; x++) {
            int s = s0[x - 1] + s0[x] + s0[x + 1] +
                    s1[x - 1] + s1[x] + s1[x + 1] +
                    s2[x - 1] + s2[x] + s2[x + 1];
            d[x] = (uchar)((s + 4) / 9);
        }
    }
}

/* ------------------------------------------------------------------ */
/* 13. OpenCV RGB2Gray<uchar> (BGR order, scn channels), fixed point    */
/* ------------------------------------------------------------------ */
#define CV_DESCALE(x, n) (((x) + (1 << ((n)-1))) >> (n))
enum { yuv_shift = 14, R2Y = 4899, G2Y = 9617, B2Y = 1868 };

void cv_bgr2gray_8u(const uchar *src, size_t src_step, uchar *dst,
                    size_t dst_step, int width, int height, int scn)
{
    for (; height--; src += src_step, dst += dst_step) {
        const uchar *s = src;
        int i;
        for (i = 0; i < width; i++, s += scn)
            dst[i] = (uchar)CV_DESCALE(s[0] * B2Y + s[1] * G2Y + s[2] * R2Y,
                                       yuv_shift);
    }
}

/* ------------------------------------------------------------------ */
/* ggml helpers                                                         */
/* ------------------------------------------------------------------ */
typedef double ggml_float;
#define GGML_MAX(a, b) ((a) > (b) ? (a) : (b))

inline static void ggml_vec_cpy_f32(const int n, float *y, const float *x)
{
    for (int i = 0; i < n; ++i) y[i] = x[i];
}

inline static void ggml_vec_scale_f32(const int n, float *y, const float v)
{
    for (int i = 0; i < n; ++i) y[i] *= v;
}

inline static void ggml_vec_max_f32(const int n, float *s, const float *x)
{
    float max = -INFINITY;
    for (int i = 0; i < n; ++i) {
        max = GGML_MAX(max, x[i]);
    }
    *s = max;
}

static ggml_float ggml_vec_soft_max_f32(const int n, float *y, const float *x,
                                        float max)
{
    int i = 0;
    ggml_float sum = 0;
    for (; i < n; ++i) {
        float val = expf(x[i] - max);
        sum += (ggml_float)val;
        y[i] = val;
    }
    return sum;
}

inline static float ggml_silu_f32(float x)
{
    return x / (1.0f + expf(-x));
}

/* ------------------------------------------------------------------ */
/* 14. ggml soft_max forward (f32, no mask): rows at byte strides       */
/*     nb01 / nb1, scratch row wp                                       */
/* ------------------------------------------------------------------ */
void ggml_soft_max_f32(const float *src0, float *dst, float *wp, int ne00,
                       int nrows, size_t nb01, size_t nb1, float scale)
{
    const int nc = ne00;

    for (int i1 = 0; i1 < nrows; i1++) {
        float *sp = (float *)((const char *)src0 + i1 * nb01);
        float *dp = (float *)((char *)dst + i1 * nb1);

        /* broadcast the mask across rows (no mask here) */
        ggml_vec_cpy_f32(nc, wp, sp);
        ggml_vec_scale_f32(nc, wp, scale);

        float max = -INFINITY;
        ggml_vec_max_f32(nc, &max, wp);

        ggml_float sum = ggml_vec_soft_max_f32(nc, dp, wp, max);

        sum = 1.0 / sum;
        ggml_vec_scale_f32(nc, dp, sum);
    }
}

/* ------------------------------------------------------------------ */
/* 15. ggml SiLU over a vector                                          */
/* ------------------------------------------------------------------ */
void ggml_vec_silu_f32(const int n, float *y, const float *x)
{
    int i = 0;
    for (; i < n; ++i) {
        y[i] = ggml_silu_f32(x[i]);
    }
}

/* ------------------------------------------------------------------ */
/* 16. llama2.c matmul: W (d,n) @ x (n,) -> xout (d,)                   */
/* ------------------------------------------------------------------ */
void llama2_matmul(float *xout, float *x, float *w, int n, int d)
{
    /* by far the most amount of time is spent inside this little function */
    int i;
#ifdef _OPENMP
#pragma omp parallel for private(i)
#endif
    for (i = 0; i < d; i++) {
        float val = 0.0f;
        for (int j = 0; j < n; j++) {
            val += w[i * n + j] * x[j];
        }
        xout[i] = val;
    }
}

/* ------------------------------------------------------------------ */
/* 17. llama2.c sample_argmax: index of the largest probability         */
/* ------------------------------------------------------------------ */
int sample_argmax(float *probabilities, int n)
{
    /* return the index that has the highest probability */
    int max_i = 0;
    float max_p = probabilities[0];
    for (int i = 1; i < n; i++) {
        if (probabilities[i] > max_p) {
            max_i = i;
            max_p = probabilities[i];
        }
    }
    return max_i;
}

/* ------------------------------------------------------------------ */
/* 18. NumPy clip inner loop for doubles (strides in elements)          */
/* ------------------------------------------------------------------ */
typedef ptrdiff_t npy_intp;

static inline double _NPY_MAX_d(double a, double b)
{
    return isnan(a) ? a : (a >= b ? a : b);
}

static inline double _NPY_MIN_d(double a, double b)
{
    return isnan(a) ? a : (a <= b ? a : b);
}

#define _NPY_CLIP(x, min, max) _NPY_MIN_d(_NPY_MAX_d((x), (min)), (max))

void DOUBLE_clip(const double *ip1, const double *ip2, const double *ip3,
                 double *op1, npy_intp n, npy_intp is1, npy_intp is2,
                 npy_intp is3, npy_intp os1)
{
    if (is2 == 0 && is3 == 0) {
        /* min and max are scalars */
        double min_val = *ip2;
        double max_val = *ip3;

        /* contiguous, branch to let the compiler optimize */
        if (is1 == 1 && os1 == 1) {
            for (npy_intp i = 0; i < n; i++, ip1++, op1++) {
                *op1 = _NPY_CLIP(*ip1, min_val, max_val);
            }
        } else {
            for (npy_intp i = 0; i < n; i++, ip1 += is1, op1 += os1) {
                *op1 = _NPY_CLIP(*ip1, min_val, max_val);
            }
        }
    } else {
        for (npy_intp i = 0; i < n;
             i++, ip1 += is1, ip2 += is2, ip3 += is3, op1 += os1) {
            *op1 = _NPY_CLIP(*ip1, *ip2, *ip3);
        }
    }
}

/* ------------------------------------------------------------------ */
/* 19. where(cond, x, y), contiguous, size_t loop                       */
/* ------------------------------------------------------------------ */
void npy_where_f32(size_t n, const unsigned char *restrict cond,
                   const float *restrict x, const float *restrict y,
                   float *restrict out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = cond[i] ? x[i] : y[i];
}

/* ------------------------------------------------------------------ */
/* 20. One explicit step of the 2-D heat equation (FTCS), interior      */
/*     u, unew are ny rows of nx points, row-major                      */
/* ------------------------------------------------------------------ */
void heat2d_step(int nx, int ny, double r, const double *restrict u,
                 double *restrict unew)
{
    int i, j;

    for (j = 1; j < ny - 1; j++) {
        for (i = 1; i < nx - 1; i++) {
            const int idx = j * nx + i;
            unew[idx] = u[idx]
                      + r * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx]
                             - 4.0 * u[idx]);
        }
    }
}
