/* Held-out kernels, written before the translator was extended and not run
 * while developing it: checked once at the end. */
#include <math.h>
#include <stdint.h>
#include <stddef.h>

/* layer normalization of each row of a (rows x cols) matrix */
void layernorm(float *out, const float *in, const float *gamma, const float *beta,
               int rows, int cols)
{
    for (int r = 0; r < rows; r++) {
        const float *x = in + r * cols;
        float mean = 0.0f;
        for (int c = 0; c < cols; c++) mean += x[c];
        mean /= cols;
        float var = 0.0f;
        for (int c = 0; c < cols; c++) {
            float d = x[c] - mean;
            var += d * d;
        }
        var /= cols;
        float inv = 1.0f / sqrtf(var + 1e-5f);
        for (int c = 0; c < cols; c++)
            out[r * cols + c] = (x[c] - mean) * inv * gamma[c] + beta[c];
    }
}

/* 2-d convolution, valid region, single channel, k x k kernel */
void conv2d_valid(const float *img, int h, int w, const float *ker, int k, float *out)
{
    int oh = h - k + 1, ow = w - k + 1;
    for (int y = 0; y < oh; y++)
        for (int x = 0; x < ow; x++) {
            float s = 0;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++)
                    s += img[(y + i) * w + (x + j)] * ker[i * k + j];
            out[y * ow + x] = s;
        }
}

/* y = A x for a banded matrix stored densely, only |i-j| <= 1 read */
void tridiag_mv(int n, const double *A, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = A[i * n + i] * x[i];
        if (i > 0) s += A[i * n + i - 1] * x[i - 1];
        if (i < n - 1) s += A[i * n + i + 1] * x[i + 1];
        y[i] = s;
    }
}

/* alpha-premultiplied over operator on RGBA8 pixels */
void over_rgba(uint8_t *dst, const uint8_t *src, int npix)
{
    for (int i = 0; i < npix; i++) {
        int a = src[4 * i + 3];
        for (int c = 0; c < 4; c++) {
            int v = src[4 * i + c] + dst[4 * i + c] * (255 - a) / 255;
            dst[4 * i + c] = (uint8_t)v;
        }
    }
}

/* squared error and its gradient */
float mse_grad(const float *pred, const float *target, float *grad, int n)
{
    float loss = 0.0f;
    for (int i = 0; i < n; ++i) {
        float d = pred[i] - target[i];
        loss += d * d;
        grad[i] = 2.0f * d / n;
    }
    return loss / n;
}

/* max pooling 2x2 with stride 2 over a (c, h, w) tensor */
void maxpool2x2(int c, int h, int w, const float *in, float *out)
{
    int oh = h / 2, ow = w / 2;
    for (int ch = 0; ch < c; ch++)
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                const float *p = in + (ch * h + 2 * y) * w + 2 * x;
                float m = p[0];
                if (p[1] > m) m = p[1];
                if (p[w] > m) m = p[w];
                if (p[w + 1] > m) m = p[w + 1];
                out[(ch * oh + y) * ow + x] = m;
            }
}

/* complex multiply of interleaved (re, im) arrays */
void cmul(const double *a, const double *b, double *c, int n)
{
    for (int i = 0; i < n; i++) {
        double ar = a[2 * i], ai = a[2 * i + 1];
        double br = b[2 * i], bi = b[2 * i + 1];
        c[2 * i] = ar * br - ai * bi;
        c[2 * i + 1] = ar * bi + ai * br;
    }
}

/* saturating 16-bit add */
void add_sat_s16(const int16_t *a, const int16_t *b, int16_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t s = (int32_t)a[i] + b[i];
        if (s > INT16_MAX) s = INT16_MAX;
        else if (s < INT16_MIN) s = INT16_MIN;
        out[i] = (int16_t)s;
    }
}

/* outer product accumulated into a matrix with a leading dimension */
void outer_acc(int m, int n, const float *u, const float *v, float *M, int ldm)
{
    for (int i = 0; i < m; i++) {
        float ui = u[i];
        float *row = M + i * ldm;
        for (int j = 0; j < n; j++)
            row[j] += ui * v[j];
    }
}

/* cosine similarity of two vectors */
double cosine(const double *a, const double *b, int n)
{
    double ab = 0, aa = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        ab += a[i] * b[i];
        aa += a[i] * a[i];
        bb += b[i] * b[i];
    }
    return ab / (sqrt(aa) * sqrt(bb));
}
