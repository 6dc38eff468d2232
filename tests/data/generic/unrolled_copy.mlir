// a loop unrolled by hand: five elements per step
func.func @unrolled(%n: index, %a: memref<?xf64>, %b: memref<?xf64>) {
  affine.for %i = 0 to %n step 5 {
    %b0 = affine.load %b[%i] : memref<?xf64>
    affine.store %b0, %a[%i] : memref<?xf64>
    %b1 = affine.load %b[%i + 1] : memref<?xf64>
    affine.store %b1, %a[%i + 1] : memref<?xf64>
    %b2 = affine.load %b[%i + 2] : memref<?xf64>
    affine.store %b2, %a[%i + 2] : memref<?xf64>
    %b3 = affine.load %b[%i + 3] : memref<?xf64>
    affine.store %b3, %a[%i + 3] : memref<?xf64>
    %b4 = affine.load %b[%i + 4] : memref<?xf64>
    affine.store %b4, %a[%i + 4] : memref<?xf64>
  }
  return
}
