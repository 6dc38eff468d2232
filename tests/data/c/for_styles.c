#include <stddef.h>
#include <math.h>

/* the counter declared and set before the loop */
void from_before(int n, const float *x, float *y)
{
    int i = 0;
    for (; i < n; ++i)
        y[i] = 2.0f * x[i];
}

/* unrolled by four, then the tail from where the main loop stopped (CMSIS, ggml) */
void scale_tail(int n, float a, const float *x, float *y)
{
    int i;
    for (i = 0; i + 4 <= n; i += 4) {
        y[i] = a * x[i];
        y[i + 1] = a * x[i + 1];
        y[i + 2] = a * x[i + 2];
        y[i + 3] = a * x[i + 3];
    }
    for (; i < n; i++)
        y[i] = a * x[i];
}

/* partial sums of an unrolled dot product, and its tail */
float dot_tail(int n, const float *x, const float *y)
{
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int i = 0;
    for (; i <= n - 4; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < n; i++)
        s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* OpenCV's row loop: the height counts down, the rows advance by their steps */
void add_rows(const float *src1, int step1, const float *src2, int step2,
              float *dst, int step, int width, int height)
{
    for (; height--; src1 += step1, src2 += step2, dst += step) {
        int x = 0;
        for (; x <= width - 4; x += 4) {
            float t0 = src1[x] + src2[x], t1 = src1[x + 1] + src2[x + 1];
            dst[x] = t0;
            dst[x + 1] = t1;
            t0 = src1[x + 2] + src2[x + 2];
            t1 = src1[x + 3] + src2[x + 3];
            dst[x + 2] = t0;
            dst[x + 3] = t1;
        }
        for (; x < width; x++)
            dst[x] = src1[x] + src2[x];
    }
}

/* a row-major matrix: every row unrolled by two with a tail */
void rows_tail(int m, int n, const double *a, double *b)
{
    int i, j;
    for (i = 0; i < m; i++) {
        for (j = 0; j + 2 <= n; j += 2) {
            b[i * n + j] = a[i * n + j] + 1.0;
            b[i * n + j + 1] = a[i * n + j + 1] + 1.0;
        }
        for (; j < n; j++)
            b[i * n + j] = a[i * n + j] + 1.0;
    }
}

/* no initialisation: pointers and the count step in the header */
void copy_count(int n, const double *x, double *y)
{
    for (; n > 0; n--, x++, y++)
        *y = 2.0 * *x;
}

/* the index is a parameter: it starts where the caller says */
void ones_from(int n, int i, double *a)
{
    for (; i < n; i++)
        a[i] = 1.0;
}

/* no increment: the body steps the index */
void ones_stepped_inside(int n, double *a)
{
    for (int j = 0; j < n;) {
        a[j] = 1.0;
        j++;
    }
}

/* NumPy's clip: NaN passes through */
void clip_nan(int n, float lo, float hi, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float v = x[i];
        y[i] = isnan(v) ? v : (v < lo ? lo : (v > hi ? hi : v));
    }
}

/* NaN to zero, as nan_to_num does */
void nan_to_zero(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        if (isnan(x[i]))
            y[i] = 0.0;
        else
            y[i] = x[i];
    }
}

/* the classification macros as numbers: isinf is -1 at -inf with glibc */
void classes(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = isinf(x[i]) + 2 * isfinite(x[i]) + 4 * (isnan(x[i]) != 0) + 8 * !isinf(x[i]);
}

/* the tail counts on from where a loop stepping by two stopped: 2 * ceil(n / 2) */
void odd_tail(int n, double *a)
{
    int i;
    for (i = 0; i < n; i += 2)
        a[i] = 1.0;
    for (; i < n + 2; i++)
        a[i] = 2.0;
}

/* the same rows, each element stored as computed */
void sub_rows(const float *src1, int step1, const float *src2, int step2,
              float *dst, int step, int width, int height)
{
    for (; height--; src1 += step1, src2 += step2, dst += step) {
        int x = 0;
        for (; x <= width - 4; x += 4) {
            dst[x] = src1[x] - src2[x];
            dst[x + 1] = src1[x + 1] - src2[x + 1];
            dst[x + 2] = src1[x + 2] - src2[x + 2];
            dst[x + 3] = src1[x + 3] - src2[x + 3];
        }
        for (; x < width; x++)
            dst[x] = src1[x] - src2[x];
    }
}

/* fmax and fmin as C defines them: a NaN argument gives the other one */
void relu_cap(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = fmaxf(x[i], 0.0f) + fminf(x[i], 1.0f);
}

/* ggml: rows nb1 bytes apart, reached through byte pointers */
void scale_rows(int nr, int nc, size_t nb1, const float *src, float *dst, float s)
{
    for (int i1 = 0; i1 < nr; i1++) {
        const float *x = (const float *)((const char *)src + i1 * nb1);
        float *y = (float *)((char *)dst + i1 * nb1);
        for (int i0 = 0; i0 < nc; i0++)
            y[i0] = s * x[i0];
    }
}

static void vec_add(int n, float *z, const float *x, const float *y)
{
    for (int i = 0; i < n; ++i)
        z[i] = x[i] + y[i];
}

/* ggml's add: planes and rows by their byte strides, each row through a vector helper */
void add_planes(int ne0, int ne1, int ne2, size_t nb1, size_t nb2, size_t nb01, size_t nb02,
                const float *a, const float *b, float *dst)
{
    for (int i2 = 0; i2 < ne2; i2++) {
        for (int i1 = 0; i1 < ne1; i1++) {
            float *d = (float *)((char *)dst + i1 * nb1 + i2 * nb2);
            const float *x = (const float *)((const char *)a + i1 * nb01 + i2 * nb02);
            const float *y = (const float *)((const char *)b + i1 * nb01 + i2 * nb02);
            vec_add(ne0, d, x, y);
        }
    }
}

#define GGML_F32_STEP 8

/* ggml's vector loops: n rounded down to the step by a mask, the rest after it */
void vec_mad(const int n, float *y, const float *x, const float v)
{
    const int np = (n & ~(GGML_F32_STEP - 1));
    for (int i = 0; i < np; i += GGML_F32_STEP)
        for (int j = 0; j < GGML_F32_STEP; j++)
            y[i + j] += x[i + j] * v;
    for (int i = np; i < n; ++i)
        y[i] += x[i] * v;
}

/* the low bits first (BLAS's clean-up loop), then by fours */
void low_bits(int n, const double *x, double *y)
{
    int rem = n & 3;
    for (int i = 0; i < rem; i++)
        y[i] = -x[i];
    for (int i = rem; i < n; i += 4) {
        y[i] = x[i];
        y[i + 1] = x[i + 1];
        y[i + 2] = x[i + 2];
        y[i + 3] = x[i + 3];
    }
}
