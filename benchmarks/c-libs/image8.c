/* image8.c: 8-bit image blend modes and pixel operations (unsigned char
 * pixels, int arithmetic after C's promotions). */
#include <stdint.h>

void blend_multiply(const unsigned char *a, const unsigned char *b, unsigned char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (unsigned char)((a[i] * b[i]) / 255);
}

void blend_screen(const unsigned char *a, const unsigned char *b, unsigned char *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = 255 - ((255 - a[i]) * (255 - b[i])) / 255;
}

void blend_add(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        int s = a[i] + b[i];
        out[i] = s > 255 ? 255 : s;
    }
}

void blend_subtract(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        int d = a[i] - b[i];
        out[i] = d < 0 ? 0 : d;
    }
}

void blend_average(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (a[i] + b[i]) >> 1;
}

void blend_darken(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = a[i] < b[i] ? a[i] : b[i];
}

void blend_difference(const uint8_t *a, const uint8_t *b, uint8_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        int d = a[i] - b[i];
        out[i] = d < 0 ? -d : d;
    }
}

/* out = (alpha*src + (255-alpha)*dst) / 255 */
void blend_alpha(const uint8_t *src, uint8_t *dst, int n, uint8_t alpha)
{
    for (int i = 0; i < n; i++)
        dst[i] = (uint8_t)((alpha * src[i] + (255 - alpha) * dst[i]) / 255);
}

void invert(unsigned char *img, int width, int height)
{
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++)
            img[y * width + x] = 255 - img[y * width + x];
}

void threshold(const unsigned char *in, unsigned char *out, int n, unsigned char t)
{
    for (int i = 0; i < n; i++)
        out[i] = in[i] > t ? 255 : 0;
}

/* RGB interleaved to gray, integer weights (77, 150, 29) / 256 */
void rgb_to_gray(const uint8_t *rgb, uint8_t *gray, int npixels)
{
    for (int i = 0; i < npixels; i++) {
        int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        gray[i] = (uint8_t)((77 * r + 150 * g + 29 * b) >> 8);
    }
}

/* brightness with saturation on both ends */
void brighten(uint8_t *img, int n, int delta)
{
    for (int i = 0; i < n; i++) {
        int v = img[i] + delta;
        if (v > 255) v = 255;
        if (v < 0) v = 0;
        img[i] = (uint8_t)v;
    }
}

/* 3x3 box blur of the interior of a w x h 8-bit image */
void box_blur3(int w, int h, const uint8_t *in, uint8_t *out)
{
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            int s = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++)
                    s += in[(y + dy) * w + (x + dx)];
            out[y * w + x] = (uint8_t)(s / 9);
        }
}
