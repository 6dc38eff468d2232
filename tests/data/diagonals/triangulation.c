/* Minimum-score triangulation of a convex polygon whose vertex v weighs v + 1: score[i][j]
 * is the least total weight of the triangles of the polygon i..j, a triangle (i, k, j)
 * weighing (i + 1) * (k + 1) * (j + 1). Rows from the bottom up, as often written; the
 * loop indices are read as numbers. Written for synth's tests. */
#ifndef N
#define N 16
#endif

void triangulation(int n, int score[N][N])
{
  for (int i = n - 3; i >= 0; i--)
    for (int j = i + 2; j < n; j++) {
      score[i][j] = 1 << 30;
      for (int k = i + 1; k < j; k++) {
        int s = score[i][k] + score[k][j] + (i + 1) * (k + 1) * (j + 1);
        if (s < score[i][j])
          score[i][j] = s;
      }
    }
}
