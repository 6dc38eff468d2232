/* C := alpha*A*B + beta*C, PolyBench style (loop bounds are the size parameters). */
#define NI 20
#define NJ 25
#define NK 30
#define DATA_TYPE double
#define SCALAR_VAL(x) x
#define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[dim1 + 0][dim2 + 0]
#define _PB_NI ni
#define _PB_NJ nj
#define _PB_NK nk

void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                 DATA_TYPE POLYBENCH_2D(C, NI, NJ, ni, nj),
                 DATA_TYPE POLYBENCH_2D(A, NI, NK, ni, nk),
                 DATA_TYPE POLYBENCH_2D(B, NK, NJ, nk, nj))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_NI; i++) {
    for (j = 0; j < _PB_NJ; j++)
      C[i][j] *= beta;
    for (k = 0; k < _PB_NK; k++) {
      for (j = 0; j < _PB_NJ; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
#pragma endscop
}
