void kernel_vla(int n, int m, double A[n][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = 0.0;
}
