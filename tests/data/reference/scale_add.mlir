module {
  func.func @scale_add(%arg0: f64, %arg1: memref<1024x1024xf64>, %arg2: memref<1024x1024xf64>) {
    affine.for %i = 0 to 1024 {
      affine.for %j = 0 to 1024 {
        %a = affine.load %arg1[%i, %j] : memref<1024x1024xf64>
        %b = affine.load %arg2[%i, %j] : memref<1024x1024xf64>
        %m = arith.mulf %arg0, %a : f64
        %s = arith.addf %m, %b : f64
        affine.store %s, %arg2[%i, %j] : memref<1024x1024xf64>
      }
    }
    return
  }
}
