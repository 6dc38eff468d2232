/* chain_lower.c (the table kept below its main diagonal, cost[j][i]) with its size n an
 * argument, matrix m being dims[m][0] x dims[m][1]. Written for synth's tests. */
void chain_lower(int n, int dims[n][2], int cost[n][n])
{
  for (int len = 1; len < n; len++)
    for (int i = 0; i < n - len; i++) {
      int j = i + len;
      cost[j][i] = 2147483647;
      for (int k = i; k < j; k++) {
        int q = cost[k][i] + cost[j][k + 1] + dims[i][0] * dims[k][1] * dims[j][1];
        if (q < cost[j][i])
          cost[j][i] = q;
      }
    }
}
