#define N 16

void kernel_while(double A[N])
{
  int i = 0;
  while (i < N) {
    A[i] = 0.0;
    i++;
  }
}
