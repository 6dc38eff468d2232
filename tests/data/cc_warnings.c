#include <stdio.h>
#include <stdlib.h>

void gemv(int M, int N, const double *A, const double *x, double *y)
{
    int i, j;
    for (i = 0; i < M; i++) {
        double sum = 0;
        for (j = 0; j < N; j++)
            sum += A[i * N + j] * x[j];
        y[i] = sum;
    }
}

static float sdot(int n, const float *x, const float *y)
{
    float s = 0.0f;
    int i;
    for (i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

extern unsigned long __synth_cc_fallbacks __attribute__((weak));

int main(void)
{
    int m = 7, n = 5, i;
    double A[35], x[5], y[7];
    float u[9], v[9];
    for (i = 0; i < m * n; i++) A[i] = i;
    for (i = 0; i < n; i++) x[i] = i;
    for (i = 0; i < 9; i++) { u[i] = (float)i; v[i] = 1.0f; }
    gemv(m, n, A, x, y);
    printf("%g %g %g\n", y[0], y[6], (double)sdot(9, u, v));
    printf("%lu\n", &__synth_cc_fallbacks ? __synth_cc_fallbacks : 0UL);
    return 0;
}
