/* float kernel: y = relu(a*x + y), z = sqrtf(|x|) * 2 (f32 throughout). */
#include <math.h>

#define N 64

void kernel_saxpy_f32(int n, float a, float x[N], float y[N], float z[N])
{
  int i;
  for (i = 0; i < n; i++) {
    float v = a * x[i] + y[i];
    y[i] = v > 0.0f ? v : 0.0f;
    z[i] = sqrtf(fabsf(x[i])) * 2.0f;
  }
}
