/* Covariance of the M columns of data (N observations), float_n = N. */
#define M 26
#define N 32
#define _PB_M M
#define _PB_N N
#define SCALAR_VAL(x) x

void kernel_covariance(int m, int n, double float_n, double data[N][M], double cov[M][M],
                       double mean[M])
{
  int i, j, k;

  for (j = 0; j < _PB_M; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < _PB_N; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (i = 0; i < _PB_N; i++)
    for (j = 0; j < _PB_M; j++)
      data[i][j] -= mean[j];

  for (i = 0; i < _PB_M; i++)
    for (j = i; j < _PB_M; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < _PB_N; k++)
        cov[i][j] += (data[k][i] * data[k][j]);
      cov[i][j] /= (float_n - SCALAR_VAL(1.0));
      cov[j][i] = cov[i][j];
    }
}
