/* main.c: the example program's driver. It fills arrays with small integer values (so
 * that every sum is exact in double and any order of summation gives the same bits),
 * calls the kernels of kernels.c, and prints one checksum line per call.
 *
 * The last two calls pass overlapping arrays, which C allows for pointer parameters:
 * dgemv with y aliasing x (an in-place product: each row reads the rows already
 * written), and daxpy on two ranges of one array shifted by one (a running sum). A raised
 * kernel reads its inputs as arrays of their own, so a driver that replaces these
 * functions must see the overlap at run time and call the original code here. */
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

#define M 48
#define N 64

#if defined(__GNUC__)
/* synth cc counts each run-time fallback to the original code here (a weak symbol: with
   cc it does not exist and its address is null) */
extern unsigned long __synth_cc_fallbacks __attribute__((weak));
#endif

static double *alloc_doubles(int count)
{
  double *p = calloc((size_t)count, sizeof(double));
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

/* small integers in -3..3, in a fixed order: v[i] = pattern[(i * step + offset) mod 7] */
static const double pattern[7] = {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0};

static void fill(int count, double *v, int step, int offset)
{
  for (int i = 0; i < count; i++)
    v[i] = pattern[(i * step + offset) % 7];
}

/* the sum and the index-weighted sum: equal sums from different arrays are told apart */
static void checksum(const char *what, int count, const double *v)
{
  double s = 0.0, w = 0.0;
  for (int i = 0; i < count; i++) {
    s += v[i];
    w += (double)(i + 1) * v[i];
  }
  printf("%-28s sum %.17g weighted %.17g\n", what, s, w);
}

int main(void)
{
  double *A = alloc_doubles(M * N), *x = alloc_doubles(N), *y = alloc_doubles(M);
  double *u = alloc_doubles(N), *b = alloc_doubles(N), *s = alloc_doubles(M);
  double *T = alloc_doubles(N * N), *v = alloc_doubles(N);

  fill(M * N, A, 5, 1);
  fill(N, x, 3, 2);
  fill(N, u, 2, 0);
  fill(M, s, 1, 4);

  dgemv(M, N, A, x, y);
  checksum("dgemv y = A x", M, y);

  daxpy(N, 3.0, x, u);
  checksum("daxpy u += 3 x", N, u);

  blur3(N, u, b);
  checksum("blur3 b = blur(u)", N, b);

  scale_rows(M, N, A, s);
  checksum("scale_rows A *= s", M * N, A);

  /* overlapping arguments: the original code must run */
  for (int i = 0; i < N; i++) {
    T[i * N + i] = 1.0;
    if (i > 0)
      T[i * N + i - 1] = 1.0;
  }
  dgemv(N, N, T, x, x); /* in place: x[i] = x[i-1] (already updated) + x[i] */
  checksum("dgemv in place x = T x", N, x);

  fill(N, v, 2, 5);
  daxpy(N - 1, -1.0, v, v + 1); /* v[i+1] -= v[i], in order: an alternating running sum */
  checksum("daxpy shifted v[1:] -= v", N, v);

#if defined(__GNUC__)
  if (&__synth_cc_fallbacks != NULL)
    fprintf(stderr, "synth cc: %lu call(s) took the original code\n", __synth_cc_fallbacks);
#endif
  free(A); free(x); free(y); free(u); free(b); free(s); free(T); free(v);
  return 0;
}
