/* strided.c: flat subscripts with a constant stride (decimation, channel extraction,
 * complex data stored interleaved, wavelet lifting) and rows at independent run-time
 * strides (leading dimensions), in the styles of CMSIS-DSP, OpenCV, ggml / llama2.c
 * and reference BLAS. Written for synth's corpus. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef float float32_t;

/* CMSIS-DSP style: a 3-tap smoothing decimator by 2, walking the source pointer
 * (reads pSrc[0 .. 2 * blockSize], an odd count of samples) */
void decimate2_smooth_f32(const float32_t *pSrc, float32_t *pDst, uint32_t blockSize)
{
    uint32_t blkCnt = blockSize;
    while (blkCnt > 0U) {
        *pDst++ = 0.25f * pSrc[0] + 0.5f * pSrc[1] + 0.25f * pSrc[2];
        pSrc += 2;
        blkCnt--;
    }
}

/* CMSIS-DSP arm_cmplx_mag_squared_f32: interleaved (re, im) samples */
void cmplx_mag_squared_f32(const float32_t *pSrc, float32_t *pDst, uint32_t numSamples)
{
    uint32_t blkCnt = numSamples;
    float32_t real, imag;
    while (blkCnt > 0U) {
        real = *pSrc++;
        imag = *pSrc++;
        *pDst++ = (real * real) + (imag * imag);
        blkCnt--;
    }
}

/* CMSIS-DSP arm_cmplx_mult_real_f32: complex by real, interleaved writes */
void cmplx_mult_real_f32(const float32_t *pSrcCmplx, const float32_t *pSrcReal,
                         float32_t *pCmplxDst, uint32_t numSamples)
{
    uint32_t blkCnt = numSamples;
    float32_t in;
    while (blkCnt > 0U) {
        in = *pSrcReal++;
        *pCmplxDst++ = *pSrcCmplx++ * in;
        *pCmplxDst++ = *pSrcCmplx++ * in;
        blkCnt--;
    }
}

/* the real part of a complex vector dotted with a real one */
float dot_real_part(const float *cx, const float *y, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += cx[2 * i] * y[i];
    return s;
}

/* one level of the Haar wavelet: averages and differences of sample pairs */
void haar_level(const float *x, float *lo, float *hi, int half)
{
    for (int i = 0; i < half; i++) {
        lo[i] = 0.5f * (x[2 * i] + x[2 * i + 1]);
        hi[i] = 0.5f * (x[2 * i] - x[2 * i + 1]);
    }
}

/* CDF 5/3 lifting, predict step: odd samples less the mean of their even neighbours
 * (x holds 2 * n + 1 samples) */
void lift53_predict(const float *x, float *d, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = x[2 * i + 1] - 0.5f * (x[2 * i] + x[2 * i + 2]);
}

/* OpenCV style: extract channel 1 (green) of an interleaved 3-channel row */
void extract_channel1_u8(const unsigned char *src, unsigned char *dst, int len)
{
    const int cn = 3;
    for (int i = 0; i < len; i++)
        dst[i] = src[i * cn + 1];
}

/* OpenCV style: halve a row by area (rounded mean of each pair) */
void resize_half_area_u8(const uint8_t *src, uint8_t *dst, int dwidth)
{
    for (int x = 0; x < dwidth; x++)
        dst[x] = (uint8_t)((src[x * 2] + src[x * 2 + 1] + 1) >> 1);
}

/* OpenCV style: write channel 1 of an interleaved 3-channel row (the others kept) */
void insert_channel1_u8(const unsigned char *src, unsigned char *dst, int len)
{
    for (int i = 0; i < len; i++)
        dst[i * 3 + 1] = src[i];
}

/* upsampling by 2 with linear interpolation: even outputs copy, odd ones average */
void upsample2_linear(const float *x, float *y, int n)
{
    for (int i = 0; i < n - 1; i++) {
        y[2 * i] = x[i];
        y[2 * i + 1] = 0.5f * (x[i] + x[i + 1]);
    }
}

/* an octave-up effect: the signal mixed with itself read at double speed */
void octave_up_mix(const float *x, float *y, int n, float g)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] + g * x[2 * i];
}

/* OpenCV style: halve an image by nearest neighbour (every other pixel of every other
 * row), rows at their own steps */
void resize_nearest_half_u8(const unsigned char *src, int sstep, unsigned char *dst, int dstep,
                            int dwidth, int dheight)
{
    for (int y = 0; y < dheight; y++)
        for (int x = 0; x < dwidth; x++)
            dst[y * dstep + x] = src[2 * y * sstep + 2 * x];
}

/* a 3-tap smoothing decimator by 2 along each row of an image with row steps */
void rows_decimate2_f32(const float *src, int sstep, float *dst, int dstep, int width, int height)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            dst[y * dstep + x] = 0.25f * src[y * sstep + 2 * x] + 0.5f * src[y * sstep + 2 * x + 1]
                               + 0.25f * src[y * sstep + 2 * x + 2];
}

/* every fourth sample (nearest-neighbour downsampling by 4) */
void downsample4(const float *in, float *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = in[4 * i];
}

/* per-row scaling of a matrix with leading dimension ld into one with ldo */
void scale_rows_ld(const float *in, float *out, const float *s, int rows, int n, int ld, int ldo)
{
    for (int r = 0; r < rows; r++) {
        const float *x = in + r * ld;
        float *y = out + r * ldo;
        for (int j = 0; j < n; j++)
            y[j] = x[j] * s[r];
    }
}

/* llama2.c rmsnorm over the rows of a batch, rows at their own strides */
void rmsnorm_rows(float *o, int ldo, const float *x, int ldx, const float *weight, int rows, int size)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + r * ldx;
        float *orow = o + r * ldo;
        float ss = 0.0f;
        for (int j = 0; j < size; j++)
            ss += xr[j] * xr[j];
        ss /= size;
        ss += 1e-5f;
        ss = 1.0f / sqrtf(ss);
        for (int j = 0; j < size; j++)
            orow[j] = weight[j] * (ss * xr[j]);
    }
}

/* ggml style: rows reached through byte strides nb01 (source) and nb1 (destination),
 * from the row pitches in elements */
void ggml_scale_rows_f32(const float *src0, float *dst, int ne00, int ne01, int ld0, int ld1, float v)
{
    const size_t nb01 = ld0 * sizeof(float);
    const size_t nb1 = ld1 * sizeof(float);
    for (int i1 = 0; i1 < ne01; i1++) {
        const float *x = (const float *)((const char *)src0 + i1 * nb01);
        float *y = (float *)((char *)dst + i1 * nb1);
        for (int i0 = 0; i0 < ne00; i0++)
            y[i0] = v * x[i0];
    }
}

/* BLAS-like geam: C = alpha * A + beta * B, each with its own leading dimension */
void sgeam_nn(int m, int n, float alpha, const float *A, int lda, float beta,
              const float *B, int ldb, float *C, int ldc)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            C[i * ldc + j] = alpha * A[i * lda + j] + beta * B[i * ldb + j];
}

/* row sums of a matrix with a leading dimension */
void row_sums_ld(const double *A, int lda, double *s, int m, int n)
{
    for (int i = 0; i < m; i++) {
        double acc = 0.0;
        for (int j = 0; j < n; j++)
            acc += A[i * lda + j];
        s[i] = acc;
    }
}
