// Doolittle LU in f32, constant sizes, i-j-k order written by hand (not PolyBench's file)
func.func @doolittle_f32(%A: memref<40x40xf32>) {
  affine.for %i = 0 to 40 {
    affine.for %j = 0 to 40 {
      affine.if affine_set<(d0, d1) : (d0 - d1 - 1 >= 0)>(%i, %j) {
        affine.for %k = 0 to affine_map<(d0) -> (d0)>(%j) {
          %a = affine.load %A[%i, %j] : memref<40x40xf32>
          %l = affine.load %A[%i, %k] : memref<40x40xf32>
          %u = affine.load %A[%k, %j] : memref<40x40xf32>
          %p = arith.mulf %l, %u : f32
          %d = arith.subf %a, %p : f32
          affine.store %d, %A[%i, %j] : memref<40x40xf32>
        }
        %x = affine.load %A[%i, %j] : memref<40x40xf32>
        %piv = affine.load %A[%j, %j] : memref<40x40xf32>
        %q = arith.divf %x, %piv : f32
        affine.store %q, %A[%i, %j] : memref<40x40xf32>
      } else {
        affine.for %k = 0 to affine_map<(d0) -> (d0)>(%i) {
          %a = affine.load %A[%i, %j] : memref<40x40xf32>
          %l = affine.load %A[%i, %k] : memref<40x40xf32>
          %u = affine.load %A[%k, %j] : memref<40x40xf32>
          %p = arith.mulf %l, %u : f32
          %d = arith.subf %a, %p : f32
          affine.store %d, %A[%i, %j] : memref<40x40xf32>
        }
      }
    }
  }
  return
}
