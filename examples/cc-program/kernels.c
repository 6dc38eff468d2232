/* kernels.c: a small kernel library in the way C libraries are written: pointer
 * parameters, int sizes, flattened 2-D subscripts. `synth cc` raises what it can here and
 * keeps the rest as written; `cc` compiles it as it is. */
#include "kernels.h"

void daxpy(int n, double a, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}

void dgemv(int m, int n, const double *A, const double *x, double *y)
{
  for (int i = 0; i < m; i++) {
    double sum = 0.0;
    for (int j = 0; j < n; j++)
      sum += A[i * n + j] * x[j];
    y[i] = sum;
  }
}

void blur3(int n, const double *in, double *out)
{
  out[0] = in[0];
  for (int i = 1; i < n - 1; i++)
    out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
  out[n - 1] = in[n - 1];
}

void scale_rows(int m, int n, double *A, const double *s)
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i * n + j] *= s[i];
}
