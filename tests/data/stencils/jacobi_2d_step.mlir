// One sweep of PolyBench's jacobi-2d (its first statement) as Polygeist prints it: constant
// sizes, the unused size argument passed through.
module {
  func.func @jacobi_2d_step(%arg0: i32, %arg1: memref<1300x1300xf64>, %arg2: memref<1300x1300xf64>) {
    %cst = arith.constant 2.000000e-01 : f64
    affine.for %arg3 = 1 to 1299 {
      affine.for %arg4 = 1 to 1299 {
        %0 = affine.load %arg1[%arg3, %arg4] : memref<1300x1300xf64>
        %1 = affine.load %arg1[%arg3, %arg4 - 1] : memref<1300x1300xf64>
        %2 = arith.addf %0, %1 : f64
        %3 = affine.load %arg1[%arg3, %arg4 + 1] : memref<1300x1300xf64>
        %4 = arith.addf %2, %3 : f64
        %5 = affine.load %arg1[%arg3 + 1, %arg4] : memref<1300x1300xf64>
        %6 = arith.addf %4, %5 : f64
        %7 = affine.load %arg1[%arg3 - 1, %arg4] : memref<1300x1300xf64>
        %8 = arith.addf %6, %7 : f64
        %9 = arith.mulf %cst, %8 : f64
        affine.store %9, %arg2[%arg3, %arg4] : memref<1300x1300xf64>
      }
    }
    return
  }
}
