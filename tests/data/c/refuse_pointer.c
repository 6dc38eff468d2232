#define N 16

void kernel_ptr(double A[N], double B[N])
{
  for (int i = 0; i < N; i++)
    B[i] = *(A + i) * 2.0;
}
