#define N 16

/* a scatter: a store at an index read from data (the read of a gather translates) */
void kernel_scatter(double A[N], int B[N], double C[N])
{
  for (int i = 0; i < N; i++)
    C[B[i]] = A[i];
}
