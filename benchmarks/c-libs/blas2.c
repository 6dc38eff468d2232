/* blas2.c: BLAS level-2 kernels on row-major matrices with a leading dimension. */

/* y = alpha*A*x + beta*y, A is m x n, row-major with leading dimension lda */
void sgemv_n(int m, int n, float alpha, const float *A, int lda,
             const float *x, float beta, float *y)
{
    for (int i = 0; i < m; i++) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++)
            acc += A[i * lda + j] * x[j];
        y[i] = alpha * acc + beta * y[i];
    }
}

/* y = A^T x */
void sgemv_t(int m, int n, const float *A, const float *x, float *y)
{
    for (int j = 0; j < n; j++)
        y[j] = 0.0f;
    for (int i = 0; i < m; i++) {
        const float xi = x[i];
        for (int j = 0; j < n; j++)
            y[j] += A[i * n + j] * xi;
    }
}

void gemv(int M, int N, const float *A, const float *x, float *y)
{
    for (int i = 0; i < M; i++) {
        float sum = 0;
        for (int j = 0; j < N; j++) {
            sum += A[i * N + j] * x[j];
        }
        y[i] = sum;
    }
}

/* rank-1 update A += alpha * x * y^T */
void sger(int m, int n, float alpha, const float *x, const float *y, float *A, int lda)
{
    for (int i = 0; i < m; i++) {
        float t = alpha * x[i];
        for (int j = 0; j < n; j++)
            A[i * lda + j] += t * y[j];
    }
}

/* x = L*x, L lower triangular (unit diagonal not assumed), column of results in place */
void dtrmv_lower(int n, const double *L, double *x, double *tmp)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j <= i; j++)
            s += L[i * n + j] * x[j];
        tmp[i] = s;
    }
    for (int i = 0; i < n; i++)
        x[i] = tmp[i];
}

/* forward substitution L*x = b */
void dtrsv_lower(int n, const double *L, const double *b, double *x)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= L[i * n + j] * x[j];
        x[i] = s / L[i * n + i];
    }
}

/* symmetric matrix-vector product using both halves of a full matrix */
void dsymv_full(int n, double alpha, const double A[n][n], const double x[n], double y[n])
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < n; j++)
            t += A[i][j] * x[j];
        y[i] += alpha * t;
    }
}

/* y = A*x for a matrix passed as a pointer to rows of fixed width */
#define COLS 24
void gemv_rows(int rows, const double (*A)[COLS], const double *x, double *y)
{
    for (int r = 0; r < rows; r++) {
        double acc = 0.0;
        for (int c = 0; c < COLS; c++)
            acc += A[r][c] * x[c];
        y[r] = acc;
    }
}
