module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @blas_scal(%arg0: f64, %arg1: memref<1000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    affine.for %arg2 = 0 to 1000 {
      %0 = affine.load %arg1[%arg2] : memref<1000xf64>
      %1 = arith.mulf %0, %arg0 : f64
      affine.store %1, %arg1[%arg2] : memref<1000xf64>
    }
    return
  }
}
