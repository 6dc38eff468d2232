func.func @llama_rmsnorm_apply(%o: memref<1024xf32>, %x: memref<1024xf32>, %weight: memref<1024xf32>, %ss: f32) {
  affine.for %j = 0 to 1024 {
    %w = affine.load %weight[%j] : memref<1024xf32>
    %v = affine.load %x[%j] : memref<1024xf32>
    %s = arith.mulf %ss, %v : f32
    %r = arith.mulf %w, %s : f32
    affine.store %r, %o[%j] : memref<1024xf32>
  }
  return
}
