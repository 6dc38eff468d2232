/* Arrays reached in part: a stride-2 loop that reads only elements it never writes, a
   strided read, a strided store, a leading dimension larger than the columns used, and
   a true recurrence at stride 2 (no tensor program: exit 3 with its reason). */

void step2(int n, double *a, const double *b) {
  for (int i = 1; i < n; i += 2)
    a[i] = a[i - 1] + b[i];
}

void even_read(int n, const float *x, float *y) {
  for (int i = 0; i < n; i++)
    y[i] = 0.5f * x[2 * i] + x[2 * i + 1];
}

void odd_store(int n, double *a, const double *b) {
  for (int i = 0; i < n; i++)
    a[2 * i + 1] = 3.0 * b[i];
}

void lda_scale(int m, int n, double alpha, double *A, int lda) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i * lda + j] = alpha * A[i * lda + j];
}

void rec_step2(int n, double *a, const double *b) {
  for (int i = 2; i < n; i += 2)
    a[i] = a[i - 2] + b[i];
}
