// Arrays reached in part, written in MLIR: a leading dimension larger than the columns
// used, a strided read, a loop of step 2 that reads only elements it never writes, and a
// true recurrence (each iteration reads what the previous one wrote).
func.func @lead_dim(%A: memref<12x17xf64>, %x: memref<15xf64>, %y: memref<12xf64>) {
  affine.for %i = 0 to 12 {
    affine.for %j = 0 to 15 {
      %a = affine.load %A[%i, %j] : memref<12x17xf64>
      %b = affine.load %x[%j] : memref<15xf64>
      %c = affine.load %y[%i] : memref<12xf64>
      %p = arith.mulf %a, %b : f64
      %s = arith.addf %c, %p : f64
      affine.store %s, %y[%i] : memref<12xf64>
    }
  }
  return
}

func.func @strided_read(%x: memref<41xf64>, %y: memref<20xf64>) {
  %h = arith.constant 0.5 : f64
  affine.for %i = 0 to 20 {
    %a = affine.load %x[%i * 2 + 1] : memref<41xf64>
    %p = arith.mulf %h, %a : f64
    affine.store %p, %y[%i] : memref<20xf64>
  }
  return
}

func.func @step2(%a: memref<33xf64>, %b: memref<33xf64>) {
  affine.for %i = 1 to 33 step 2 {
    %p = affine.load %a[%i - 1] : memref<33xf64>
    %q = affine.load %b[%i] : memref<33xf64>
    %s = arith.addf %p, %q : f64
    affine.store %s, %a[%i] : memref<33xf64>
  }
  return
}

func.func @recurrence(%a: memref<33xf64>, %b: memref<33xf64>) {
  affine.for %i = 1 to 33 {
    %p = affine.load %a[%i - 1] : memref<33xf64>
    %q = affine.load %b[%i] : memref<33xf64>
    %s = arith.addf %p, %q : f64
    affine.store %s, %a[%i] : memref<33xf64>
  }
  return
}

func.func @strided_store(%a: memref<35xf64>, %b: memref<17xf64>) {
  %t = arith.constant 3.0 : f64
  affine.for %i = 0 to 17 {
    %x = affine.load %b[%i] : memref<17xf64>
    %y = arith.mulf %t, %x : f64
    affine.store %y, %a[%i * 2 + 1] : memref<35xf64>
  }
  return
}
