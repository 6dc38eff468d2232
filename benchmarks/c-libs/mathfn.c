/* mathfn.c: the math library as C code calls it (<math.h>'s float and double forms):
   activations, rotary embeddings, gamma curves, wave tables and quantisers written the
   way llama2.c, GELU implementations, image code and signal generators write them. */
#include <math.h>

/* sine of each element */
void vsinf(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = sinf(x[i]);
}

/* cosine, double precision */
void vcos(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = cos(x[i]);
}

/* tangent, float */
void vtanf(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = tanf(x[i]);
}

/* GELU as PyTorch's exact form: x * Phi(x) with erf */
void gelu_erf(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f));
}

/* GELU's tanh approximation (GPT-2) */
void gelu_tanh(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}

/* squared magnitude with pow(x, 2.0), as numerical code writes it */
void vsquare_pow(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = pow(x[i], 2.0);
}

/* rotary embedding frequencies: theta^(-2i/d) */
void rope_freqs(int d, float theta, float *freq)
{
    for (int i = 0; i < d; i++)
        freq[i] = powf(theta, -2.0f * i / d);
}

/* gamma curve of normalised intensities */
void gamma_curve(int n, const float *in, float gamma, float *out)
{
    for (int i = 0; i < n; i++)
        out[i] = powf(in[i], gamma);
}

/* a sampled sine wave: amplitude * sin(omega * t + phase) */
void sine_wave(int n, float amp, float omega, float phase, float *out)
{
    for (int i = 0; i < n; i++)
        out[i] = amp * sinf(omega * i + phase);
}

/* softplus, log(1 + e^x) */
void softplus(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = logf(1.0f + expf(x[i]));
}

/* a polar to cartesian conversion of (r, angle) pairs */
void polar_to_xy(int n, const double *r, const double *angle, double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        x[i] = r[i] * cos(angle[i]);
        y[i] = r[i] * sin(angle[i]);
    }
}

/* quantise to quarter steps, rounding down and up */
void quantize_quarter(int n, const float *x, float *lo, float *hi)
{
    for (int i = 0; i < n; i++) {
        lo[i] = floorf(x[i] * 4.0f) * 0.25f;
        hi[i] = ceilf(x[i] * 4.0f) * 0.25f;
    }
}

/* a window function (Hann) applied to a frame */
void hann_window(int n, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] * (0.5 - 0.5 * cos(6.283185307179586 * i / (n - 1)));
}

/* the length of each row of a rows x 3 array of vectors */
void row_norms3(int rows, const float *v, float *norm)
{
    for (int i = 0; i < rows; i++)
        norm[i] = sqrtf(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
}
