/*
 * heldout5: library- and application-style C kernels, written for synth's
 * held-out evaluation.  Not tuned on: see README.md.
 *
 * Every function is self-contained: no I/O, no allocation, no calls to other
 * functions of this file.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef long npy_intp;

/* ------------------------------------------------------------------------ */
/* Column-major dense linear algebra (reference-LAPACK / Eigen flavour)      */
/* ------------------------------------------------------------------------ */

/* C := alpha*A*B + beta*C, A m x k, B k x n, C m x n, all column-major. */
void dgemm_nn_colmajor(int m, int n, int k, double alpha,
                       const double *a, int lda,
                       const double *b, int ldb,
                       double beta, double *c, int ldc)
{
    int i, j, l;
    double temp;

    for (j = 0; j < n; ++j) {
        if (beta == 0.0) {
            for (i = 0; i < m; ++i)
                c[i + j * ldc] = 0.0;
        } else if (beta != 1.0) {
            for (i = 0; i < m; ++i)
                c[i + j * ldc] = beta * c[i + j * ldc];
        }
        for (l = 0; l < k; ++l) {
            temp = alpha * b[l + j * ldb];
            for (i = 0; i < m; ++i)
                c[i + j * ldc] += temp * a[i + l * lda];
        }
    }
}

/* Copy the upper trapezoid of the m x n matrix A into B (lacpy, uplo='U'). */
void dlacpy_upper(int m, int n, const double *a, int lda, double *b, int ldb)
{
    int i, j;
    for (j = 0; j < n; ++j) {
        int last = j < m - 1 ? j : m - 1;
        for (i = 0; i <= last; ++i)
            b[i + j * ldb] = a[i + j * lda];
    }
}

/* Euclidean norm of every column of a column-major block (colwise().norm()). */
void colwise_norm(const double *a, int rows, int cols, int lda, double *norms)
{
    for (int j = 0; j < cols; ++j) {
        const double *col = a + (size_t)j * lda;
        double ssq = 0.0;
        for (int i = 0; i < rows; ++i)
            ssq += col[i] * col[i];
        norms[j] = sqrt(ssq);
    }
}

/* ------------------------------------------------------------------------ */
/* NumPy-style ufunc inner loops: byte strides                               */
/* ------------------------------------------------------------------------ */

/* out = in1 + in2 with byte strides; a stride of 0 broadcasts a scalar. */
void FLOAT_add(const float *in1, const float *in2, float *out,
               npy_intp n, npy_intp is1, npy_intp is2, npy_intp os1)
{
    const char *ip1 = (const char *)in1;
    const char *ip2 = (const char *)in2;
    char *op1 = (char *)out;
    npy_intp i;

    for (i = 0; i < n; i++, ip1 += is1, ip2 += is2, op1 += os1) {
        const float a = *(const float *)ip1;
        const float b = *(const float *)ip2;
        *(float *)op1 = a + b;
    }
}

/* out = in*in, with a contiguous fast path and a generic strided loop. */
void DOUBLE_square(const double *in, double *out,
                   npy_intp n, npy_intp is1, npy_intp os1)
{
    const char *ip1 = (const char *)in;
    char *op1 = (char *)out;

    if (is1 == (npy_intp)sizeof(double) && os1 == (npy_intp)sizeof(double)) {
        const double *ip = (const double *)ip1;
        double *op = (double *)op1;
        for (npy_intp i = 0; i < n; i++)
            op[i] = ip[i] * ip[i];
        return;
    }
    for (npy_intp i = 0; i < n; i++, ip1 += is1, op1 += os1) {
        const double v = *(const double *)ip1;
        *(double *)op1 = v * v;
    }
}

/* add.reduce over one axis: *io += sum of n ints read with byte stride is2. */
void INT_add_reduce(int *io, const int *in, npy_intp n, npy_intp is2)
{
    const char *ip2 = (const char *)in;
    int io1 = *io;
    npy_intp i;

    for (i = 0; i < n; i++, ip2 += is2)
        io1 += *(const int *)ip2;
    *io = io1;
}

/* ------------------------------------------------------------------------ */
/* 8-bit image conversion and resizing (stb_image / stb_image_resize style)  */
/* ------------------------------------------------------------------------ */

/* RGB -> RGBA with opaque alpha, tightly packed rows. */
void img_rgb_to_rgba(const unsigned char *src, unsigned char *dest, int x, int y)
{
    int i, j;
    for (j = 0; j < y; ++j) {
        const unsigned char *s = src + j * x * 3;
        unsigned char *d = dest + j * x * 4;
        for (i = x - 1; i >= 0; --i, s += 3, d += 4) {
            d[0] = s[0];
            d[1] = s[1];
            d[2] = s[2];
            d[3] = 255;
        }
    }
}

#define LUMA8(r, g, b) ((unsigned char)((((r) * 77) + ((g) * 150) + (29 * (b))) >> 8))

/* Interleaved RGB rows with a byte stride -> packed 8-bit luma. */
void img_rgb_to_gray(const unsigned char *rgb, int stride, unsigned char *gray,
                     int w, int h)
{
    int x, y;
    for (y = 0; y < h; ++y) {
        const unsigned char *p = rgb + y * stride;
        unsigned char *g = gray + y * w;
        for (x = 0; x < w; ++x, p += 3)
            g[x] = LUMA8(p[0], p[1], p[2]);
    }
}

/* Halve width and height with a rounded 2x2 box, comp interleaved channels. */
void img_downsample2x(const unsigned char *src, int sw, int sh, int sstride,
                      unsigned char *dst, int dstride, int comp)
{
    int dw = sw / 2, dh = sh / 2;
    for (int y = 0; y < dh; ++y) {
        const unsigned char *r0 = src + (2 * y) * sstride;
        const unsigned char *r1 = r0 + sstride;
        unsigned char *o = dst + y * dstride;
        for (int x = 0; x < dw; ++x) {
            for (int c = 0; c < comp; ++c) {
                int k = 2 * x * comp + c;
                int s = r0[k] + r0[k + comp] + r1[k] + r1[k + comp];
                o[x * comp + c] = (unsigned char)((s + 2) >> 2);
            }
        }
    }
}

/* Nearest-neighbour resize of a single-channel 8-bit image. */
void img_resize_nearest(const unsigned char *src, int sw, int sh,
                        unsigned char *dst, int dw, int dh)
{
    for (int y = 0; y < dh; ++y) {
        int sy = (y * sh) / dh;
        const unsigned char *srow = src + sy * sw;
        for (int x = 0; x < dw; ++x)
            dst[y * dw + x] = srow[(x * sw) / dw];
    }
}

/* ------------------------------------------------------------------------ */
/* Audio                                                                     */
/* ------------------------------------------------------------------------ */

/* Linear gain ramp over an interleaved buffer, one gain per frame. */
void audio_gain_ramp(float *buf, int frames, int channels,
                     float gain_start, float gain_end)
{
    const float step = (gain_end - gain_start) / (float)frames;
    float g = gain_start;
    for (int f = 0; f < frames; f++) {
        for (int ch = 0; ch < channels; ch++)
            buf[f * channels + ch] *= g;
        g += step;
    }
}

/* Mix a panned mono voice over a stereo bed into interleaved L/R, hard clipped. */
void audio_mix_pan_clip(const float *voice, const float *bed, float *out,
                        int frames, float voice_gain, float bed_gain, float pan)
{
    const float gl = voice_gain * (1.0f - pan);
    const float gr = voice_gain * pan;
    for (int i = 0; i < frames; i++) {
        float l = voice[i] * gl + bed[2 * i] * bed_gain;
        float r = voice[i] * gr + bed[2 * i + 1] * bed_gain;
        if (l > 1.0f) l = 1.0f;
        else if (l < -1.0f) l = -1.0f;
        if (r > 1.0f) r = 1.0f;
        else if (r < -1.0f) r = -1.0f;
        out[2 * i] = l;
        out[2 * i + 1] = r;
    }
}

/* Direct-form FIR: x holds ntaps-1 samples of history before the block. */
void fir_direct(const float *x, const float *h, float *y, int nout, int ntaps)
{
    for (int n = 0; n < nout; n++) {
        const float *xp = x + n + ntaps - 1;
        float acc = 0.0f;
        for (int k = 0; k < ntaps; k++)
            acc += h[k] * xp[-k];
        y[n] = acc;
    }
}

/* ------------------------------------------------------------------------ */
/* Physics                                                                   */
/* ------------------------------------------------------------------------ */

/* Semi-implicit Euler step of n particles stored as xyz triples, with a floor. */
void particles_step(float *pos, float *vel, const float *force,
                    const float *inv_mass, int n, float dt, float drag)
{
    for (int i = 0; i < n; i++) {
        float *p = pos + 3 * i;
        float *v = vel + 3 * i;
        const float *f = force + 3 * i;
        for (int c = 0; c < 3; c++) {
            v[c] = (v[c] + f[c] * inv_mass[i] * dt) * drag;
            p[c] += v[c] * dt;
        }
        if (p[1] < 0.0f) {
            p[1] = 0.0f;
            v[1] = -0.5f * v[1];
        }
    }
}

/* Forces on a chain of masses joined by equal springs (Hooke, rest length). */
void spring_chain_force(const float *x, float *f, int n, float k, float rest)
{
    if (n < 2)
        return;
    f[0] = k * (x[1] - x[0] - rest);
    for (int i = 1; i < n - 1; i++) {
        float right = x[i + 1] - x[i] - rest;
        float left = x[i] - x[i - 1] - rest;
        f[i] = k * (right - left);
    }
    f[n - 1] = -k * (x[n - 1] - x[n - 2] - rest);
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                                */
/* ------------------------------------------------------------------------ */

/* Welford's one-pass mean and sample variance: out[0] mean, out[1] variance. */
void welford_mean_var(const double *x, int n, double *out)
{
    double mean = 0.0, m2 = 0.0;
    for (int i = 0; i < n; i++) {
        double delta = x[i] - mean;
        mean += delta / (double)(i + 1);
        m2 += delta * (x[i] - mean);
    }
    out[0] = mean;
    out[1] = n > 1 ? m2 / (double)(n - 1) : 0.0;
}

/* Standardise a vector: (x - mean) / sqrt(var + eps), two passes. */
void zscore(const float *x, float *y, int n, float eps)
{
    float sum = 0.0f;
    for (int i = 0; i < n; i++)
        sum += x[i];
    const float mean = sum / (float)n;
    float ss = 0.0f;
    for (int i = 0; i < n; i++) {
        float d = x[i] - mean;
        ss += d * d;
    }
    const float inv_std = 1.0f / sqrtf(ss / (float)n + eps);
    for (int i = 0; i < n; i++)
        y[i] = (x[i] - mean) * inv_std;
}

/* ------------------------------------------------------------------------ */
/* ML operators                                                              */
/* ------------------------------------------------------------------------ */

/* 1-D convolution, channels first, valid padding, with stride and bias. */
void conv1d_valid(const float *in, const float *weight, const float *bias,
                  float *out, int cin, int cout, int len, int ksize, int stride)
{
    const int lout = (len - ksize) / stride + 1;
    for (int co = 0; co < cout; co++) {
        for (int t = 0; t < lout; t++) {
            float acc = bias[co];
            for (int ci = 0; ci < cin; ci++) {
                const float *w = weight + (co * cin + ci) * ksize;
                const float *src = in + ci * len + t * stride;
                for (int j = 0; j < ksize; j++)
                    acc += w[j] * src[j];
            }
            out[co * lout + t] = acc;
        }
    }
}

/* 3x3 depthwise convolution, NHWC, zero "same" padding, bias and ReLU6. */
void dwconv3x3_nhwc_relu6(const float *in, const float *w, const float *bias,
                          float *out, int h, int wd, int c)
{
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < wd; x++) {
            for (int ch = 0; ch < c; ch++) {
                float acc = bias[ch];
                for (int ky = 0; ky < 3; ky++) {
                    int iy = y + ky - 1;
                    if (iy < 0 || iy >= h)
                        continue;
                    for (int kx = 0; kx < 3; kx++) {
                        int ix = x + kx - 1;
                        if (ix < 0 || ix >= wd)
                            continue;
                        acc += in[(iy * wd + ix) * c + ch] * w[(ky * 3 + kx) * c + ch];
                    }
                }
                acc = acc < 0.0f ? 0.0f : acc;
                out[(y * wd + x) * c + ch] = acc > 6.0f ? 6.0f : acc;
            }
        }
    }
}

/* 2x2 max pooling with stride 2, NCHW, odd edges dropped. */
void maxpool2x2_nchw(const float *in, float *out, int c, int h, int w)
{
    const int oh = h / 2, ow = w / 2;
    for (int ch = 0; ch < c; ch++) {
        const float *plane = in + ch * h * w;
        for (int oy = 0; oy < oh; oy++) {
            for (int ox = 0; ox < ow; ox++) {
                const float *p = plane + (2 * oy) * w + 2 * ox;
                float m = p[0];
                if (p[1] > m) m = p[1];
                if (p[w] > m) m = p[w];
                if (p[w + 1] > m) m = p[w + 1];
                out[(ch * oh + oy) * ow + ox] = m;
            }
        }
    }
}

/* GELU, tanh approximation. */
void gelu_tanh(const float *restrict x, float *restrict y, size_t n)
{
    const float k0 = 0.7978845608f; /* sqrt(2/pi) */
    const float k1 = 0.044715f;
    for (size_t i = 0; i < n; ++i) {
        const float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
    }
}

/* ------------------------------------------------------------------------ */
/* Integer kernels                                                           */
/* ------------------------------------------------------------------------ */

/* Saturating element-wise add of int16 samples. */
void sat_add_s16(const int16_t *restrict a, const int16_t *restrict b,
                 int16_t *restrict out, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        int32_t s = (int32_t)a[i] + (int32_t)b[i];
        if (s > INT16_MAX)
            s = INT16_MAX;
        if (s < INT16_MIN)
            s = INT16_MIN;
        out[i] = (int16_t)s;
    }
}

/* Population count of each word, SWAR style. */
void popcount_u32(const uint32_t *restrict v, uint8_t *restrict cnt, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t x = v[i];
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        x = (x + (x >> 4)) & 0x0F0F0F0Fu;
        cnt[i] = (uint8_t)((x * 0x01010101u) >> 24);
    }
}

/* ------------------------------------------------------------------------ */
/* Dense, size_t and restrict                                                */
/* ------------------------------------------------------------------------ */

/* y = A x + b, A row-major m x n. */
void matvec_bias(size_t m, size_t n, const double *restrict A,
                 const double *restrict x, const double *restrict b,
                 double *restrict y)
{
    for (size_t i = 0; i < m; ++i) {
        const double *restrict row = A + i * n;
        double acc = b[i];
        for (size_t j = 0; j < n; ++j)
            acc += row[j] * x[j];
        y[i] = acc;
    }
}
