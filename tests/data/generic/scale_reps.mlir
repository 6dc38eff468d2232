// scale_reps: a[i] *= s, repeated reps times; reps bounds no array (a run-time count).
func.func @scale_reps(%n: index, %reps: index, %a: memref<?xf64>, %s: f64) {
  affine.for %r = 0 to %reps {
    affine.for %i = 0 to %n {
      %x = affine.load %a[%i] : memref<?xf64>
      %y = arith.mulf %x, %s : f64
      affine.store %y, %a[%i] : memref<?xf64>
    }
  }
  return
}
