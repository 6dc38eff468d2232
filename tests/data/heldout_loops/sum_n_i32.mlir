// int sum(int n, int a[2048]) { int s = 0; for (i = 0; i < n; i++) s += a[i]; return s; }
func.func @sum_n_i32(%n: i32, %a: memref<2048xi32>) -> i32 {
  %c0_i32 = arith.constant 0 : i32
  %bound = arith.index_cast %n : i32 to index
  %s = affine.for %i = 0 to %bound iter_args(%acc = %c0_i32) -> (i32) {
    %v = affine.load %a[%i] : memref<2048xi32>
    %w = arith.addi %acc, %v : i32
    affine.yield %w : i32
  }
  return %s : i32
}
