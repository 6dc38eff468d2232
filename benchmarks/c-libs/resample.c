/* Nearest-neighbour resampling and row gathers as image, audio and ML libraries write
 * them: the source index computed by integer division of a loop index and sizes (stb's
 * and OpenCV's nearest resizes, np.repeat), often through a local set once per row or
 * sample (`int sy = y * sh / dh;`), and rows of a table picked by ids read from data
 * (ggml's get_rows, an embedding lookup). The source's extent is what the index reaches
 * (the C front end bounds a computed index: `i * sn / dn` over i < dn stays below sn),
 * or the table's declared rows. */

/* stb_image_resize's nearest filter along one axis: dst sample i takes src[i * sn / dn] */
void resample_nearest_1d_f32(const float *src, int sn, float *dst, int dn)
{
    for (int i = 0; i < dn; i++)
        dst[i] = src[i * sn / dn];
}

/* np.repeat(x, 2) through a local index, as a loop over the output writes it */
void repeat2_local_f64(int n, const double *x, double *y)
{
    for (int i = 0; i < 2 * n; i++) {
        int j = i / 2;
        y[i] = x[j];
    }
}

/* OpenCV's INTER_NEAREST_EXACT along one axis, the source sample in a local: the sample
 * under the destination sample's centre */
void resample_exact_1d_f32(const float *src, int sn, float *dst, int dn)
{
    for (int i = 0; i < dn; i++) {
        int s = (2 * i + 1) * sn / (2 * dn);
        dst[i] = src[s];
    }
}

/* nearest resampling of interleaved stereo frames (two channels), the frame in a local */
void resample_stereo_s16(const short *src, int sn, short *dst, int dn)
{
    for (int i = 0; i < dn; i++) {
        int f = i * sn / dn;
        dst[2 * i] = src[2 * f];
        dst[2 * i + 1] = src[2 * f + 1];
    }
}

/* OpenCV's resizeNN: the source row picked once per destination row into a local, the
 * column per pixel (a flat image: its extent sw * sh, a product of sizes) */
void resize_nn_rows_f32(const float *src, int sw, int sh, float *dst, int dw, int dh)
{
    for (int y = 0; y < dh; y++) {
        int sy = y * sh / dh;
        for (int x = 0; x < dw; x++)
            dst[y * dw + x] = src[sy * sw + x * sw / dw];
    }
}

/* ggml's get_rows: the row id read once per output row, the row copied */
void get_rows_f32(int n, int d, int V, const int *ids, const float table[V][d], float *out)
{
    for (int i = 0; i < n; i++) {
        int r = ids[i];
        for (int j = 0; j < d; j++)
            out[i * d + j] = table[r][j];
    }
}
