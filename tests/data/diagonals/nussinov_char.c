/* Nussinov's RNA folding as PolyBench/C 4.2.1 spells its kernel: the bases are `char`
 * (0..3), the table int; max_score and match are its macros. At N = 16 for synth's tests. */
#ifndef N
#define N 16
#endif
typedef char base;
#define match(b1, b2) (((b1)+(b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

void kernel_nussinov(int n, base seq[N], int table[N][N])
{
  int i, j, k;

  for (i = n-1; i >= 0; i--) {
   for (j=i+1; j<n; j++) {

     if (j-1>=0)
        table[i][j] = max_score(table[i][j], table[i][j-1]);
     if (i+1<n)
        table[i][j] = max_score(table[i][j], table[i+1][j]);

     if (j-1>=0 && i+1<n) {
       /* don't allow adjacent elements to bond */
       if (i<j-1)
          table[i][j] = max_score(table[i][j], table[i+1][j-1]+match(seq[i], seq[j]));
       else
          table[i][j] = max_score(table[i][j], table[i+1][j-1]);
     }

     for (k=i+1; k<j; k++) {
        table[i][j] = max_score(table[i][j], table[i][k] + table[k+1][j]);
     }
   }
  }
}
