/* B := alpha * A^T B with A unit lower triangular (A is M x M, B is M x N). */
#define M 24
#define N 28

void kernel_trmm(int m, int n, double alpha, double A[M][M], double B[M][N])
{
  int i, j, k;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}
