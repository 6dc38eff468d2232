/* tsvc.c: loops in the style of the classic vectorizer test suite (TSVC):
 * induction variables, constant locals, conditions on data, local pointers. */
#define LEN 256
typedef float real_t;

/* induction variable incremented before use */
void s121(real_t a[LEN], const real_t b[LEN])
{
    int j;
    for (int i = 0; i < LEN - 1; i++) {
        j = i + 1;
        a[i] = a[j] + b[i];
    }
}

/* induction variable advanced by 2 per iteration */
void s122(real_t a[LEN], const real_t b[LEN], int n1, int n3)
{
    int j, k;
    j = 1;
    k = 0;
    for (int i = n1 - 1; i < LEN; i += n3) {
        k += j;
        a[i] += b[LEN - k];
    }
}

/* a counter packed forward: j starts at -1 */
void s123(real_t a[LEN], const real_t b[LEN], const real_t c[LEN], const real_t d[LEN])
{
    int j = -1;
    for (int i = 0; i < LEN / 2; i++) {
        j++;
        a[j] = b[i] + d[i] * c[i];
    }
}

/* a constant local offset */
void s127_half(real_t a[LEN], const real_t b[LEN], const real_t c[LEN])
{
    int m = LEN / 2;
    for (int i = 0; i < m; i++)
        a[i + m] = b[i] + c[i] * a[i];
}

/* two stores per iteration through a counter */
void s128_pack(real_t a[LEN], const real_t b[LEN], const real_t c[LEN])
{
    int k = 0;
    for (int i = 0; i < LEN / 2; i++) {
        a[k] = b[i] - c[i];
        a[k + 1] = b[i] + c[i];
        k += 2;
    }
}

/* if on data: a store under the condition */
void s271(real_t a[LEN], const real_t b[LEN], const real_t c[LEN])
{
    for (int i = 0; i < LEN; i++) {
        if (b[i] > (real_t)0.)
            a[i] += b[i] * c[i];
    }
}

/* if / else on data, both branches store the same element */
void s161_like(real_t a[LEN], const real_t b[LEN], const real_t c[LEN], const real_t d[LEN])
{
    for (int i = 0; i < LEN; i++) {
        if (b[i] < (real_t)0.)
            a[i] = c[i] * d[i];
        else
            a[i] = c[i] + d[i];
    }
}

/* a store under a condition on another array's element, two arrays written */
void s273(real_t a[LEN], real_t b[LEN], const real_t c[LEN], const real_t d[LEN], const real_t e[LEN])
{
    for (int i = 0; i < LEN; i++) {
        a[i] += d[i] * e[i];
        if (a[i] < (real_t)0.)
            b[i] += d[i] * e[i];
        a[i] += c[i] * d[i];
    }
}

/* a local pointer naming an array */
void s421_like(real_t a[LEN], real_t b[LEN])
{
    real_t *restrict xx = a;
    real_t *restrict yy = b;
    for (int i = 0; i < LEN - 1; i++)
        xx[i] = yy[i + 1] + a[i];
}

/* restrict pointer walks, unrolled body */
void s1351_like(real_t *restrict a, const real_t *restrict b, const real_t *restrict c)
{
    real_t *restrict A = a;
    const real_t *restrict B = b;
    const real_t *restrict C = c;
    for (int i = 0; i < LEN; i++) {
        *A = *B + *C;
        A++;
        B++;
        C++;
    }
}

/* vector plus vector, the simplest */
void vpvtv(real_t a[LEN], const real_t b[LEN], const real_t c[LEN])
{
    for (int i = 0; i < LEN; i++)
        a[i] += b[i] * c[i];
}

/* the absolute value by a conditional expression */
void s_abs(real_t a[LEN], const real_t b[LEN])
{
    for (int i = 0; i < LEN; i++) {
        real_t x = b[i];
        a[i] = x < 0 ? -x : x;
    }
}

/* a maximum with its index (reduction on data) */
real_t s3113(const real_t a[LEN])
{
    real_t max = a[0] < 0 ? -a[0] : a[0];
    for (int i = 0; i < LEN; i++) {
        if ((a[i] < 0 ? -a[i] : a[i]) > max)
            max = a[i] < 0 ? -a[i] : a[i];
    }
    return max;
}
