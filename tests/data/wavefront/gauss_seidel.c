/* In-place sweeps that read, along both loops, values the sweep itself wrote (Gauss-Seidel)
   and values it has not reached yet: a loop over hyperplanes a*i + j keeps them
   (synth.synthesis.wavefront). Written for synth's tests, in the style of PolyBench/C. */

/* successive over-relaxation of a Poisson problem: 5-point, relaxation factor omega,
   a right-hand side f read alongside; hyperplanes i + j */
void sor_5pt(int steps, int n, double omega, double u[n][n], double f[n][n]) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] = (1.0 - omega) * u[i][j]
                  + omega * 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - f[i][j]);
}

/* one sweep over a rectangle, no time loop: the row above at j + 1 is new (hyperplanes 2i + j) */
void smooth_once(int h, int w, double a[h][w]) {
  for (int i = 1; i < h; i++)
    for (int j = 1; j < w - 1; j++)
      a[i][j] = 0.5 * a[i - 1][j + 1] + 0.25 * a[i][j - 1] + 0.25 * a[i][j];
}

/* the row above five columns ahead is new: hyperplanes 6i + j */
void ahead(int h, int w, double a[h][w]) {
  for (int i = 1; i < h; i++)
    for (int j = 1; j < w - 5; j++)
      a[i][j] = a[i - 1][j + 5] + a[i][j - 1];
}

/* a true recurrence along both loops: a[j][i] is new above the diagonal and old below it,
   at distances that vary with (i, j); no hyperplane orders it */
void transposed(int n, double a[n][n]) {
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      a[i][j] = 0.5 * (a[i][j - 1] + a[j][i]);
}

/* a triangle (j from i + 1): not a rectangle of hyperplane points; left to the search */
void triangle(int n, double a[n][n]) {
  for (int i = 1; i < n; i++)
    for (int j = i + 1; j < n - 1; j++)
      a[i][j] = 0.5 * (a[i - 1][j + 1] + a[i][j - 1]);
}
