/* Matrix-chain ordering (matrix_chain.c) with its size n an argument, matrix m being
 * dims[m][0] x dims[m][1]: a table for every n. Written for synth's tests. */
void matrix_chain(int n, int dims[n][2], int cost[n][n])
{
  for (int len = 1; len < n; len++)
    for (int i = 0; i < n - len; i++) {
      int j = i + len;
      cost[i][j] = 2147483647;
      for (int k = i; k < j; k++) {
        int q = cost[i][k] + cost[k + 1][j] + dims[i][0] * dims[k][1] * dims[j][1];
        if (q < cost[i][j])
          cost[i][j] = q;
      }
    }
}
