/* vecmath.c: vector-math helpers of the kind found in game and graphics code. */
#include <math.h>

void vadd(float *restrict out, const float *restrict a, const float *restrict b, int n)
{
    for (int i = 0; i < n; i++) out[i] = a[i] + b[i];
}

void vsub(double *out, const double *a, const double *b, int n)
{
    for (int i = 0; i < n; i++) out[i] = a[i] - b[i];
}

void vmul_add(float *out, const float *a, const float *b, const float *c, int n)
{
    for (int i = 0; i < n; i++) out[i] = a[i] * b[i] + c[i];
}

void vdiv_safe(float *out, const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = b[i] != 0.0f ? a[i] / b[i] : 0.0f;
}

void vclamp(float *x, int n, float lo, float hi)
{
    for (int i = 0; i < n; i++)
        x[i] = fminf(fmaxf(x[i], lo), hi);
}

void vabs(double *x, int n)
{
    for (int i = 0; i < n; ++i)
        x[i] = fabs(x[i]);
}

void vsqrt(const float *in, float *out, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        out[i] = sqrtf(in[i] * in[i] + 1.0f);
}

void vlerp(float *out, const float *a, const float *b, float t, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = a[i] + t * (b[i] - a[i]);
}

float vnorm(const float *v, int n)
{
    float s = 0.f;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrtf(s);
}

double dist2(const double *p, const double *q, int dim)
{
    double d = 0.0;
    for (int i = 0; i < dim; i++) {
        double t = p[i] - q[i];
        d += t * t;
    }
    return d;
}

void vnormalize(float *v, int n)
{
    float s = 0.f;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    float inv = 1.0f / sqrtf(s);
    for (int i = 0; i < n; i++)
        v[i] *= inv;
}

/* pairwise squared distances between two point sets of dimension 3 */
void pdist3(int n, int m, const float *P, const float *Q, float *D)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            float dx = P[3 * i] - Q[3 * j];
            float dy = P[3 * i + 1] - Q[3 * j + 1];
            float dz = P[3 * i + 2] - Q[3 * j + 2];
            D[i * m + j] = dx * dx + dy * dy + dz * dz;
        }
}

void mat4_mul(float out[4][4], const float a[4][4], const float b[4][4])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            float s = 0.0f;
            for (int k = 0; k < 4; k++)
                s += a[i][k] * b[k][j];
            out[i][j] = s;
        }
}

/* transform n points (x, y, z, w interleaved) by a 4x4 matrix */
void transform_points(int n, const float m[16], const float *in, float *out)
{
    for (int p = 0; p < n; p++) {
        for (int r = 0; r < 4; r++) {
            float s = 0.0f;
            for (int c = 0; c < 4; c++)
                s += m[r * 4 + c] * in[p * 4 + c];
            out[p * 4 + r] = s;
        }
    }
}

void transpose(int rows, int cols, const double *in, double *out)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            out[j * rows + i] = in[i * cols + j];
}

/* polynomial by Horner's rule at each point */
void polyval(const double *coef, int degree, const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) {
        double acc = coef[degree];
        for (int k = degree - 1; k >= 0; k--)
            acc = acc * x[i] + coef[k];
        y[i] = acc;
    }
}

/* inclusive prefix sum */
void prefix_sum(const float *in, float *out, int n)
{
    float run = 0.0f;
    for (int i = 0; i < n; i++) {
        run += in[i];
        out[i] = run;
    }
}

void sigmoid_v(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 1.0 / (1.0 + exp(-x[i]));
}
