/* Optimal binary search tree (Knuth's recurrence) in double: e[i][j] is the least expected
 * search cost over keys i..j, w[i][j] their total weight, given. Rows bottom-up, a min over
 * the root r. Written for synth's tests. */
#ifndef N
#define N 12
#endif

void obst(int n, double w[N][N], double e[N][N])
{
  for (int i = n - 1; i >= 0; i--)
    for (int j = i + 1; j < n; j++) {
      e[i][j] = 1e300;
      for (int r = i; r < j; r++) {
        double t = e[i][r] + e[r + 1][j] + w[i][j];
        if (t < e[i][j])
          e[i][j] = t;
      }
    }
}
