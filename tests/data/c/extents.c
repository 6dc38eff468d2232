/* Size arguments whose arrays are one or two longer than the size (Knuth's optimal
   binary search tree and many DP codes loop to n inclusive over arrays of N + 1):
   the size n is N here, not the extent N + 1 (tests/test_size_extents.py). */
#define N 20

/* the weights of an optimal BST: for (j = i; j <= n; j++) over e[N + 1][N + 1] */
void obst_weights(int n, double p[N + 1], double q[N + 1], double w[N + 1][N + 1]) {
  int i, j;
  for (i = 0; i <= n; i++)
    for (j = i; j <= n; j++)
      w[i][j] = p[i] + p[j] + q[j];
}

/* a DP table's first row, 0..n inclusive */
void inclusive(int n, double a[N + 1], double s[N + 1]) {
  for (int i = 0; i <= n; i++)
    s[i] = 2.0 * a[i];
}

/* arrays of N + 2, loop to n + 1 inclusive reading a[i - 1] */
void shifted(int n, double a[N + 2], double b[N + 2]) {
  for (int i = 1; i <= n + 1; i++)
    b[i] = a[i - 1] + a[i];
}

/* the size used only as n + 1 in a loop bound */
void upto_np1(int n, double a[N + 1], double b[N + 1]) {
  for (int i = 0; i < n + 1; i++)
    b[i] = a[i] * 3.0;
}

/* loops to n - 1 on arrays of N, a[i + 1] */
void pairs(int n, double a[N], double b[N]) {
  for (int i = 0; i < n - 1; i++)
    b[i] = a[i] + a[i + 1];
}

/* arrays of N + 1 and of N under one size */
void mixed(int n, double a[N + 1], double b[N], double c[N + 1]) {
  for (int i = 0; i <= n; i++)
    c[i] = a[i] * 2.0;
  for (int i = 0; i < n; i++)
    b[i] = a[i] + a[i + 1];
}

/* no n keeps a[i + 9] within a[8]: refused, with what to pass */
void past(int n, double a[8], double b[8]) {
  for (int i = 0; i < n; i++)
    b[i] = a[i + 9];
}

/* pointers: the extent is what the kernel reaches, n + 1 */
void pointers(int n, const double *a, double *b) {
  for (int i = 0; i <= n; i++)
    b[i] = a[i] * 3.0;
}
