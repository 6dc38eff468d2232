/* Recurrences along one loop, parallel along the other, as C writes them: deriche's
   sweeps (state in local scalars reset per row or column, forwards and backwards) and a
   first-order filter whose state is the array itself. */

void rows_forward(int h, int w, double a1, double a2, double b1, double b2,
                  double in[h][w], double out[h][w]) {
  for (int i = 0; i < h; i++) {
    double ym1 = 0.0, ym2 = 0.0, xm1 = 0.0;
    for (int j = 0; j < w; j++) {
      out[i][j] = a1 * in[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = in[i][j];
      ym2 = ym1;
      ym1 = out[i][j];
    }
  }
}

void rows_backward(int h, int w, double a3, double a4, double b1, double b2,
                   double in[h][w], double out[h][w]) {
  for (int i = 0; i < h; i++) {
    double yp1 = 0.0, yp2 = 0.0, xp1 = 0.0, xp2 = 0.0;
    for (int j = w - 1; j >= 0; j--) {
      out[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = in[i][j];
      yp2 = yp1;
      yp1 = out[i][j];
    }
  }
}

void cols_forward(int h, int w, double a1, double b1, double in[h][w], double out[h][w]) {
  for (int j = 0; j < w; j++) {
    double ym1 = 0.0;
    for (int i = 0; i < h; i++) {
      out[i][j] = a1 * in[i][j] + b1 * ym1;
      ym1 = out[i][j];
    }
  }
}

void rows_in_place(int h, int w, double a, double y[h][w], const double x[h][w]) {
  for (int i = 0; i < h; i++)
    for (int j = 1; j < w; j++)
      y[i][j] = a * y[i][j - 1] + x[i][j];
}
