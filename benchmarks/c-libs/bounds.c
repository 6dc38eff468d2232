/* bounds.c: loop bounds as library C writes them: through min and max (a local `end`,
   a MIN macro, a `?:` in the condition, blocked / tiled loops, LAPACK's triangles with
   min(j, m)), quotients of run-time sizes (`n / 2` pairs, `i + K <= n` valid windows,
   `(n - k) / s + 1` strided output lengths, pooling), and `continue` that skips taps
   outside an image or a signal. */
#include <stddef.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define BLK 4
#define TILE 3
#define STRIDE 2
#define POOL 2
#define R 1

/* --- min / max bounds -------------------------------------------------------------- */

/* saxpy blocked for the cache, the block's end through a local min */
void saxpy_blocked(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; i += BLK) {
        int end = i + BLK < n ? i + BLK : n;
        for (int j = i; j < end; j++)
            y[j] += a * x[j];
    }
}

/* a scaled copy tiled by hand, the tile's end written in the condition */
void scale_tiled(int n, double alpha, const double *x, double *y)
{
    int ii, i;
    for (ii = 0; ii < n; ii += TILE)
        for (i = ii; i < (ii + TILE < n ? ii + TILE : n); i++)
            y[i] = alpha * x[i];
}

/* OpenCV-style transpose in square tiles, MIN in both tile ends */
void transpose_tiled(int rows, int cols, const float *src, float *dst)
{
    for (int i0 = 0; i0 < rows; i0 += TILE)
        for (int j0 = 0; j0 < cols; j0 += TILE)
            for (int i = i0; i < MIN(i0 + TILE, rows); i++)
                for (int j = j0; j < MIN(j0 + TILE, cols); j++)
                    dst[j * rows + i] = src[i * cols + j];
}

/* the first min(k, n) elements, as a prefix copy with a length cap */
void copy_prefix(int n, int k, const float *x, float *y)
{
    for (int j = 0; j < MIN(k, n); j++)
        y[j] = 2.0f * x[j];
}

/* LAPACK dlacpy, uplo = 'U' (column-major): rows 0 .. min(j, m - 1) of column j */
void dlacpy_upper(int m, int n, const double *A, int lda, double *B, int ldb)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < MIN(j + 1, m); i++)
            B[i + j * ldb] = A[i + j * lda];
}

/* sums of the strictly lower part of each row, capped at m columns */
void tri_rowsum(int n, int m, const float *A, float *y)
{
    for (int i = 0; i < n; i++) {
        float s = 0.0f;
        for (int j = 0; j < (i < m ? i : m); j++)
            s += A[i * m + j];
        y[i] = s;
    }
}

/* the end of each row's band through an integer helper */
static inline int imin(int a, int b) { return a < b ? a : b; }

void band_scale(int n, const float *d, float *x)
{
    for (int i = 0; i < n; i += BLK)
        for (int j = i; j < imin(i + BLK, n); j++)
            x[j] = x[j] * d[j];
}

/* a blocked dot product: partial sums per block, then their total */
float sdot_blocked(int n, const float *x, const float *y)
{
    float total = 0.0f;
    for (int i = 0; i < n; i += BLK) {
        int hi = MIN(i + BLK, n);
        for (int j = i; j < hi; j++)
            total += x[j] * y[j];
    }
    return total;
}

/* the lower bound through max: a suffix from max(s, 0) */
void clear_from(int n, int s, float *x)
{
    for (int i = MAX(s, 0); i < n; i++)
        x[i] = 0.0f;
}

/* a blocked scale with the block's end as a second test in the condition */
void sscal_blocked_and(int n, float a, float *x)
{
    for (int i = 0; i < n; i += BLK)
        for (int j = i; j < n && j < i + BLK; j++)
            x[j] = a * x[j];
}

/* the last (at most) four samples, newest first: a down-counting loop to a max */
void copy_last4(int n, const double *x, double *y)
{
    for (int i = n - 1; i >= (n > 4 ? n - 4 : 0); i--)
        y[n - 1 - i] = x[i];
}

/* --- quotient bounds --------------------------------------------------------------- */

/* sums of adjacent pairs (a Haar average without the scale) */
void pair_sum(int n, const float *x, float *y)
{
    for (int i = 0; i < n / 2; i++)
        y[i] = x[2 * i] + x[2 * i + 1];
}

/* valid cross-correlation: every window that fits, written i + K <= n */
void xcorr_valid(int n, int K, const float *x, const float *w, float *y)
{
    for (int i = 0; i + K <= n; i++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++)
            acc += x[i + k] * w[k];
        y[i] = acc;
    }
}

/* ggml-style strided conv1d: (n - k) / s + 1 outputs */
void conv1d_stride2(int n, int k, const float *x, const float *w, float *out)
{
    for (int i = 0; i < (n - k) / STRIDE + 1; i++) {
        float acc = 0.0f;
        for (int j = 0; j < k; j++)
            acc += x[i * STRIDE + j] * w[j];
        out[i] = acc;
    }
}

/* max pooling by 2 over a signal, n / 2 outputs */
void maxpool1d(int n, const float *x, float *y)
{
    for (int i = 0; i < n / POOL; i++) {
        float m = x[i * POOL];
        for (int k = 1; k < POOL; k++)
            m = x[i * POOL + k] > m ? x[i * POOL + k] : m;
        y[i] = m;
    }
}

/* stb-style 2x2 box downsampling of an 8-bit image (w, h even) */
void downsample2_u8(int w, int h, const unsigned char *src, unsigned char *dst)
{
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++) {
            int s = src[(2 * y) * w + 2 * x] + src[(2 * y) * w + 2 * x + 1]
                  + src[(2 * y + 1) * w + 2 * x] + src[(2 * y + 1) * w + 2 * x + 1];
            dst[y * (w / 2) + x] = (unsigned char)((s + 2) >> 2);
        }
}

/* --- continue guarding a body ------------------------------------------------------ */

/* a 'same' convolution: taps outside the signal are skipped */
void conv1d_same(int w, const float *in, const float *k3, float *out)
{
    for (int i = 0; i < w; i++) {
        float acc = 0.0f;
        for (int k = 0; k < 2 * R + 1; k++) {
            int x = i + k - R;
            if (x < 0 || x >= w)
                continue;
            acc += in[x] * k3[k];
        }
        out[i] = acc;
    }
}

/* OpenCV-style 3x3 box sum over a float image, border taps skipped */
void box3x3_skip(int h, int w, const float *src, float *dst)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy, xx = x + dx;
                    if (yy < 0 || yy >= h || xx < 0 || xx >= w)
                        continue;
                    s += src[yy * w + xx];
                }
            dst[y * w + x] = s;
        }
}

/* CMSIS-style: only positive samples are accumulated (a data guard) */
void sum_positive(int n, const float *x, float *out)
{
    float acc = 0.0f;
    for (int i = 0; i < n; i++) {
        if (x[i] <= 0.0f)
            continue;
        acc += x[i];
    }
    *out = acc;
}
