/* guards.c: conditions that guard an index computation, as library C writes them:
   an index set under a condition on data and used in the same branch, and reference
   BLAS's increments (a unit-stride branch beside the strided one, negative increments
   starting from the end). */

/* an index chosen under a condition on data, read in the same branch */
void guard_idx(int n, const float *x, const float *a, const float *b, float t, float s, float *y)
{
    int k;
    for (int i = 0; i < n; i++) {
        if (x[i] > t) {
            k = i;
            y[i] = a[k] * s;
        } else
            y[i] = b[i];
    }
}

/* the previous element's index, chosen under a condition on data */
void guard_prev(int n, const double *x, const double *a, double *y)
{
    for (int i = 1; i < n; i++) {
        int k = i;
        if (x[i] < 0.0) {
            k = i - 1;
            y[i] = a[k] + a[i];
        } else {
            y[i] = 2.0 * a[k];
        }
    }
}

/* sscal with its unit-stride branch (increments > 0) */
void sscal_inc(int n, float sa, float *sx, int incx)
{
    if (incx == 1) {
        for (int i = 0; i < n; i++)
            sx[i] = sa * sx[i];
    } else {
        for (int i = 0; i < n; i++)
            sx[i * incx] = sa * sx[i * incx];
    }
}

/* daxpy with both increments: the unit branch, and the strided one walking ix, iy */
void daxpy_inc(int n, double da, const double *dx, int incx, double *dy, int incy)
{
    if (n <= 0 || incx <= 0 || incy <= 0)
        return;
    if (incx == 1 && incy == 1) {
        for (int i = 0; i < n; i++)
            dy[i] += da * dx[i];
    } else {
        int ix = 0, iy = 0;
        for (int i = 0; i < n; i++) {
            dy[iy] += da * dx[ix];
            ix += incx;
            iy += incy;
        }
    }
}

/* reference BLAS's saxpy: a negative increment starts from the end */
void saxpy_ref(int n, float sa, const float *sx, int incx, float *sy, int incy)
{
    int i, ix, iy;
    if (n <= 0)
        return;
    if (incx == 1 && incy == 1) {
        for (i = 0; i < n; i++)
            sy[i] += sa * sx[i];
    } else {
        ix = 0;
        iy = 0;
        if (incx < 0)
            ix = (-n + 1) * incx;
        if (incy < 0)
            iy = (-n + 1) * incy;
        for (i = 0; i < n; i++) {
            sy[iy] += sa * sx[ix];
            ix += incx;
            iy += incy;
        }
    }
}
