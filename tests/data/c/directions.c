/* Loops that only look sequential: each reads elements before the loop overwrites them
   (a shifted copy), and one that is a true recurrence (rec_down). Written as C code
   usually writes them: down-counting loops, pointer parameters, run-time sizes. */

void down(int n, double *a, const double *b) {
  for (int i = n - 2; i >= 0; i--)
    a[i + 1] = a[i] + b[i];
}

void shift_up(int n, double *a, const double *b) {
  for (int i = 0; i < n - 1; i++)
    a[i] = a[i + 1] * b[i];
}

void rev_scale(int n, double *y, const double *x) {
  for (int i = n - 1; i >= 0; i--)
    y[i] = 2.0 * x[i] - y[i];
}

void down2d(int n, int m, double A[n][m], const double B[n][m]) {
  for (int i = n - 1; i >= 1; i--)
    for (int j = 0; j < m; j++)
      A[i][j] = A[i - 1][j] + B[i][j];
}

void rec_down(int n, double *a, const double *b) {
  for (int i = n - 2; i >= 0; i--)
    a[i] = a[i + 1] + b[i];
}
