/* Scalar accumulator locals: y[i] = sqrt(sum_j A[i][j]^2) / (1 + i), s[i] = max_j |A[i][j]|. */
#include <math.h>

#define N 30
#define M 40

void kernel_rownorm(double A[N][M], double y[N], double s[N])
{
  int i, j;
  double acc;

  for (i = 0; i < N; i++) {
    double big = 0.0;
    acc = 0.0;
    for (j = 0; j < M; j++) {
      acc += A[i][j] * A[i][j];
      big = fmax(big, fabs(A[i][j]));
    }
    y[i] = sqrt(acc) / (1 + (double) i);
    s[i] = big;
  }
}
