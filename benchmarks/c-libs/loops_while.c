/* loops_while.c: C as libraries write it around their loops: while and do loops that
 * count (DSP block counters with pointer walks, `while (n--)`, index loops, nested
 * counters, unrolled bodies with a tail), quick returns at the top of a function (on
 * sizes, on scalars, returning a value), and subscripts through local index variables
 * (stencils over a flattened grid, row offsets). Written for synth's tests; not copies
 * of any library's files. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* --- counting loops ------------------------------------------------------------- */

void vec_mul_blk(const float *pSrcA, const float *pSrcB, float *pDst, uint32_t blockSize)
{
    uint32_t blkCnt;

    blkCnt = blockSize;
    while (blkCnt > 0U) {
        *pDst++ = (*pSrcA++) * (*pSrcB++);
        blkCnt--;
    }
}

void vec_offset_unroll(const float *pSrc, float offset, float *pDst, uint32_t blockSize)
{
    uint32_t blkCnt = blockSize >> 2U;

    while (blkCnt > 0U) {
        *pDst++ = *pSrc++ + offset;
        *pDst++ = *pSrc++ + offset;
        *pDst++ = *pSrc++ + offset;
        *pDst++ = *pSrc++ + offset;
        blkCnt--;
    }
    blkCnt = blockSize % 4U;
    while (blkCnt > 0U) {
        *pDst++ = *pSrc++ + offset;
        blkCnt--;
    }
}

float dot_blk(const float *pA, const float *pB, uint32_t len)
{
    float acc = 0.0f;
    uint32_t cnt = len;

    while (cnt > 0U) {
        acc += (*pA++) * (*pB++);
        --cnt;
    }
    return acc;
}

void scale_copy_n(double *dst, const double *src, double a, size_t n)
{
    while (n--)
        *dst++ = a * *src++;
}

void saxpy_idx(int n, float a, const float *x, float *y)
{
    int i = 0;

    while (i < n) {
        y[i] = a * x[i] + y[i];
        i++;
    }
}

void reverse_copy_w(const int *in, int *out, int n)
{
    int i = n;

    while (i > 0) {
        --i;
        out[n - 1 - i] = in[i];
    }
}

void even_double(const double *x, double *y, int n)
{
    int k = 0;

    while (k < n) {
        y[k] = 2.0 * x[k];
        k += 2;
    }
}

void row_totals(const float *A, float *s, int rows, int cols)
{
    int r = rows;

    while (r-- > 0) {
        float acc = 0.0f;
        int c = cols;
        while (c-- > 0)
            acc += *A++;
        *s++ = acc;
    }
}

void mat_shift_q15(const int16_t *pSrc, int16_t *pDst, uint16_t numRows, uint16_t numCols)
{
    uint16_t row = numRows;

    do {
        uint16_t col = numCols;
        do {
            *pDst++ = (int16_t)(*pSrc++ >> 1);
        } while (--col);
    } while (--row);
}

void negate_do(const float *x, float *y, int n)
{
    int i = 0;

    do {
        y[i] = -x[i];
        i++;
    } while (i < n);
}

/* --- quick returns -------------------------------------------------------------- */

void gemv_ref(int m, int n, double alpha, const double *A, int lda, const double *x,
              double beta, double *y)
{
    int i, j;
    double temp;

    if (m == 0 || n == 0 || (alpha == 0.0 && beta == 1.0))
        return;
    if (alpha == 0.0) {
        for (i = 0; i < m; i++)
            y[i] = beta * y[i];
        return;
    }
    for (i = 0; i < m; i++) {
        temp = 0.0;
        for (j = 0; j < n; j++)
            temp += A[i * lda + j] * x[j];
        y[i] = beta * y[i] + alpha * temp;
    }
}

void ger_ref(int m, int n, float alpha, const float *x, const float *y, float *A, int lda)
{
    if (m <= 0 || n <= 0 || alpha == 0.0f)
        return;
    for (int i = 0; i < m; i++) {
        float t = alpha * x[i];
        for (int j = 0; j < n; j++)
            A[i * lda + j] += t * y[j];
    }
}

float sdot_q(int n, const float *x, const float *y)
{
    float s = 0.0f;

    if (n <= 0)
        return 0.0f;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

double scaled_asum(const double *x, int n, double scale)
{
    if (scale == 0.0)
        return 0.0;
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += fabs(x[i]);
    return scale * s;
}

void axpy_walk_q(int n, float a, const float *x, float *y)
{
    if (a == 0.0f)
        return;
    while (n-- > 0) {
        *y += a * *x;
        y++;
        x++;
    }
}

/* --- subscripts through local index variables ----------------------------------- */

void heat_interior(const double *u, double *unew, int nx, int ny, double r)
{
    for (int j = 1; j < ny - 1; j++)
        for (int i = 1; i < nx - 1; i++) {
            int c = j * nx + i;
            unew[c] = u[c] + r * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]);
        }
}

void smooth_edges_kept(const float *in, float *out, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int p = y * w + x;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                out[p] = in[p];
            else
                out[p] = 0.25f * (in[p - 1] + in[p + 1] + in[p - w] + in[p + w]);
        }
}

void row_diff(const double *a, double *b, int n, int m)
{
    for (int i = 1; i < n; i++) {
        int row = i * m;
        int prev = row - m;
        for (int j = 0; j < m; j++)
            b[row + j] = a[row + j] - a[prev + j];
    }
}

void lap3d(const float *u, float *v, int nx, int ny, int nz)
{
    int plane = nx * ny;
    for (int z = 1; z < nz - 1; z++)
        for (int y = 1; y < ny - 1; y++)
            for (int x = 1; x < nx - 1; x++) {
                int c = (z * ny + y) * nx + x;
                v[c] = u[c - plane] + u[c + plane] + u[c - nx] + u[c + nx] + u[c - 1] + u[c + 1]
                       - 6.0f * u[c];
            }
}
