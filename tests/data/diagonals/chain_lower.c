/* Matrix-chain ordering with its table kept below the main diagonal: cost[j][i] is the
 * fewest multiplications for the product of matrices i..j (j >= i), filled by increasing
 * chain length as usual. The diagonals run downwards (j - i grows as c - r falls).
 * Written for synth's tests. */
#ifndef N
#define N 10
#endif

void chain_lower(int dims[N + 1], int cost[N][N])
{
  for (int len = 1; len < N; len++)
    for (int i = 0; i < N - len; i++) {
      int j = i + len;
      cost[j][i] = 2147483647;
      for (int k = i; k < j; k++) {
        int q = cost[k][i] + cost[j][k + 1] + dims[i] * dims[k + 1] * dims[j + 1];
        if (q < cost[j][i])
          cost[j][i] = q;
      }
    }
}
