/* Counters that advance with the loop: their closed forms are affine. */

void scale_packed(int n, const float *x, float *y, float a)
{
    int j = -1;
    for (int i = 0; i < n; i++) {
        j++;
        y[j] = a * x[i];
    }
}

/* pairs of samples summed: x is read as [n][2] */
void pair_sums(int n, const double *x, double *y)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        y[i] = x[k] + x[k + 1];
        k += 2;
    }
}
