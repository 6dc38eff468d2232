/*
 * harness.c: the run-time library of the PolyBench-style harness (see harness.h).
 * Written for synth; not PolyBench's polybench.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef HARNESS_CACHE_BYTES
#  define HARNESS_CACHE_BYTES (32u * 1024u * 1024u)
#endif

void *harness_alloc(size_t bytes)
{
  size_t rounded = (bytes + 63u) / 64u * 64u;
  void *p;
  if (rounded == 0)
    rounded = 64u;
  p = aligned_alloc(64u, rounded);
  if (p == NULL) {
    fprintf(stderr, "harness: cannot allocate %zu bytes\n", bytes);
    exit(2);
  }
  memset(p, 0, rounded);
  return p;
}

/* ---- pseudo-random numbers: splitmix64, integer arithmetic only ------------------- */
static uint64_t harness_state = 0x5eed5eed12345678ull;

void harness_seed(uint64_t seed)
{
  harness_state = seed;
}

static uint64_t harness_next(void)
{
  uint64_t z = (harness_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double harness_rand(void)
{
  /* 53 random bits scaled by 2^-53: exact, so every compiler gets the same doubles */
  return (double)(harness_next() >> 11) * (1.0 / 9007199254740992.0);
}

int harness_rand_int(int lo, int hi)
{
  uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo + 1);
  return (int)((int64_t)lo + (int64_t)(harness_next() % span));
}

void harness_fill_double(double *a, size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    a[i] = harness_rand();
}

void harness_fill_float(float *a, size_t count)
{
  size_t i;
  for (i = 0; i < count; i++)
    a[i] = (float)(harness_next() >> 40) * (1.0f / 16777216.0f);
}

void harness_fill_int(int *a, size_t count, int lo, int hi)
{
  size_t i;
  for (i = 0; i < count; i++)
    a[i] = harness_rand_int(lo, hi);
}

/* ---- cache flush ------------------------------------------------------------------ */
volatile double harness_flush_sink;

void harness_flush_cache(void)
{
#ifndef POLYBENCH_NO_FLUSH_CACHE
  size_t n = HARNESS_CACHE_BYTES / sizeof(double), i;
  double *buf = (double *)harness_alloc(n * sizeof(double));
  double s = 0.0;
  for (i = 0; i < n; i++)
    buf[i] = (double)i;
  for (i = 0; i < n; i++)
    s += buf[i];
  harness_flush_sink = s;
  free(buf);
#endif
}

/* ---- timer ------------------------------------------------------------------------ */
static struct timespec harness_t0;

void harness_timer_start(void)
{
  clock_gettime(CLOCK_MONOTONIC, &harness_t0);
}

void harness_timer_stop(const char *kernel)
{
  struct timespec t1;
  double s;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s = (double)(t1.tv_sec - harness_t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - harness_t0.tv_nsec);
  fprintf(stderr, "HARNESS_TIME %s %.9e\n", kernel, s);
}

/* ---- dump ------------------------------------------------------------------------- */
static size_t harness_dump_head(const char *name, const char *type, int ndims, const int *dims)
{
  size_t count = 1;
  int d;
  printf("begin dump: %s %s", name, type);
  for (d = 0; d < ndims; d++) {
    printf(" %d", dims[d]);
    count *= (size_t)dims[d];
  }
  printf("\n");
  return count;
}

#define HARNESS_DUMP_BODY(FMT)                                   \
  size_t count = harness_dump_head(name, type, ndims, dims), i;  \
  for (i = 0; i < count; i++)                                    \
    printf(i % 8 == 7 || i + 1 == count ? FMT "\n" : FMT " ", a[i]); \
  printf("end dump: %s\n", name)

void harness_dump_begin(void)
{
  printf("==BEGIN DUMP_ARRAYS==\n");
}

void harness_dump_double(const char *name, const double *a, int ndims, const int *dims)
{
  const char *type = "double";
  HARNESS_DUMP_BODY("%.17g");
}

void harness_dump_float(const char *name, const float *a, int ndims, const int *dims)
{
  const char *type = "float";
  HARNESS_DUMP_BODY("%.9g");
}

void harness_dump_int(const char *name, const int *a, int ndims, const int *dims)
{
  const char *type = "int";
  HARNESS_DUMP_BODY("%d");
}

void harness_dump_end(void)
{
  printf("==END DUMP_ARRAYS==\n");
  fflush(stdout);
}
