// C[i] += D[i] for each k: C = C + M*D
module {
  func.func @kernel_acc(%arg0: memref<1000x1200xf64>, %arg1: memref<1000xf64>, %arg2: memref<1000xf64>) {
    affine.for %i = 0 to 1000 {
      affine.for %k = 0 to 1200 {
        %c = affine.load %arg1[%i] : memref<1000xf64>
        %d = affine.load %arg2[%i] : memref<1000xf64>
        %s = arith.addf %c, %d : f64
        affine.store %s, %arg1[%i] : memref<1000xf64>
      }
    }
    return
  }
}
