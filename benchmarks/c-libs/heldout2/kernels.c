/* Second held-out set, written 2026-12-06 by a helper who did not read synth's
 * code; run once at the end.
 *
 * Twelve loop kernels written in the styles of the libraries and
 * applications they imitate (CMSIS-DSP, reference BLAS, OpenCV,
 * Numerical Recipes, TFLite-micro / CMSIS-NN, zlib-style checksums, ...). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>

typedef int16_t q15_t;
typedef int32_t q31_t;
typedef unsigned char uchar;

/* ---------------------------------------------------------------------- */
/* CMSIS-DSP style: element-wise Q15 multiply with saturation (arm_mult_q15) */
void arm_mult_q15(const q15_t *pSrcA, const q15_t *pSrcB, q15_t *pDst,
                  uint32_t blockSize)
{
    uint32_t blkCnt;
    q31_t mul;

    blkCnt = blockSize;
    while (blkCnt > 0U) {
        /* C = A * B, result in 2.30 format shifted to 1.15 and saturated */
        mul = ((q31_t)(*pSrcA++) * (*pSrcB++)) >> 15;
        *pDst++ = (q15_t)(mul > 32767 ? 32767 : (mul < -32768 ? -32768 : mul));
        blkCnt--;
    }
}

/* ---------------------------------------------------------------------- */
/* Reference BLAS style DGEMM, no transpose, column-major:
 *   C := alpha*A*B + beta*C,  A is m x k, B is k x n, C is m x n */
void dgemm_nn(int m, int n, int k, double alpha,
              const double *A, int lda,
              const double *B, int ldb,
              double beta, double *C, int ldc)
{
    int i, j, l;
    double temp;

    if (m == 0 || n == 0 || ((alpha == 0.0 || k == 0) && beta == 1.0))
        return;

    for (j = 0; j < n; j++) {
        if (beta == 0.0) {
            for (i = 0; i < m; i++)
                C[i + j * ldc] = 0.0;
        } else if (beta != 1.0) {
            for (i = 0; i < m; i++)
                C[i + j * ldc] = beta * C[i + j * ldc];
        }
        for (l = 0; l < k; l++) {
            temp = alpha * B[l + j * ldb];
            for (i = 0; i < m; i++)
                C[i + j * ldc] += temp * A[i + l * lda];
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Reference BLAS style DSPMV: y := alpha*A*x + beta*y with A symmetric,
 * upper triangle stored packed by columns in AP (n*(n+1)/2 elements). */
void dspmv_upper(int n, double alpha, const double *AP, const double *x,
                 double beta, double *y)
{
    int i, j, k, kk;
    double temp1, temp2;

    if (n == 0 || (alpha == 0.0 && beta == 1.0))
        return;

    if (beta != 1.0) {
        if (beta == 0.0) {
            for (i = 0; i < n; i++)
                y[i] = 0.0;
        } else {
            for (i = 0; i < n; i++)
                y[i] = beta * y[i];
        }
    }
    if (alpha == 0.0)
        return;

    kk = 0;
    for (j = 0; j < n; j++) {
        temp1 = alpha * x[j];
        temp2 = 0.0;
        k = kk;
        for (i = 0; i < j; i++) {
            y[i] += temp1 * AP[k];
            temp2 += AP[k] * x[i];
            k++;
        }
        y[j] += temp1 * AP[kk + j] + alpha * temp2;
        kk += j + 1;
    }
}

/* ---------------------------------------------------------------------- */
/* OpenCV style: 3x3 Sobel gradient magnitude |dx|+|dy| on 8-bit images with
 * row steps in bytes; border pixels of dst are left untouched. */
void sobel_mag_8u(const uchar *src, size_t sstep, uchar *dst, size_t dstep,
                  int width, int height)
{
    for (int y = 1; y < height - 1; y++) {
        const uchar *s0 = src + (size_t)(y - 1) * sstep;
        const uchar *s1 = src + (size_t)y * sstep;
        const uchar *s2 = src + (size_t)(y + 1) * sstep;
        uchar *d = dst + (size_t)y * dstep;

        for (int x = 1; x < width - 1; x++) {
            int dx = (s0[x + 1] + 2 * s1[x + 1] + s2[x + 1])
                   - (s0[x - 1] + 2 * s1[x - 1] + s2[x - 1]);
            int dy = (s2[x - 1] + 2 * s2[x] + s2[x + 1])
                   - (s0[x - 1] + 2 * s0[x] + s0[x + 1]);
            int v = (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
            d[x] = (uchar)(v > 255 ? 255 : v);
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Numerical Recipes style: Chebyshev evaluation by Clenshaw's recurrence
 * (chebev on the interval [-1,1]) at npts abscissas. */
void chebev_vec(const double c[], int m, const double x[], double y[], int npts)
{
    int j, p;
    double d, dd, sv, y2;

    for (p = 0; p < npts; p++) {
        d = dd = 0.0;
        y2 = 2.0 * x[p];
        for (j = m - 1; j >= 1; j--) {
            sv = d;
            d = y2 * d - dd + c[j];
            dd = sv;
        }
        y[p] = x[p] * d - dd + 0.5 * c[0];
    }
}

/* ---------------------------------------------------------------------- */
/* Explicit heat equation step on an nx x ny grid (FTCS, 5-point stencil),
 * Dirichlet boundaries copied through. */
void heat2d_step(int nx, int ny, float r, const float *restrict u,
                 float *restrict unew)
{
    for (int j = 1; j < ny - 1; j++) {
        for (int i = 1; i < nx - 1; i++) {
            int c = j * nx + i;
            unew[c] = u[c] + r * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx]
                                  - 4.0f * u[c]);
        }
    }
    for (int i = 0; i < nx; i++) {
        unew[i] = u[i];
        unew[(ny - 1) * nx + i] = u[(ny - 1) * nx + i];
    }
    for (int j = 1; j < ny - 1; j++) {
        unew[j * nx] = u[j * nx];
        unew[j * nx + nx - 1] = u[j * nx + nx - 1];
    }
}

/* ---------------------------------------------------------------------- */
/* ML: softmax cross-entropy, mean over the batch; writes d(loss)/d(logits)
 * and returns the loss.  labels holds one target distribution per row. */
float softmax_xent_grad(const float *restrict logits,
                        const float *restrict labels,
                        float *restrict grad, int batch, int classes)
{
    const float inv_batch = 1.0f / (float)batch;
    float loss = 0.0f;

    for (int b = 0; b < batch; b++) {
        const float *z = logits + b * classes;
        const float *t = labels + b * classes;
        float *g = grad + b * classes;

        float zmax = z[0];
        for (int c = 1; c < classes; c++)
            if (z[c] > zmax)
                zmax = z[c];

        float sum = 0.0f;
        for (int c = 0; c < classes; c++)
            sum += expf(z[c] - zmax);
        const float lse = logf(sum);

        for (int c = 0; c < classes; c++) {
            const float logp = z[c] - zmax - lse;
            g[c] = (expf(logp) - t[c]) * inv_batch;
            loss -= t[c] * logp;
        }
    }
    return loss * inv_batch;
}

/* ---------------------------------------------------------------------- */
/* TFLite-micro / CMSIS-NN style int8 fully connected layer with int32 bias,
 * fixed-point requantization and a ReLU-like activation clamp. */
#define FC_INPUT_OFFSET   128
#define FC_FILTER_OFFSET  0
#define FC_OUTPUT_OFFSET  (-128)
#define FC_OUT_MULT       1431655765   /* ~0.6667 in Q31 */
#define FC_OUT_SHIFT      7
#define FC_ACT_MIN        (-128)
#define FC_ACT_MAX        127

void fully_connected_s8(const int8_t *restrict input,
                        const int8_t *restrict filter,
                        const int32_t *restrict bias,
                        int8_t *restrict output,
                        int batches, int accum_depth, int output_depth)
{
    for (int b = 0; b < batches; ++b) {
        for (int out_c = 0; out_c < output_depth; ++out_c) {
            int64_t acc = bias[out_c];
            for (int d = 0; d < accum_depth; ++d) {
                int32_t input_val = input[b * accum_depth + d];
                int32_t filter_val = filter[out_c * accum_depth + d];
                acc += (int64_t)((filter_val + FC_FILTER_OFFSET) *
                                 (input_val + FC_INPUT_OFFSET));
            }
            /* rounding doubling high multiply, then rounding right shift */
            int64_t prod = acc * (int64_t)FC_OUT_MULT;
            int32_t scaled = (int32_t)((prod + ((int64_t)1 << 30)) >> 31);
            scaled = (scaled + (1 << (FC_OUT_SHIFT - 1))) >> FC_OUT_SHIFT;
            scaled += FC_OUTPUT_OFFSET;
            if (scaled < FC_ACT_MIN) scaled = FC_ACT_MIN;
            if (scaled > FC_ACT_MAX) scaled = FC_ACT_MAX;
            output[out_c + output_depth * b] = (int8_t)scaled;
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Statistics: column means and unbiased variances of an nobs x nvar
 * row-major data matrix with leading dimension ldx (Welford's update). */
void column_mean_var(const double *X, int nobs, int nvar, int ldx,
                     double *mean, double *var)
{
    int i, v;

    for (v = 0; v < nvar; v++) {
        mean[v] = 0.0;
        var[v] = 0.0;
    }
    for (i = 0; i < nobs; i++) {
        const double *row = X + (size_t)i * ldx;
        const double k = (double)(i + 1);
        for (v = 0; v < nvar; v++) {
            double delta = row[v] - mean[v];
            mean[v] += delta / k;
            var[v] += delta * (row[v] - mean[v]);
        }
    }
    for (v = 0; v < nvar; v++)
        var[v] = nobs > 1 ? var[v] / (double)(nobs - 1) : 0.0;
}

/* ---------------------------------------------------------------------- */
/* zlib-style bitwise (table-free) CRC-32, reflected polynomial 0xEDB88320 */
uint32_t crc32_bitwise(const uint8_t *buf, size_t len)
{
    uint32_t crc = 0xFFFFFFFFu;

    while (len--) {
        crc ^= *buf++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFFu;
}

/* ---------------------------------------------------------------------- */
/* Direct-form FIR filter; src holds numTaps-1 history samples followed by
 * blockSize new samples, coefficients in natural (b[0] first) order. */
void fir_f32(const float *restrict src, const float *restrict coeffs,
             float *restrict dst, uint32_t numTaps, uint32_t blockSize)
{
    for (uint32_t n = 0; n < blockSize; n++) {
        const float *px = src + n + numTaps - 1;
        float acc = 0.0f;
        for (uint32_t k = 0; k < numTaps; k++)
            acc += coeffs[k] * px[-(ptrdiff_t)k];
        dst[n] = acc;
    }
}

/* ---------------------------------------------------------------------- */
/* Audio envelope follower (peak detector with separate attack/release
 * one-pole smoothing); state[0] carries the envelope between blocks. */
void envelope_follow(const float *restrict in, float *restrict env_out,
                     float *restrict state, int n,
                     float attack_coef, float release_coef)
{
    float env = state[0];

    for (int i = 0; i < n; i++) {
        float rect = fabsf(in[i]);
        float a = rect > env ? attack_coef : release_coef;
        env = a * env + (1.0f - a) * rect;
        env_out[i] = env;
    }
    state[0] = env;
}
