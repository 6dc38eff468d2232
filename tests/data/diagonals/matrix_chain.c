/* Matrix-chain ordering: cost[i][j] is the fewest scalar multiplications that compute the
 * product of matrices i..j, matrix m being dims[m] x dims[m+1]. The textbook bottom-up
 * order: chains by length, each split point k tried. Written for synth's tests. */
#ifndef N
#define N 10
#endif

void matrix_chain(int dims[N + 1], int cost[N][N])
{
  for (int len = 1; len < N; len++)
    for (int i = 0; i < N - len; i++) {
      int j = i + len;
      cost[i][j] = 2147483647;
      for (int k = i; k < j; k++) {
        int q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1];
        if (q < cost[i][j])
          cost[i][j] = q;
      }
    }
}
