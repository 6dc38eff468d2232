/* dsp.c: filters and signal kernels as embedded DSP code writes them:
 * pointer walks, taps counted down, local accumulators. */

/* y[n] = sum_k h[k] * x[n + k], x has nout + ntaps - 1 samples */
void fir(const float *x, const float *h, float *y, int nout, int ntaps)
{
    for (int n = 0; n < nout; n++) {
        float acc = 0.0f;
        for (int k = 0; k < ntaps; k++)
            acc += h[k] * x[n + k];
        y[n] = acc;
    }
}

/* the same filter with pointer walks over the taps and the input */
void fir_ptr(const float *x, const float *h, float *y, int nout, int ntaps)
{
    for (int n = 0; n < nout; n++) {
        const float *px = &x[n];
        const float *ph = h;
        float acc = 0.0f;
        for (int k = 0; k < ntaps; k++)
            acc += *ph++ * *px++;
        *y++ = acc;
    }
}

/* causal FIR with the history in front: x[n] is sample n + ntaps - 1 */
void fir_causal(int len, int taps, const double *coeffs, const double *in, double *out)
{
    int i, j;
    for (i = 0; i < len; i++) {
        double sum = 0.0;
        for (j = 0; j < taps; j++) {
            sum += coeffs[j] * in[i + taps - 1 - j];
        }
        out[i] = sum;
    }
}

/* direct-form I biquad: a recurrence on the outputs */
void biquad(const float *x, float *y, int n, float b0, float b1, float b2, float a1, float a2)
{
    y[0] = b0 * x[0];
    y[1] = b0 * x[1] + b1 * x[0] - a1 * y[0];
    for (int i = 2; i < n; i++)
        y[i] = b0 * x[i] + b1 * x[i - 1] + b2 * x[i - 2] - a1 * y[i - 1] - a2 * y[i - 2];
}

/* one-pole low-pass: a scalar recurrence */
void lowpass(const float *in, float *out, int n, float alpha)
{
    float state = 0.0f;
    for (int i = 0; i < n; i++) {
        state += alpha * (in[i] - state);
        out[i] = state;
    }
}

/* elementwise product with pointer walks */
void vec_mul_ptr(const short *a, const short *b, int *c, int n)
{
    const short *p_a = a;
    const short *p_b = b;
    int *p_c = c;
    for (int i = 0; i < n; i++) {
        *p_c++ = *p_a++ * *p_b++;
    }
}

/* matrix product, DSP style: row and column pointers set before the inner loop */
#define X 12
#define Y 10
#define Z 8
void matmul_dsp(const float A[X * Y], const float B[Y * Z], float C[X * Z])
{
    const float *p_a;
    const float *p_b;
    float *p_c = C;
    for (int i = 0; i < X; i++) {
        for (int k = 0; k < Z; k++) {
            p_a = &A[i * Y];
            p_b = &B[k];
            float acc = 0;
            for (int j = 0; j < Y; j++) {
                acc += *p_a * *p_b;
                p_a++;
                p_b += Z;
            }
            *p_c++ = acc;
        }
    }
}

/* cross-correlation at non-negative lags */
void xcorr(const double *x, const double *y, double *r, int n, int maxlag)
{
    for (int lag = 0; lag < maxlag; lag++) {
        double s = 0.0;
        for (int i = 0; i < n - lag; i++)
            s += x[i] * y[i + lag];
        r[lag] = s;
    }
}

/* moving average over a window of w samples */
void moving_average(const float *in, float *out, int n, int w)
{
    for (int i = 0; i + w <= n; i++) {
        float s = 0.0f;
        for (int k = 0; k < w; k++)
            s += in[i + k];
        out[i] = s / w;
    }
}

/* keep every second sample, after a 3-tap smoothing */
void decimate2(const float *in, float *out, int nout)
{
    for (int i = 0; i < nout; i++) {
        int j = 2 * i + 1;
        out[i] = 0.25f * in[j - 1] + 0.5f * in[j] + 0.25f * in[j + 1];
    }
}

/* stereo interleaved -> two planar channels with gains */
void deinterleave(const float *stereo, float *left, float *right, int frames, float gl, float gr)
{
    for (int i = 0; i < frames; i++) {
        left[i] = gl * stereo[2 * i];
        right[i] = gr * stereo[2 * i + 1];
    }
}

/* hard clipping of a signal */
void clip(float *buf, int n, float limit)
{
    for (int i = 0; i < n; i++) {
        if (buf[i] > limit)
            buf[i] = limit;
        else if (buf[i] < -limit)
            buf[i] = -limit;
    }
}

/* reverse a buffer into another */
void reverse(const double *in, double *out, int n)
{
    for (int i = n - 1; i >= 0; i--)
        out[n - 1 - i] = in[i];
}
