/* Arrays of structures read field by field in rows with a pitch (tests/test_interleaved.py):
 * stereo frames mixed down (stride 2, floats, rows of ld floats), and the first three
 * channels of BGRA pixels weighted into a luma byte (stride 4, rows of `pitch` bytes, the
 * alpha field never read). */
#include <stdint.h>

void stereo_rows(int rows, int n, int ld, const float *lr, float *mono)
{
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < n; i++)
            mono[r * n + i] = 0.5f * (lr[r * ld + 2 * i] + lr[r * ld + 2 * i + 1]);
}

void bgra_luma(int rows, int cols, int pitch, const uint8_t *px, uint8_t *luma)
{
    for (int y = 0; y < rows; y++) {
        const uint8_t *p = px + y * pitch;
        for (int x = 0; x < cols; x++) {
            int b = p[4 * x], g = p[4 * x + 1], r = p[4 * x + 2];
            luma[y * cols + x] = (uint8_t)((29 * b + 150 * g + 77 * r + 128) >> 8);
        }
    }
}

/* the two halves of each row of 16, as two blocks side by side (an integer dot product
 * of each half, summed) */
void halves_dot_i16(int rows, const int16_t *w, const int16_t *x, int32_t *out)
{
    for (int r = 0; r < rows; r++) {
        int32_t s = 0;
        for (int j = 0; j < 8; j++)
            s += w[r * 16 + j] * x[r * 16 + j] + w[r * 16 + j + 8] * x[r * 16 + j + 8];
        out[r] = s;
    }
}
