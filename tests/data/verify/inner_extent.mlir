func.func @fuzz_3(%C: memref<40x40x40xf64>, %u: memref<40xf64>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 40 {
      affine.for %k = 2 to 38 {
        %0 = affine.load %u[%i] : memref<40xf64>
        affine.store %0, %C[%i, %j, %k] : memref<40x40x40xf64>
      }
    }
  }
  return
}
