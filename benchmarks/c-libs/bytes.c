/* Byte strides, in the styles of NumPy's inner loops (pointers and steps in bytes, read
 * through casts to the element type), OpenCV's row steps in bytes, and strided views a
 * C library passes as `char *` with a stride. NumPy's own loops take `char **args` and
 * `steps[k]`; these take each pointer and its step as a parameter of its own. */
#include <math.h>
#include <stddef.h>

typedef long npy_intp;
typedef unsigned char uchar;

/* NumPy's BINARY_LOOP: the pointers walk by their steps in the loop header */
void DOUBLE_add(char *ip1, npy_intp is1, char *ip2, npy_intp is2, char *op1, npy_intp os1, npy_intp n)
{
    npy_intp i;
    for (i = 0; i < n; i++, ip1 += is1, ip2 += is2, op1 += os1) {
        const double in1 = *(double *)ip1;
        const double in2 = *(double *)ip2;
        *(double *)op1 = in1 + in2;
    }
}

/* NumPy's binary loop with its second input a scalar (step 0), read once */
void FLOAT_multiply_scalar(char *ip1, npy_intp is1, char *ip2, char *op1, npy_intp os1, npy_intp n)
{
    const float in2 = *(float *)ip2;
    for (npy_intp i = 0; i < n; i++, ip1 += is1, op1 += os1)
        *(float *)op1 = *(float *)ip1 * in2;
}

/* NumPy's UNARY_LOOP */
void FLOAT_sqrt(char *ip1, npy_intp is1, char *op1, npy_intp os1, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++, ip1 += is1, op1 += os1) {
        const float in1 = *(float *)ip1;
        *(float *)op1 = sqrtf(in1);
    }
}

/* NumPy's integer negative, int64 */
void LONG_negative(char *ip1, npy_intp is1, char *op1, npy_intp os1, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++, ip1 += is1, op1 += os1)
        *(long *)op1 = -*(long *)ip1;
}

/* NumPy's binary loop with its contiguous fast path (typed pointers) beside the strided one */
void DOUBLE_multiply(char *ip1, npy_intp is1, char *ip2, npy_intp is2, char *op1, npy_intp os1, npy_intp n)
{
    if (is1 == sizeof(double) && is2 == sizeof(double) && os1 == sizeof(double)) {
        double *a = (double *)ip1, *b = (double *)ip2, *c = (double *)op1;
        for (npy_intp i = 0; i < n; i++)
            c[i] = a[i] * b[i];
        return;
    }
    for (npy_intp i = 0; i < n; i++, ip1 += is1, ip2 += is2, op1 += os1)
        *(double *)op1 = *(double *)ip1 * *(double *)ip2;
}

/* a copy counting down its length, the pointers stepped in the body */
void FLOAT_copy_while(char *ip, npy_intp is1, char *op, npy_intp os1, npy_intp n)
{
    while (n--) {
        *(float *)op = *(float *)ip;
        ip += is1;
        op += os1;
    }
}

/* NumPy's cast loop: doubles in, floats out, each at its own step */
void DOUBLE_to_FLOAT(char *ip, npy_intp is1, char *op, npy_intp os1, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++, ip += is1, op += os1)
        *(float *)op = (float)*(double *)ip;
}

/* contiguous data behind char pointers, walked as typed pointers */
void typed_walk(char *ip, char *op, npy_intp n)
{
    double *a = (double *)ip;
    float *b = (float *)op;
    for (npy_intp i = 0; i < n; i++)
        *b++ = (float)*a++;
}

/* NumPy's BINARY_REDUCE_LOOP: the output (stride 0) holds the accumulator */
void INT_add_reduce(char *iop1, char *ip2, npy_intp is2, npy_intp n)
{
    int io1 = *(int *)iop1;
    for (npy_intp i = 0; i < n; i++, ip2 += is2)
        io1 += *(int *)ip2;
    *(int *)iop1 = io1;
}

/* the same reduction through memory: the output pointer never moves */
void DOUBLE_add_accumulate(char *iop1, char *ip2, npy_intp is2, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++, ip2 += is2)
        *(double *)iop1 += *(double *)ip2;
}

/* a maximum reduction, NumPy's DOUBLE_maximum reduce (no NaN handling: fmax) */
void DOUBLE_maximum_reduce(char *iop1, char *ip2, npy_intp is2, npy_intp n)
{
    double io1 = *(double *)iop1;
    for (npy_intp i = 0; i < n; i++, ip2 += is2)
        io1 = fmax(io1, *(double *)ip2);
    *(double *)iop1 = io1;
}

/* strided views as separate parameters: element i at byte i * stride */
void strided_scale_f32(char *a, long sa, char *b, long sb, long n)
{
    for (long i = 0; i < n; i++)
        *(float *)(b + i * sb) = 2.0f * *(float *)(a + i * sa);
}

/* axpy on byte-strided doubles, y updated in place */
void strided_axpy_f64(long n, double alpha, const char *x, long sx, char *y, long sy)
{
    for (long i = 0; i < n; i++)
        *(double *)(y + i * sy) += alpha * *(const double *)(x + i * sx);
}

/* a strided dot product returning its sum */
double strided_dot_f64(const char *x, long sx, const char *y, long sy, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += *(const double *)(x + i * sx) * *(const double *)(y + i * sy);
    return s;
}

/* NumPy's matmul inner loop without BLAS: three walking pointers, steps per axis */
void DOUBLE_matmul_inner(char *ip1, npy_intp is1_m, npy_intp is1_n,
                         char *ip2, npy_intp is2_n, npy_intp is2_p,
                         char *op, npy_intp os_m, npy_intp os_p,
                         npy_intp dm, npy_intp dn, npy_intp dp)
{
    for (npy_intp m = 0; m < dm; m++) {
        for (npy_intp p = 0; p < dp; p++) {
            double acc = 0.0;
            for (npy_intp n = 0; n < dn; n++)
                acc += *(double *)(ip1 + m * is1_m + n * is1_n) * *(double *)(ip2 + n * is2_n + p * is2_p);
            *(double *)(op + m * os_m + p * os_p) = acc;
        }
    }
}

/* a 2-d copy between byte-strided views (rows and columns at their own steps) */
void copy2d_f32(char *dst, long ds0, long ds1, const char *src, long ss0, long ss1, long rows, long cols)
{
    for (long r = 0; r < rows; r++)
        for (long c = 0; c < cols; c++)
            *(float *)(dst + r * ds0 + c * ds1) = *(const float *)(src + r * ss0 + c * ss1);
}

/* OpenCV's add32f: float images with row steps in bytes, rows walked by casts */
void cv_add32f(const float *src1, size_t step1, const float *src2, size_t step2,
               float *dst, size_t step, int width, int height)
{
    for (; height--; src1 = (const float *)((const uchar *)src1 + step1),
                     src2 = (const float *)((const uchar *)src2 + step2),
                     dst = (float *)((uchar *)dst + step))
        for (int x = 0; x < width; x++)
            dst[x] = src1[x] + src2[x];
}

/* OpenCV's style of dividing the byte steps by the element size first */
void cv_absdiff16s(const short *src1, size_t step1, const short *src2, size_t step2,
                   short *dst, size_t step, int width, int height)
{
    step1 /= sizeof(src1[0]);
    step2 /= sizeof(src2[0]);
    step /= sizeof(dst[0]);
    for (; height--; src1 += step1, src2 += step2, dst += step)
        for (int x = 0; x < width; x++) {
            int d = src1[x] - src2[x];
            dst[x] = (short)(d < 0 ? -d : d);
        }
}

/* Indices computed from loop indices and sizes by integer division (C truncates): read
 * as table lookups at the index C computes, the array's extent what the index reaches. */

/* stb_image_resize / OpenCV's nearest neighbour: the source row and column picked by
 * integer division of the destination's */
void resize_nearest_f32(const float *src, int sw, int sh, float *dst, int dw, int dh)
{
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++)
            dst[y * dw + x] = src[(y * sh / dh) * sw + (x * sw / dw)];
}

/* the same over interleaved RGB bytes */
void resize_nearest_rgb_u8(const unsigned char *src, int sw, int sh, unsigned char *dst, int dw, int dh)
{
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++)
            for (int c = 0; c < 3; c++)
                dst[(y * dw + x) * 3 + c] = src[((y * sh / dh) * sw + x * sw / dw) * 3 + c];
}

/* OpenCV's INTER_NEAREST_EXACT: the source pixel under the destination pixel's centre */
void resize_nearest_exact_f32(const float *src, int sw, int sh, float *dst, int dw, int dh)
{
    for (int y = 0; y < dh; y++)
        for (int x = 0; x < dw; x++)
            dst[y * dw + x] = src[((2 * y + 1) * sh / (2 * dh)) * sw + (2 * x + 1) * sw / (2 * dw)];
}

/* each element repeated k times (np.repeat) */
void repeat_each_f64(const double *src, double *dst, int n, int k)
{
    for (int i = 0; i < n * k; i++)
        dst[i] = src[i / k];
}

/* a 2x nearest upsampling of a signal */
void upsample2_f32(const float *src, float *dst, int n)
{
    for (int i = 0; i < 2 * n; i++)
        dst[i] = src[i / 2];
}

/* a 2x nearest upsampling of an 8-bit image */
void upsample2_nearest_u8(const unsigned char *src, unsigned char *dst, int w, int h)
{
    for (int y = 0; y < 2 * h; y++)
        for (int x = 0; x < 2 * w; x++)
            dst[y * 2 * w + x] = src[(y / 2) * w + x / 2];
}

/* Refused (each with its reason; the manifest names the words of the message). */

/* NumPy's own signature: the pointers in `char **args`, the steps in `steps[k]`; synth
 * reads the form above, each pointer and step a parameter of its own */
void DOUBLE_add_args(char **args, npy_intp const *dimensions, npy_intp const *steps, void *data)
{
    char *ip1 = args[0], *ip2 = args[1], *op1 = args[2];
    npy_intp is1 = steps[0], is2 = steps[1], os1 = steps[2];
    npy_intp n = dimensions[0];
    for (npy_intp i = 0; i < n; i++, ip1 += is1, ip2 += is2, op1 += os1)
        *(double *)op1 = *(double *)ip1 + *(double *)ip2;
}

/* the bytes of one array read as two types */
void bytes_two_types(char *p, long n)
{
    for (long i = 0; i < n; i++)
        *(float *)(p + 8 * i) = (float)*(int *)(p + 8 * i + 4);
}

/* a byte array read as bytes and written as floats */
void bytes_and_floats(char *p, const char *q, long n)
{
    for (long i = 0; i < n; i++)
        *(float *)(p + 4 * i) = (float)p[4 * i + 4] + *(const float *)(q + 4 * i);
}

/* a byte stride that is not a multiple of the element size */
void bytes_misaligned(char *p, long n)
{
    for (long i = 0; i < n; i++)
        *(double *)(p + 12 * i) = 0.0;
}

/* a store at an index computed by integer division (a scatter) */
void scatter_by_division(const float *src, float *dst, int n, int k)
{
    for (int i = 0; i < n; i++)
        dst[i * k / n] = src[i];
}
