// B[i] += sum_k A[m-1-k] for i < n, k < m: the reversed sum is one the all-size proof's
// canonical form does not see equal to a plain reduction, so z3 finds "sizes where they
// may differ" (suspect sizes) for the bounded proof: tests/test_reproducible.py
module {
  func.func @kernel_rev2(%n: i32, %m: i32, %A: memref<40xf64>, %B: memref<30xf64>) {
    %0 = arith.index_cast %n : i32 to index
    %1 = arith.index_cast %m : i32 to index
    affine.for %i = 0 to %0 {
      affine.for %k = 0 to %1 {
        %c = affine.load %B[%i] : memref<30xf64>
        %a = affine.load %A[%1 - %k - 1] : memref<40xf64>
        %s = arith.addf %c, %a : f64
        affine.store %s, %B[%i] : memref<30xf64>
      }
    }
    return
  }
}
