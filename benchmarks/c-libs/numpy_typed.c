/* numpy_typed.c: NumPy's strided loops written over TYPED pointer parameters, as its
 * templated loops and code calling them often are: the pointer is cast to `char *` to move
 * by a step in bytes and back to its own type to read or write one element. */
#include <stddef.h>

typedef long npy_intp;

/* the casts written where the element is read and written */
void FLOAT_scale_cast(const float *in1, npy_intp is1, float *out, npy_intp os, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++)
        *(float *)((char *)out + i * os) = *(const float *)((const char *)in1 + i * is1) * 2.0f;
}

/* byte pointers to the typed arrays, walked by their steps in the loop header */
void DOUBLE_add_cast(const double *in1, npy_intp is1, const double *in2, npy_intp is2,
                     double *out, npy_intp os, npy_intp n)
{
    const char *ip1 = (const char *)in1, *ip2 = (const char *)in2;
    char *op = (char *)out;
    for (npy_intp i = 0; i < n; i++, ip1 += is1, ip2 += is2, op += os)
        *(double *)op = *(const double *)ip1 + *(const double *)ip2;
}

/* a byte pointer set in each iteration */
void FLOAT_square_cast(const float *src, npy_intp ss, float *dst, npy_intp ds, npy_intp n)
{
    for (npy_intp i = 0; i < n; i++) {
        const char *p = (const char *)src + i * ss;
        const float v = *(const float *)p;
        *(float *)((char *)dst + i * ds) = v * v;
    }
}

/* a counted while loop over typed pointers moved in bytes */
void INT_negative_cast(const int *ip, npy_intp is1, int *op, npy_intp os, npy_intp n)
{
    const char *src = (const char *)ip;
    char *dst = (char *)op;
    while (n-- > 0) {
        *(int *)dst = -*(const int *)src;
        src += is1;
        dst += os;
    }
}
