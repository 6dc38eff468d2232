/* Windows whose taps outside the signal or image are skipped or replaced, as filtering
   libraries write them (NumPy's convolve(mode="same"), OpenCV's BORDER_CONSTANT, CMSIS). */

/* a 5-tap FIR centred on each sample; taps past either end contribute nothing */
void fir5_same(int n, const double *x, const double *h, double *y)
{
    for (int i = 0; i < n; i++) {
        double acc = 0.0;
        for (int j = 0; j < 5; j++) {
            int t = i + j - 2;
            if (t >= 0 && t < n)
                acc += h[j] * x[t];
        }
        y[i] = acc;
    }
}

/* Laplacian with a zero border (BORDER_CONSTANT, value 0) */
void laplace_zero_border(int rows, int cols, const float *src, float *dst)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            if (r > 0 && r < rows - 1 && c > 0 && c < cols - 1)
                dst[r * cols + c] = src[(r - 1) * cols + c] + src[(r + 1) * cols + c]
                                  + src[r * cols + c - 1] + src[r * cols + c + 1]
                                  - 4.0f * src[r * cols + c];
            else
                dst[r * cols + c] = 0.0f;
        }
}

/* column sums of the lower triangle of a square matrix, by rows (j <= i) */
void lower_colsum(int n, const float *a, float *s)
{
    for (int j = 0; j < n; j++) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++) {
            if (i < j)
                continue;
            acc += a[i * n + j];
        }
        s[j] = acc;
    }
}
