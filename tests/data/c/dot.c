/* A returned double: the dot product, plus a weighted sum with exp and pow. */
#include <math.h>

#define N 100

double dot(double x[N], double y[N])
{
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += x[i] * y[i];
  return s;
}

double weighted(int n, double x[N], double w)
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s = s + exp(x[i]) * pow(w, 2.0) - x[i] / (i + 1);
  return s * 0.5;
}
