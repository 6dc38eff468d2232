/* lookup.c: table lookups as image and signal code writes them: an 8-bit LUT applied
   to each pixel (thresholding, gamma, OpenCV's LUT), a float table indexed by 8-bit
   samples (mu-law / A-law style expansion), and a gather at int indices. */

/* an 8-bit LUT (OpenCV's LUT for one channel) */
void lut_u8(int n, const unsigned char *src, const unsigned char lut[256], unsigned char *dst)
{
    for (int i = 0; i < n; i++)
        dst[i] = lut[src[i]];
}

/* thresholding through a LUT, then a mask */
void lut_threshold(int n, const unsigned char *src, const unsigned char table[256], unsigned char *mask)
{
    for (int i = 0; i < n; i++)
        mask[i] = table[src[i]] & 0x80;
}

/* 8-bit samples expanded through a float table (mu-law decoding), scaled */
void expand_samples(int n, const unsigned char *code, const float table[256], float gain, float *out)
{
    for (int i = 0; i < n; i++)
        out[i] = gain * table[code[i]];
}

/* gamma correction of a double image through a table of 256 entries */
void gamma_table(int n, const unsigned char *img, const double gamma[256], double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = gamma[img[i]] + 0.5 * gamma[img[i]];
}

/* an 8-bit image through a LUT, its rows at a stride (OpenCV's LUT on a Mat) */
void lut_image(int h, int w, const unsigned char *src, int sstep, const unsigned char lut[256],
               unsigned char *dst)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            dst[y * w + x] = lut[src[y * sstep + x]];
}

/* one LUT applied to each channel of RGB pixels */
void lut_rgb(int n, const unsigned char *src, const unsigned char lut[256], unsigned char *dst)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            dst[3 * i + c] = lut[src[3 * i + c]];
}

/* an embedding's rows at token ids (llama2.c's token embedding lookup) */
void embed_rows(int n, int V, int d, const int *tok, const float emb[V][d], float *out)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++)
            out[i * d + j] = emb[tok[i]][j];
}

/* a gather at int indices (y = table[idx]): the index's range is the caller's */
void take_idx(int n, const int *idx, const double table[64], double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = table[idx[i]];
}
