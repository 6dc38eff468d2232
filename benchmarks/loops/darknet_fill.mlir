module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @darknet_fill(%arg0: f64, %arg1: memref<1000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    affine.for %arg2 = 0 to 1000 {
      affine.store %arg0, %arg1[%arg2] : memref<1000xf64>
    }
    return
  }
}
