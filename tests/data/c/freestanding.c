/* Only the compiler's own headers: synth ships minimal ones when no compiler is found. */
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>

#define N 12

void kernel_clip(double A[N], int32_t k)
{
  for (int i = 0; i < N; i++)
    A[i] = A[i] > DBL_MAX / 2 ? DBL_MAX / 2 : A[i] * (double) k + (double) (sizeof(size_t) == 8);
}
