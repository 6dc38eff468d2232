/* kernels.h: the library kernels of the example program (see README.md). */
#ifndef CC_PROGRAM_KERNELS_H
#define CC_PROGRAM_KERNELS_H

/* y[i] += a * x[i], i < n */
void daxpy(int n, double a, const double *x, double *y);

/* y = A x, A row-major m x n */
void dgemv(int m, int n, const double *A, const double *x, double *y);

/* out[i] = in[i-1]/4 + in[i]/2 + in[i+1]/4 for 0 < i < n-1; the ends copied */
void blur3(int n, const double *in, double *out);

/* A[i][j] *= s[i]: each row of the m x n row-major A scaled by its own factor */
void scale_rows(int m, int n, double *A, const double *s);

#endif
