/* refused.c: constructs outside what synth translates; each function must be
 * refused (exit 2) with a message naming the construct (manifest.json). */
#include <math.h>
#include <stddef.h>

struct node { double value; struct node *next; };

double list_sum(const struct node *head)
{
    double s = 0.0;
    for (const struct node *p = head; p; p = p->next)
        s += p->value;
    return s;
}

int find_first(const float *x, int n, float key)
{
    for (int i = 0; i < n; i++)
        if (x[i] == key)
            return i;
    return -1;
}

void copy_until_zero(const int *src, int *dst, int n)
{
    for (int i = 0; i < n; i++) {
        if (src[i] == 0)
            break;
        dst[i] = src[i];
    }
}

void histogram(const unsigned char *pix, int n, int *hist)
{
    for (int i = 0; i < n; i++)
        hist[pix[i]]++;
}

void gather(const double *x, const int *idx, double *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = x[idx[i]];
}

void spmv_csr(int nrows, const int *rowptr, const int *col, const double *val,
              const double *x, double *y)
{
    for (int i = 0; i < nrows; i++) {
        double s = 0.0;
        for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
}

int compact_positive(const float *in, float *out, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (in[i] > 0.0f)
            out[k++] = in[i];
    return k;
}

void zero_pairs(int *a, int n)
{
    int k = 0;
    while (k != n) {
        a[k] = 0;
        k += 2;
    }
}

void square_index(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i * i] = 0.0;
}

extern double weight(int i);

void weighted(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] *= weight(i);
}

double scale_factor = 2.0;

void scale_global(double *a, int n)
{
    for (int i = 0; i < n; i++)
        a[i] *= scale_factor;
}

void classify(const int *kind, float *out, int n)
{
    for (int i = 0; i < n; i++) {
        switch (kind[i]) {
        case 0: out[i] = 0.0f; break;
        default: out[i] = 1.0f; break;
        }
    }
}

void newton_sqrt(const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) {
        double g = x[i];
        while (fabs(g * g - x[i]) > 1e-12)
            g = 0.5 * (g + x[i] / g);
        y[i] = g;
    }
}

void data_step(float *a, const int *steps, int n)
{
    for (int i = 0; i < n; i += steps[0])
        a[i] = 0.0f;
}
