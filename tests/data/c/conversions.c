/* C's arithmetic conversions between float, double and the integers (issue #53 item 6):
   each statement computes in the type C gives it, then converts to the stored type. */

void half(float *x, int n, float *y)
{
    for (int i = 0; i < n; ++i) y[i] = 0.1 * x[i];  /* double constant: extf, mulf f64, truncf */
}

void narrow(double *x, int n, float *y)
{
    for (int i = 0; i < n; ++i) y[i] = x[i] * x[i] + 1.0 / 3.0;  /* computed in double, stored as float */
}

void by_n(float *x, int n, float *y)
{
    for (int i = 0; i < n; ++i) y[i] = x[i] / n;  /* int n: sitofp of a size */
}

void to_float(int *k, int n, float *y)
{
    for (int i = 0; i < n; ++i) y[i] = (float)k[i] * 0.5f;  /* sitofp i32 -> f32, rounded past 2^24 */
}

void u_to_double(unsigned *k, int n, double *y)
{
    for (int i = 0; i < n; ++i) y[i] = k[i] + 0.25;  /* uitofp: the unsigned reading */
}

void to_int(float *x, int n, int *y)
{
    for (int i = 0; i < n; ++i) y[i] = (int)(x[i] * 100.0f);  /* fptosi: truncated toward zero */
}

void scale_sizes(float *x, int n, int m, float *y)
{
    float s = 1. / (n * m);  /* the integer product of two sizes, converted */
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) y[i * m + j] = x[i * m + j] * s;
}

void dsdot(float *x, float *y, int n, float *r)
{
    double s = 0;  /* summed in double, as BLAS's dsdot */
    for (int i = 0; i < n; ++i) s += (double)x[i] * y[i];
    *r = (float)s;
}

void quant(float *x, int n, float scale, int *q)
{
    for (int i = 0; i < n; ++i) q[i] = (int)(x[i] * scale + 0.5f);
}
