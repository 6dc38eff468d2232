/* blas1.c: BLAS level-1 routines, single and double precision, written the way
 * small C BLAS implementations write them (pointers, size_t / int counts,
 * optional increments). */
#include <stddef.h>
#include <math.h>

float sdot(int n, const float *x, const float *y)
{
    float sum = 0.0f;
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

double ddot_inc(int n, const double *dx, int incx, const double *dy, int incy)
{
    double dtemp = 0.0;
    for (int i = 0; i < n; i++) {
        dtemp += dx[i * incx] * dy[i * incy];
    }
    return dtemp;
}

void saxpy(size_t n, float alpha, const float *restrict x, float *restrict y)
{
    for (size_t i = 0; i < n; ++i)
        y[i] += alpha * x[i];
}

void daxpy(int n, double da, const double *dx, double *dy)
{
    int i;
    if (n <= 0)
        return;
    for (i = 0; i < n; i++) {
        dy[i] = dy[i] + da * dx[i];
    }
}

void sscal(int n, float alpha, float *x)
{
    for (int i = 0; i < n; i++) x[i] *= alpha;
}

void scopy(int n, const float *src, float *dst)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}

void sswap(int n, float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float tmp = x[i];
        x[i] = y[i];
        y[i] = tmp;
    }
}

float sasum(int n, const float *x)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += fabsf(x[i]);
    return s;
}

double dnrm2(int n, const double *x)
{
    double ssq = 0.0;
    for (int i = 0; i < n; i++)
        ssq += x[i] * x[i];
    return sqrt(ssq);
}

void srot(int n, float *x, float *y, float c, float s)
{
    for (int i = 0; i < n; i++) {
        float xi = x[i], yi = y[i];
        x[i] = c * xi + s * yi;
        y[i] = c * yi - s * xi;
    }
}

int isamax(int n, const float *x)
{
    int best = 0;
    float maxval = fabsf(x[0]);
    for (int i = 1; i < n; i++) {
        if (fabsf(x[i]) > maxval) {
            maxval = fabsf(x[i]);
            best = i;
        }
    }
    return best;
}

float smax(int n, const float *x)
{
    float m = x[0];
    for (int i = 1; i < n; i++)
        m = x[i] > m ? x[i] : m;
    return m;
}
