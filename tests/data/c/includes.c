/* System and compiler headers, a helper that is not static control, and a kernel. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#ifndef N
#define N 10
#endif

static void print_array(size_t n, double *a)
{
  for (size_t i = 0; i < n; i++)
    printf("%f\n", a[i]);
}

void kernel_scale(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = sqrt(fabs(A[i])) * 3.0;
}
