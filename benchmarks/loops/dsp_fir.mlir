module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @dsp_fir(%arg0: memref<1031xf64>, %arg1: memref<32xf64>, %arg2: memref<1000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 0.000000e+00 : f64
    affine.for %arg3 = 0 to 1000 {
      affine.store %cst, %arg2[%arg3] : memref<1000xf64>
      affine.for %arg4 = 0 to 32 {
        %0 = affine.load %arg1[%arg4] : memref<32xf64>
        %1 = affine.load %arg0[%arg3 + %arg4] : memref<1031xf64>
        %2 = arith.mulf %0, %1 : f64
        %3 = affine.load %arg2[%arg3] : memref<1000xf64>
        %4 = arith.addf %3, %2 : f64
        affine.store %4, %arg2[%arg3] : memref<1000xf64>
      }
    }
    return
  }
}
