/*
 * heldout3/kernels.c -- third held-out set of C loop kernels for synth.
 *
 * Written 2026-12-06 by a helper session (Claude) started by the synth
 * project.  The author did NOT read synth's source, its tests, its scripts,
 * or the other benchmark kernels; only the heldout2 manifest was consulted,
 * for the manifest format.  Every function below was written from memory,
 * in the style of the library or application it imitates:
 *
 *   daxpy_ref           netlib reference BLAS DAXPY (unrolled by 4, incx/incy)
 *   dsyrk_ln            netlib reference BLAS DSYRK, UPLO='L', TRANS='N'
 *   dtrsv_unu           netlib reference BLAS DTRSV, UPLO='U', TRANS='N', DIAG='U'
 *   gsl_stats_covariance  GNU Scientific Library statistics (long double recurrences)
 *   ggml_rms_norm_f32   ggml / llama.cpp ggml_compute_forward_rms_norm_f32
 *   ggml_rope_f32       ggml / llama.cpp rope, normal mode, with theta cache
 *   ggml_vec_dot_q4_0_q8_0  ggml quantised dot (early-2023 blocks, float scales)
 *   layer_norm_kernel   PyTorch ATen CPU LayerNormKernelImplInternal
 *   im2col_cpu          Caffe im2col_cpu (also in PyTorch's THNN)
 *   rgb_ycc_convert     libjpeg jccolor.c, fixed-point RGB -> YCbCr
 *   swr_mix_s16         FFmpeg libswresample rematrix, s16 with av_clip_int16
 *   integral_8u32s      OpenCV cv::integral (integral_ template)
 *   lfilter_df2t        SciPy signal.lfilter C core (direct form II transposed)
 *   nbody_accel         textbook direct-summation N-body (pairwise, Newton III)
 *   BlackScholesCPU     NVIDIA CUDA SDK BlackScholes gold (CPU) reference
 */
#include <math.h>
#include <stdint.h>
#include <stddef.h>

/* ------------------------------------------------------------------ */
/* 1. Reference BLAS DAXPY: dy := da*dx + dy                            */
/* ------------------------------------------------------------------ */
void daxpy_ref(int n, double da, const double *dx, int incx,
               double *dy, int incy)
{
    int i, ix, iy, m;

    if (n <= 0)
        return;
    if (da == 0.0)
        return;
    if (incx == 1 && incy == 1) {
        /* code for both increments equal to 1; clean-up loop */
        m = n % 4;
        if (m != 0) {
            for (i = 0; i < m; i++)
                dy[i] = dy[i] + da * dx[i];
            if (n < 4)
                return;
        }
        for (i = m; i < n; i += 4) {
            dy[i]     = dy[i]     + da * dx[i];
            dy[i + 1] = dy[i + 1] + da * dx[i + 1];
            dy[i + 2] = dy[i + 2] + da * dx[i + 2];
            dy[i + 3] = dy[i + 3] + da * dx[i + 3];
        }
    } else {
        /* code for unequal increments or equal increments not equal to 1 */
        ix = 0;
        iy = 0;
        if (incx < 0)
            ix = (-n + 1) * incx;
        if (incy < 0)
            iy = (-n + 1) * incy;
        for (i = 0; i < n; i++) {
            dy[iy] = dy[iy] + da * dx[ix];
            ix = ix + incx;
            iy = iy + incy;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 2. Reference BLAS DSYRK, lower triangle, C := alpha*A*A**T + beta*C  */
/*    column-major, A is n-by-k (lda), C is n-by-n (ldc)               */
/* ------------------------------------------------------------------ */
#define A_(I, J) a[(I) + (size_t)(J) * lda]
#define C_(I, J) c[(I) + (size_t)(J) * ldc]
void dsyrk_ln(int n, int k, double alpha, const double *a, int lda,
              double beta, double *c, int ldc)
{
    int i, j, l;
    double temp;
    const double zero = 0.0, one = 1.0;

    /* Quick return if possible. */
    if (n == 0 || ((alpha == zero || k == 0) && beta == one))
        return;

    /* And when alpha.eq.zero. */
    if (alpha == zero) {
        if (beta == zero) {
            for (j = 0; j < n; j++)
                for (i = j; i < n; i++)
                    C_(i, j) = zero;
        } else {
            for (j = 0; j < n; j++)
                for (i = j; i < n; i++)
                    C_(i, j) = beta * C_(i, j);
        }
        return;
    }

    /* Form  C := alpha*A*A**T + beta*C. */
    for (j = 0; j < n; j++) {
        if (beta == zero) {
            for (i = j; i < n; i++)
                C_(i, j) = zero;
        } else if (beta != one) {
            for (i = j; i < n; i++)
                C_(i, j) = beta * C_(i, j);
        }
        for (l = 0; l < k; l++) {
            if (A_(j, l) != zero) {
                temp = alpha * A_(j, l);
                for (i = j; i < n; i++)
                    C_(i, j) = C_(i, j) + temp * A_(i, l);
            }
        }
    }
}
#undef A_
#undef C_

/* ------------------------------------------------------------------ */
/* 3. Reference BLAS DTRSV, upper, no-transpose, unit diagonal:         */
/*    solve A*x = b, b overwritten by x, general increment incx        */
/* ------------------------------------------------------------------ */
void dtrsv_unu(int n, const double *a, int lda, double *x, int incx)
{
    int i, j, ix, jx, kx;
    double temp;

    if (n == 0 || incx == 0)
        return;

    if (incx <= 0)
        kx = -(n - 1) * incx;
    else
        kx = 0;

    if (incx == 1) {
        for (j = n - 1; j >= 0; --j) {
            if (x[j] != 0.0) {
                temp = x[j];
                for (i = j - 1; i >= 0; --i)
                    x[i] -= temp * a[i + j * lda];
            }
        }
    } else {
        jx = kx + (n - 1) * incx;
        for (j = n - 1; j >= 0; --j) {
            if (x[jx] != 0.0) {
                temp = x[jx];
                ix = jx;
                for (i = j - 1; i >= 0; --i) {
                    ix -= incx;
                    x[ix] -= temp * a[i + j * lda];
                }
            }
            jx -= incx;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 4. GSL: gsl_stats_covariance with strides                            */
/* ------------------------------------------------------------------ */
static inline double
gsl_stats_mean_(const double data[], const size_t stride, const size_t size)
{
    /* Compute the arithmetic mean of a dataset using the recurrence relation
       mean_(n) = mean(n-1) + (data[n] - mean(n-1))/(n+1)   */
    long double mean = 0;
    size_t i;

    for (i = 0; i < size; i++) {
        mean += (data[i * stride] - mean) / (i + 1);
    }

    return mean;
}

static inline double
compute_covariance(const double data1[], const size_t stride1,
                   const double data2[], const size_t stride2,
                   const size_t n, const double mean1, const double mean2)
{
    /* takes a dataset and finds the covariance */
    long double covariance = 0;
    size_t i;

    /* find the sum of the squares */
    for (i = 0; i < n; i++) {
        const long double delta1 = (data1[i * stride1] - mean1);
        const long double delta2 = (data2[i * stride2] - mean2);
        covariance += (delta1 * delta2 - covariance) / (i + 1);
    }

    return covariance;
}

double gsl_stats_covariance(const double data1[], const size_t stride1,
                            const double data2[], const size_t stride2,
                            const size_t n)
{
    const double mean1 = gsl_stats_mean_(data1, stride1, n);
    const double mean2 = gsl_stats_mean_(data2, stride2, n);
    const double covariance =
        compute_covariance(data1, stride1, data2, stride2, n, mean1, mean2);

    if (n < 2)
        return 0.0;
    return covariance * ((double)n / (double)(n - 1));
}

/* ------------------------------------------------------------------ */
/* 5. ggml rms_norm (f32), rows of ne00 floats, strides in elements     */
/* ------------------------------------------------------------------ */
typedef double ggml_float;

static inline void ggml_vec_scale_f32(const int n, float *y, const float v)
{
    for (int i = 0; i < n; ++i) {
        y[i] *= v;
    }
}

void ggml_rms_norm_f32(const float *src0, float *dst,
                       int64_t ne00, int64_t ne01, int64_t ne02,
                       int64_t nb01, int64_t nb02,   /* src strides (elements) */
                       int64_t nb1, int64_t nb2,     /* dst strides (elements) */
                       float eps)
{
    for (int64_t i02 = 0; i02 < ne02; i02++) {
        for (int64_t i01 = 0; i01 < ne01; i01++) {
            const float *x = src0 + i01 * nb01 + i02 * nb02;

            ggml_float sum = 0.0;
            for (int64_t i00 = 0; i00 < ne00; i00++) {
                sum += (ggml_float)(x[i00] * x[i00]);
            }

            const float mean = sum / ne00;

            float *y = dst + i01 * nb1 + i02 * nb2;

            for (int64_t i00 = 0; i00 < ne00; i00++) {
                y[i00] = x[i00];
            }

            const float scale = 1.0f / sqrtf(mean + eps);

            ggml_vec_scale_f32((int)ne00, y, scale);
        }
    }
}

/* ------------------------------------------------------------------ */
/* 6. ggml rope (normal mode), src/dst [n_tokens][n_head][ne0]          */
/* ------------------------------------------------------------------ */
static inline void rope_cache_init(float theta_base, float freq_scale,
                                   float *cache, int64_t ne0,
                                   float theta_scale)
{
    float theta = theta_base * freq_scale;
    for (int64_t i0 = 0; i0 < ne0; i0 += 2) {
        cache[i0 + 0] = cosf(theta);
        cache[i0 + 1] = sinf(theta);
        theta *= theta_scale;
    }
}

void ggml_rope_f32(const float *src0, const int32_t *pos, float *dst,
                   float *cache,
                   int64_t ne0, int64_t ne1, int64_t ne2,
                   float freq_base, float freq_scale)
{
    const float theta_scale = powf(freq_base, -2.0f / (float)ne0);

    for (int64_t i2 = 0; i2 < ne2; i2++) {
        const int64_t p = pos[i2];

        rope_cache_init((float)p, freq_scale, cache, ne0, theta_scale);

        for (int64_t i1 = 0; i1 < ne1; i1++) {
            const float *src = src0 + (i2 * ne1 + i1) * ne0;
            float *dst_data  = dst  + (i2 * ne1 + i1) * ne0;

            for (int64_t i0 = 0; i0 < ne0; i0 += 2) {
                const float cos_theta = cache[i0 + 0];
                const float sin_theta = cache[i0 + 1];

                const float x0 = src[i0 + 0];
                const float x1 = src[i0 + 1];

                dst_data[i0 + 0] = x0 * cos_theta - x1 * sin_theta;
                dst_data[i0 + 1] = x0 * sin_theta + x1 * cos_theta;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* 7. ggml q4_0 x q8_0 dot product, blocks of QK = 32                   */
/*    (structure-of-arrays: scales and quants passed separately)        */
/* ------------------------------------------------------------------ */
#define QK4_0 32
#define QK8_0 32

void ggml_vec_dot_q4_0_q8_0(int nb, float *restrict s,
                            const float *restrict xd,
                            const uint8_t *restrict xqs,   /* nb * QK4_0/2 */
                            const float *restrict yd,
                            const int8_t *restrict yqs)    /* nb * QK8_0   */
{
    const int qk = QK8_0;

    float sumf = 0.0;

    for (int i = 0; i < nb; i++) {
        const uint8_t *restrict xq = xqs + i * (QK4_0 / 2);
        const int8_t  *restrict yq = yqs + i * QK8_0;

        int sumi = 0;

        for (int j = 0; j < qk / 2; ++j) {
            const int v0 = (xq[j] & 0x0F) - 8;
            const int v1 = (xq[j] >>   4) - 8;

            sumi += (v0 * yq[j]) + (v1 * yq[j + qk / 2]);
        }

        sumf += sumi * (xd[i] * yd[i]);
    }

    *s = sumf;
}

/* ------------------------------------------------------------------ */
/* 8. PyTorch ATen LayerNorm forward (CPU), M rows of N, Welford moments */
/* ------------------------------------------------------------------ */
void layer_norm_kernel(const float *X, const float *gamma, const float *beta,
                       int64_t M, int64_t N, float eps,
                       float *Y, float *mean, float *rstd)
{
    const int gamma_null = gamma == NULL;
    const int beta_null = beta == NULL;
    const int mean_null = mean == NULL;
    const int rstd_null = rstd == NULL;

    for (int64_t i = 0; i < M; ++i) {
        const float *X_ptr = X + i * N;
        float *Y_ptr = Y + i * N;

        /* RowwiseMoments: Welford's online algorithm */
        double m1 = 0.0;
        double m2 = 0.0;
        for (int64_t j = 0; j < N; ++j) {
            const double x = X_ptr[j];
            const double delta = x - m1;
            m1 += delta / (double)(j + 1);
            m2 += delta * (x - m1);
        }
        float mean_val = (float)m1;
        float rstd_val = (float)(m2 / (double)N);
        if (rstd_val < 0.0f)
            rstd_val = 0.0f;
        rstd_val = 1.0f / sqrtf(rstd_val + eps);

        const float scale = rstd_val;
        const float bias = -rstd_val * mean_val;
        for (int64_t j = 0; j < N; ++j) {
            const float gamma_v = gamma_null ? 1.0f : gamma[j];
            const float beta_v = beta_null ? 0.0f : beta[j];
            Y_ptr[j] = (X_ptr[j] * scale + bias) * gamma_v + beta_v;
        }
        if (!mean_null)
            mean[i] = mean_val;
        if (!rstd_null)
            rstd[i] = rstd_val;
    }
}

/* ------------------------------------------------------------------ */
/* 9. Caffe im2col_cpu                                                   */
/* ------------------------------------------------------------------ */
/* Function uses casting from int to unsigned to compare if value of
   parameter a is greater or equal to zero and lower than value of
   parameter b. The b parameter is of type signed and is always positive,
   therefore its value is always lower than 0x800... where casting
   negative value of a parameter converts it to value higher than 0x800...
   The casting allows to use one condition instead of two. */
static inline int is_a_ge_zero_and_a_lt_b(int a, int b)
{
    return (unsigned)a < (unsigned)b;
}

void im2col_cpu(const float *data_im, const int channels,
                const int height, const int width,
                const int kernel_h, const int kernel_w,
                const int pad_h, const int pad_w,
                const int stride_h, const int stride_w,
                const int dilation_h, const int dilation_w,
                float *data_col)
{
    const int output_h = (height + 2 * pad_h -
                          (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1;
    const int output_w = (width + 2 * pad_w -
                          (dilation_w * (kernel_w - 1) + 1)) / stride_w + 1;
    const int channel_size = height * width;
    for (int channel = channels; channel--; data_im += channel_size) {
        for (int kernel_row = 0; kernel_row < kernel_h; kernel_row++) {
            for (int kernel_col = 0; kernel_col < kernel_w; kernel_col++) {
                int input_row = -pad_h + kernel_row * dilation_h;
                for (int output_rows = output_h; output_rows; output_rows--) {
                    if (!is_a_ge_zero_and_a_lt_b(input_row, height)) {
                        for (int output_cols = output_w; output_cols; output_cols--) {
                            *(data_col++) = 0;
                        }
                    } else {
                        int input_col = -pad_w + kernel_col * dilation_w;
                        for (int output_col = output_w; output_col; output_col--) {
                            if (is_a_ge_zero_and_a_lt_b(input_col, width)) {
                                *(data_col++) = data_im[input_row * width + input_col];
                            } else {
                                *(data_col++) = 0;
                            }
                            input_col += stride_w;
                        }
                    }
                    input_row += stride_h;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* 10. libjpeg jccolor.c rgb_ycc_convert, fixed point, no tables        */
/* ------------------------------------------------------------------ */
typedef uint8_t JSAMPLE;
typedef int32_t INT32;
typedef unsigned int JDIMENSION;

#define GETJSAMPLE(value)  ((int)(value))
#define MAXJSAMPLE   255
#define CENTERJSAMPLE 128
#define RGB_RED      0
#define RGB_GREEN    1
#define RGB_BLUE     2
#define RGB_PIXELSIZE 3
#define SCALEBITS    16      /* speediest right-shift on some machines */
#define CBCR_OFFSET  ((INT32)CENTERJSAMPLE << SCALEBITS)
#define ONE_HALF     ((INT32)1 << (SCALEBITS - 1))
#define FIX(x)       ((INT32)((x) * (1L << SCALEBITS) + 0.5))

void rgb_ycc_convert(const JSAMPLE *input_buf, int in_row_stride,
                     JSAMPLE *out_y, JSAMPLE *out_cb, JSAMPLE *out_cr,
                     int out_row_stride, int num_rows, JDIMENSION num_cols)
{
    register int r, g, b;
    register const JSAMPLE *inptr;
    register JSAMPLE *outptr0, *outptr1, *outptr2;
    register JDIMENSION col;

    while (--num_rows >= 0) {
        inptr = input_buf;
        outptr0 = out_y;
        outptr1 = out_cb;
        outptr2 = out_cr;
        input_buf += in_row_stride;
        out_y += out_row_stride;
        out_cb += out_row_stride;
        out_cr += out_row_stride;
        for (col = 0; col < num_cols; col++) {
            r = GETJSAMPLE(inptr[RGB_RED]);
            g = GETJSAMPLE(inptr[RGB_GREEN]);
            b = GETJSAMPLE(inptr[RGB_BLUE]);
            inptr += RGB_PIXELSIZE;
            /* If the inputs are 0..MAXJSAMPLE, the outputs of these equations
             * must be too; we do not need an explicit range-limiting operation.
             * Hence the value being shifted is never negative, and we don't
             * need the general RIGHT_SHIFT macro.
             */
            /* Y */
            outptr0[col] = (JSAMPLE)
                ((FIX(0.29900) * r + FIX(0.58700) * g + FIX(0.11400) * b
                  + ONE_HALF) >> SCALEBITS);
            /* Cb */
            outptr1[col] = (JSAMPLE)
                ((-FIX(0.16874) * r - FIX(0.33126) * g + FIX(0.50000) * b
                  + CBCR_OFFSET + ONE_HALF - 1) >> SCALEBITS);
            /* Cr */
            outptr2[col] = (JSAMPLE)
                ((FIX(0.50000) * r - FIX(0.41869) * g - FIX(0.08131) * b
                  + CBCR_OFFSET + ONE_HALF - 1) >> SCALEBITS);
        }
    }
}

/* ------------------------------------------------------------------ */
/* 11. FFmpeg libswresample-style s16 rematrix with clipping            */
/*     interleaved in/out, Q14 int16 matrix [out_ch][in_ch]             */
/* ------------------------------------------------------------------ */
static inline int16_t av_clip_int16_c(int a)
{
    if ((a + 0x8000U) & ~0xFFFF) return (int16_t)((a >> 31) ^ 0x7FFF);
    else                         return (int16_t)a;
}

void swr_mix_s16(int16_t *dst, const int16_t *src, const int16_t *matrix,
                 int nb_samples, int in_ch, int out_ch)
{
    int i, out_i, in_i;

    for (i = 0; i < nb_samples; i++) {
        const int16_t *in = src + i * in_ch;
        int16_t *out = dst + i * out_ch;
        for (out_i = 0; out_i < out_ch; out_i++) {
            const int16_t *coeffp = matrix + out_i * in_ch;
            int64_t v = 0;
            for (in_i = 0; in_i < in_ch; in_i++)
                v += (int64_t)in[in_i] * coeffp[in_i];
            out[out_i] = av_clip_int16_c((int)((v + 8192) >> 14));
        }
    }
}

/* ------------------------------------------------------------------ */
/* 12. OpenCV integral image, 8u -> 32s, single channel                  */
/*     sum is (height+1) x (width+1), steps in elements                  */
/* ------------------------------------------------------------------ */
void integral_8u32s(const uint8_t *src, size_t srcstep,
                    int32_t *sum, size_t sumstep,
                    int width, int height)
{
    const int cn = 1;
    int x, y;

    for (x = 0; x < width + cn; x++)
        sum[x] = 0;
    sum += sumstep + cn;

    for (y = 0; y < height; y++, src += srcstep, sum += sumstep) {
        int32_t s = sum[-cn] = 0;
        for (x = 0; x < width; x += cn) {
            s += src[x];
            sum[x] = sum[x - (ptrdiff_t)sumstep] + s;
        }
    }
}

/* ------------------------------------------------------------------ */
/* 13. SciPy lfilter core: direct form II transposed, with state Z      */
/*     returns -1 if a[0] == 0 (scipy raises ValueError there)           */
/* ------------------------------------------------------------------ */
int lfilter_df2t(const double *b, const double *a, int len_b,
                 const double *x, double *y, int len_x, double *Z)
{
    const double *ptr_x = x, *ptr_b, *ptr_a;
    double *ptr_y = y, *ptr_Z;
    const double a0 = a[0];
    int k, n;

    if (a0 == 0.0)
        return -1;

    for (k = 0; k < len_x; k++) {
        ptr_b = b;
        ptr_a = a;
        if (len_b > 1) {
            ptr_Z = Z;
            *ptr_y = *ptr_Z + (*ptr_b / a0) * (*ptr_x);
            ptr_b++;
            ptr_a++;
            /* Fall through to the end of the filter state */
            for (n = 0; n < len_b - 2; n++) {
                *ptr_Z = ptr_Z[1] + (*ptr_x) * (*ptr_b / a0)
                                  - (*ptr_y) * (*ptr_a / a0);
                ptr_b++;
                ptr_a++;
                ptr_Z++;
            }
            *ptr_Z = (*ptr_x) * (*ptr_b / a0) - (*ptr_y) * (*ptr_a / a0);
        } else {
            *ptr_y = (*ptr_x) * (*ptr_b / a0);
        }
        ptr_y++;
        ptr_x++;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* 14. Direct-summation N-body: pairwise accelerations, Plummer softening */
/*     pos/acc are AoS [n][3]; returns total potential energy            */
/* ------------------------------------------------------------------ */
double nbody_accel(int n, const double *restrict pos,
                   const double *restrict mass, double *restrict acc,
                   double G, double eps2)
{
    double epot = 0.0;
    int i, j;

    for (i = 0; i < 3 * n; i++)
        acc[i] = 0.0;

    for (i = 0; i < n; i++) {
        const double xi = pos[3 * i + 0];
        const double yi = pos[3 * i + 1];
        const double zi = pos[3 * i + 2];
        double axi = 0.0, ayi = 0.0, azi = 0.0;

        for (j = i + 1; j < n; j++) {
            double dx = pos[3 * j + 0] - xi;
            double dy = pos[3 * j + 1] - yi;
            double dz = pos[3 * j + 2] - zi;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double rinv = 1.0 / sqrt(r2);
            double rinv3 = rinv * rinv * rinv;

            /* force on i from j, and the opposite on j */
            axi += mass[j] * dx * rinv3;
            ayi += mass[j] * dy * rinv3;
            azi += mass[j] * dz * rinv3;
            acc[3 * j + 0] -= mass[i] * dx * rinv3;
            acc[3 * j + 1] -= mass[i] * dy * rinv3;
            acc[3 * j + 2] -= mass[i] * dz * rinv3;

            epot -= mass[i] * mass[j] * rinv;
        }
        acc[3 * i + 0] += axi;
        acc[3 * i + 1] += ayi;
        acc[3 * i + 2] += azi;
    }

    for (i = 0; i < 3 * n; i++)
        acc[i] *= G;

    return G * epot;
}

/* ------------------------------------------------------------------ */
/* 15. NVIDIA SDK BlackScholes CPU gold, with degenerate-input guard     */
/* ------------------------------------------------------------------ */
/* Polynomial approximation of cumulative normal distribution function */
static inline float CND(float d)
{
    const float       A1 = 0.31938153f;
    const float       A2 = -0.356563782f;
    const float       A3 = 1.781477937f;
    const float       A4 = -1.821255978f;
    const float       A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;

    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));

    float cnd = RSQRT2PI * expf(-0.5f * d * d) *
                (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));

    if (d > 0)
        cnd = 1.0f - cnd;

    return cnd;
}

void BlackScholesCPU(float *h_CallResult, float *h_PutResult,
                     const float *h_StockPrice, const float *h_OptionStrike,
                     const float *h_OptionYears,
                     float Riskfree, float Volatility, int optN)
{
    for (int opt = 0; opt < optN; opt++) {
        const float S = h_StockPrice[opt];
        const float X = h_OptionStrike[opt];
        const float T = h_OptionYears[opt];
        const float R = Riskfree;
        const float V = Volatility;

        if (S <= 0.0f || X <= 0.0f || T <= 0.0f || V <= 0.0f) {
            /* expired or degenerate option: intrinsic value */
            h_CallResult[opt] = S > X ? S - X : 0.0f;
            h_PutResult[opt]  = X > S ? X - S : 0.0f;
            continue;
        }

        float sqrtT = sqrtf(T);
        float    d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
        float    d2 = d1 - V * sqrtT;
        float CNDD1 = CND(d1);
        float CNDD2 = CND(d2);

        /* Calculate Call and Put simultaneously */
        float expRT = expf(-R * T);
        h_CallResult[opt] = (float)(S * CNDD1 - X * expRT * CNDD2);
        h_PutResult[opt]  = (float)(X * expRT * (1.0f - CNDD2) -
                                    S * (1.0f - CNDD1));
    }
}
