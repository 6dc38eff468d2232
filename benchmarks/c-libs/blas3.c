/* blas3.c: BLAS level-3 kernels: row-major, leading dimensions, C99 array parameters. */

/* C = alpha*A*B + beta*C; A m x k (lda), B k x n (ldb), C m x n (ldc) */
void sgemm_nn(int m, int n, int k, float alpha, const float *A, int lda,
              const float *B, int ldb, float beta, float *C, int ldc)
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
            float sum = 0.0f;
            for (int p = 0; p < k; p++)
                sum += A[i * lda + p] * B[p * ldb + j];
            C[i * ldc + j] = alpha * sum + beta * C[i * ldc + j];
        }
    }
}

/* C += A * B^T */
void sgemm_nt(int M, int N, int K, const float *A, const float *B, float *C)
{
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float acc = C[i * N + j];
            for (int kk = 0; kk < K; ++kk)
                acc += A[i * K + kk] * B[j * K + kk];
            C[i * N + j] = acc;
        }
}

/* C = A^T * B with C99 variable-length array parameters */
void dgemm_tn(int m, int n, int k, double A[k][m], double B[k][n], double C[m][n])
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int p = 0; p < k; p++)
                s += A[p][i] * B[p][j];
            C[i][j] = s;
        }
}

/* C = A * A^T, lower triangle only */
void dsyrk_lower(int n, int k, const double *A, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int p = 0; p < k; p++)
                s += A[i * k + p] * A[j * k + p];
            C[i * n + j] = s;
        }
}

/* B = alpha * L * B, L unit-less lower triangular m x m, B m x n */
void dtrmm_left_lower(int m, int n, double alpha, const double *L, double *B)
{
    for (int j = 0; j < n; j++)
        for (int i = m - 1; i >= 0; i--) {
            double s = 0.0;
            for (int p = 0; p <= i; p++)
                s += L[i * m + p] * B[p * n + j];
            B[i * n + j] = alpha * s;
        }
}

/* batched matrix multiply with flattened 3-d indexing */
void bmm(int batch, int M, int N, int K, const float *A, const float *B, float *C)
{
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float s = 0.0f;
                for (int p = 0; p < K; p++)
                    s += A[(b * M + i) * K + p] * B[(b * K + p) * N + j];
                C[(b * M + i) * N + j] = s;
            }
}
