/* Loops unrolled by hand, in spellings other than reference BLAS's daxpy
 * (tests/test_reroll.py): the clean-up loop after the unrolled one, an unroll by 5,
 * a 2-d nest whose inner loop is unrolled by 3 with its clean-up first, and a loop
 * whose copies are not shifted copies of one body (not rerolled). */

void saxpy_unroll5(int n, float a, const float *x, float *y)
{
    int i;
    int m = n - n % 5;
    for (i = 0; i < m; i += 5) {
        y[i] = a * x[i] + y[i];
        y[i + 1] = a * x[i + 1] + y[i + 1];
        y[i + 2] = a * x[i + 2] + y[i + 2];
        y[i + 3] = a * x[i + 3] + y[i + 3];
        y[i + 4] = a * x[i + 4] + y[i + 4];
    }
    for (i = m; i < n; i++)
        y[i] = a * x[i] + y[i];
}

#define COLS 11
void rows_scale_unroll3(int rows, double s, double b[][COLS], const double c[][COLS])
{
    for (int r = 0; r < rows; r++) {
        int j;
        int m = COLS % 3;
        for (j = 0; j < m; j++)
            b[r][j] = s * c[r][j] - b[r][j];
        for (j = m; j < COLS; j += 3) {
            b[r][j] = s * c[r][j] - b[r][j];
            b[r][j + 1] = s * c[r][j + 1] - b[r][j + 1];
            b[r][j + 2] = s * c[r][j + 2] - b[r][j + 2];
        }
    }
}

void pairs_not_copies(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i += 2) {
        y[i] = x[i] + x[i + 1];
        y[i + 1] = x[i] - x[i + 1];
    }
}

void channel_gain(int n, const float gain[3], float px[][3])
{
    for (int i = 0; i < n; i++) {
        px[i][0] = px[i][0] * gain[0];
        px[i][1] = px[i][1] * gain[1];
        px[i][2] = px[i][2] * gain[2];
    }
}

/* the index itself (not a subscript) in both copies: i, then i again (not i + 1) */
void index_pairs(int n, double *y)
{
    for (int i = 0; i < n; i += 2) {
        y[i] = (double)i;
        y[i + 1] = (double)i;
    }
}

/* a running sum unrolled by 2: the second copy reads what the first just wrote */
void running_sum_unroll2(int n, const double *x, double *y)
{
    for (int i = 1; i + 1 < n; i += 2) {
        y[i] = y[i - 1] + x[i];
        y[i + 1] = y[i] + x[i + 1];
    }
}
