/* Affine conditions: the lower triangle scaled, the upper zeroed, the diagonal shifted,
   a band marked (if / else, ==, !=, &&, <). */
#define N 36

void kernel_band(int n, double alpha, double A[N][N], double D[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (j <= i)
        A[i][j] = alpha * A[i][j];
      else
        A[i][j] = 0.0;
      if (i == j)
        A[i][j] += 1.0;
      if (i != j && j < n - 1)
        D[i][j] = A[i][j + 1] - A[i][j];
      else
        D[i][j] = -A[i][j];
      if (i - 2 <= j && j <= i + 2 && i < n - 1)
        D[i][j] *= 2.0;
    }
}
