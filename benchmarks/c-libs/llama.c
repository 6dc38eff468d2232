/* llama.c: the transformer helpers of a small single-file Llama-2 inference
 * program (llama2.c style): rmsnorm, softmax, matmul, SwiGLU, residual add. */
#include <math.h>

void rmsnorm(float *o, float *x, float *weight, int size)
{
    // calculate sum of squares
    float ss = 0.0f;
    for (int j = 0; j < size; j++) {
        ss += x[j] * x[j];
    }
    ss /= size;
    ss += 1e-5f;
    ss = 1.0f / sqrtf(ss);
    // normalize and scale
    for (int j = 0; j < size; j++) {
        o[j] = weight[j] * (ss * x[j]);
    }
}

void softmax(float *x, int size)
{
    // find max value (for numerical stability)
    float max_val = x[0];
    for (int i = 1; i < size; i++) {
        if (x[i] > max_val) {
            max_val = x[i];
        }
    }
    // exp and sum
    float sum = 0.0f;
    for (int i = 0; i < size; i++) {
        x[i] = expf(x[i] - max_val);
        sum += x[i];
    }
    // normalize
    for (int i = 0; i < size; i++) {
        x[i] /= sum;
    }
}

void matmul(float *xout, float *x, float *w, int n, int d)
{
    // W (d,n) @ x (n,) -> xout (d,)
    int i;
    for (i = 0; i < d; i++) {
        float val = 0.0f;
        for (int j = 0; j < n; j++) {
            val += w[i * n + j] * x[j];
        }
        xout[i] = val;
    }
}

void swiglu(float *hb, float *hb2, int hidden_dim)
{
    for (int i = 0; i < hidden_dim; i++) {
        float val = hb[i];
        // silu(x)=x*σ(x), where σ(x) is the logistic sigmoid
        val *= (1.0f / (1.0f + expf(-val)));
        // elementwise multiply with w3(x)
        val *= hb2[i];
        hb[i] = val;
    }
}

void residual(float *x, float *xb, int dim)
{
    for (int i = 0; i < dim; i++) {
        x[i] += xb[i];
    }
}

/* attention scores of one head: att[t] = q . k_t / sqrt(head_size) */
void attention_scores(float *att, const float *q, const float *key_cache, int pos,
                      int head_size, int kv_dim)
{
    for (int t = 0; t <= pos; t++) {
        const float *k = key_cache + t * kv_dim;
        float score = 0.0f;
        for (int i = 0; i < head_size; i++) {
            score += q[i] * k[i];
        }
        score /= sqrtf(head_size);
        att[t] = score;
    }
}

/* weighted sum of the values: xb = sum_t att[t] * v_t */
void attention_mix(float *xb, const float *att, const float *value_cache, int pos,
                   int head_size, int kv_dim)
{
    for (int i = 0; i < head_size; i++) xb[i] = 0.0f;
    for (int t = 0; t <= pos; t++) {
        const float *v = value_cache + t * kv_dim;
        float a = att[t];
        for (int i = 0; i < head_size; i++) {
            xb[i] += a * v[i];
        }
    }
}
