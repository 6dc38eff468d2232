#define N 16

double mystery(double x);

void kernel_call(double A[N])
{
  for (int i = 0; i < N; i++)
    A[i] = 1.0 + mystery(A[i]);
}
