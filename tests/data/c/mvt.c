/* x1 += A y1; x2 += A^T y2 */
#define N 40
#define _PB_N N

void kernel_mvt(int n, double x1[N], double x2[N], double y_1[N], double y_2[N], double A[N][N])
{
  for (int i = 0; i < _PB_N; i++)
    for (int j = 0; j < _PB_N; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (int i = 0; i < _PB_N; ++i)
    for (int j = 0; j < _PB_N; ++j)
      x2[i] = x2[i] + A[j][i] * y_2[j];
}
