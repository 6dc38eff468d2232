/* C := alpha*A*A^T + beta*C on the lower triangle (j <= i). */
#define N 30
#define M 20
#define _PB_N N
#define _PB_M M

void kernel_syrk(int n, int m, double alpha, double beta, double C[N][N], double A[N][M])
{
  int i, j, k;

  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_M; k++) {
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
  }
}
