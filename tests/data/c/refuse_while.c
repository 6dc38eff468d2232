#define N 16

void kernel_while(double A[N])
{
  int i = 0;
  while (A[i] > 0.0) {
    A[i] = 0.0;
    i++;
  }
}
