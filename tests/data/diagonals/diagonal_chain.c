/* A true recurrence along the diagonals of a table: each cell adds a weight to the cell
 * below and to the right of it, which the row before (i + 1) just wrote. Every cell of a
 * diagonal depends on the one before it on the same diagonal, so no diagonal can be
 * computed at once; synth exits 3 naming the recurrence. Written for synth's tests. */
#define N 12

void diagonal_chain(int n, int w[N], int t[N][N])
{
  for (int i = n - 2; i >= 0; i--)
    for (int j = i + 1; j < n - 1; j++)
      t[i][j] = t[i + 1][j + 1] + w[i];
}
