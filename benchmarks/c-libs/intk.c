/* intk.c: integer kernels: quantized dot products, sums, bit operations. */
#include <stdint.h>
#include <stddef.h>

int32_t dot_i8(const int8_t *a, const int8_t *b, int n)
{
    int32_t acc = 0;
    for (int i = 0; i < n; i++)
        acc += a[i] * b[i];
    return acc;
}

long sum_i32(const int *x, long n)
{
    long s = 0;
    for (long i = 0; i < n; i++)
        s += x[i];
    return s;
}

void iaxpy(int n, int a, const int *x, int *y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* int8 matrix-vector product with int32 accumulation, then requantized */
void qgemv(int rows, int cols, const int8_t *W, const int8_t *x, int32_t *y)
{
    for (int r = 0; r < rows; r++) {
        int32_t acc = 0;
        for (int c = 0; c < cols; c++)
            acc += (int32_t)W[r * cols + c] * (int32_t)x[c];
        y[r] = acc;
    }
}

/* requantize int32 to int8: (x * mult) >> shift, clamped to [-128, 127] */
void requantize(const int32_t *in, int8_t *out, int n, int32_t mult, int shift)
{
    for (int i = 0; i < n; i++) {
        int32_t v = (in[i] * mult) >> shift;
        if (v > 127) v = 127;
        if (v < -128) v = -128;
        out[i] = (int8_t)v;
    }
}

/* sum of absolute differences of two 8-bit blocks */
unsigned sad_u8(const uint8_t *a, const uint8_t *b, int n)
{
    unsigned s = 0;
    for (int i = 0; i < n; i++) {
        int d = a[i] - b[i];
        s += d < 0 ? -d : d;
    }
    return s;
}

/* 16-bit samples mixed with a fixed-point gain (Q15) */
void mix_q15(const int16_t *a, const int16_t *b, int16_t *out, int n, int16_t gain)
{
    for (int i = 0; i < n; i++) {
        int32_t v = ((int32_t)a[i] * gain + (int32_t)b[i] * (32767 - gain)) >> 15;
        out[i] = (int16_t)v;
    }
}

void xor_bytes(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] ^= src[i];
}

/* unsigned arithmetic that wraps around */
void hash_mix(const uint32_t *in, uint32_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t h = in[i] * 2654435761u;
        h ^= h >> 16;
        out[i] = h + 0x9e3779b9u;
    }
}

/* signed division and remainder truncate towards zero */
void divmod(const int *a, const int *b, int *q, int *r, int n)
{
    for (int i = 0; i < n; i++) {
        q[i] = a[i] / 7;
        r[i] = a[i] % b[i];
    }
}

/* column sums of a short matrix into ints */
void colsum_s16(int rows, int cols, const short *m, int *sums)
{
    for (int j = 0; j < cols; j++)
        sums[j] = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            sums[j] += m[i * cols + j];
}

/* count of elements above a threshold */
int count_above(const int *x, int n, int t)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += x[i] > t;
    return c;
}

/* int gemm with C99 array parameters */
void igemm(int n, int m, int p, const int A[n][p], const int B[p][m], int C[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            int s = 0;
            for (int k = 0; k < p; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}
