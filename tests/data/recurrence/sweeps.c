/* Recurrences along one loop, parallel along the other, beside other statements in the
   parallel loop and inside a time loop: adi's shape (synth.synthesis.distribute). Each
   row is smoothed implicitly by the Thomas algorithm (a forward elimination along the
   row, then a back substitution running backwards), `steps` times. The coefficients are
   constants of a diagonally dominant system: the sweeps are well-conditioned on every
   input set validation draws (coefficients drawn too, 1e100 among them, would make the
   eliminations cancel to the level of one rounding, which the targets' compilers round
   differently). */

void implicit_rows(int steps, int h, int w, double x[h][w], double c[h][w], double d[h][w]) {
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < h; i++) {
      c[i][0] = 0.0;
      d[i][0] = x[i][0];
      for (int j = 1; j < w; j++) {
        c[i][j] = 0.25 / (1.5 - 0.25 * c[i][j - 1]);
        d[i][j] = (x[i][j] + 0.25 * d[i][j - 1]) / (1.5 - 0.25 * c[i][j - 1]);
      }
      x[i][w - 1] = d[i][w - 1];
      for (int j = w - 2; j >= 0; j--)
        x[i][j] = d[i][j] + c[i][j] * x[i][j + 1];
    }
  }
}

/* the same sweep down the columns, once (no time loop) */
void implicit_cols(int h, int w, double x[h][w], double c[h][w], double d[h][w]) {
  for (int j = 0; j < w; j++) {
    c[0][j] = 0.0;
    d[0][j] = x[0][j];
    for (int i = 1; i < h; i++) {
      c[i][j] = 0.25 / (1.5 - 0.25 * c[i - 1][j]);
      d[i][j] = (x[i][j] + 0.25 * d[i - 1][j]) / (1.5 - 0.25 * c[i - 1][j]);
    }
    x[h - 1][j] = d[h - 1][j];
    for (int i = h - 2; i >= 0; i--)
      x[i][j] = d[i][j] + c[i][j] * x[i + 1][j];
  }
}
