// fuzz: {"kind": "crash", "target": "linalg", "seed": 7, "program": 41, "sizes": {"0": 64, "1": 32}, "timeout": 20.0, "mutation": null}
// failed: crash (linalg): synth raise exit 1: error: emitted linalg does not verify: Unable to parse module assembly:
// expected: synth raise exits 0, 2 or 3 without a traceback
// shrunk: 20 -> 20 parts in 0 tries, 0 s (scripts/fuzz.py --seed 7, program 41)
// reproduce: python -m synth.cli raise tests/data/fuzz/crash_7_41.mlir --target linalg --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/crash_7_41.mlir
#map = affine_map<()[s0] -> (s0 - 2)>
func.func @fuzz_41(%size_n64: i32, %size_n32: i32, %y: memref<32xf64>, %z: memref<32xf64>, %u: memref<64xf64>, %A: memref<64x32xf64>, %B: memref<64x32x32xf64>, %alpha: f64) -> memref<32xf64> {
  %0 = arith.index_cast %size_n64 : i32 to index
  %1 = arith.index_cast %size_n32 : i32 to index
  %x = memref.alloc() : memref<32xf64>
  %cst = arith.constant 0.000000e+00 : f64
  affine.for %i = 0 to %1 {
    %2 = affine.load %y[%i] : memref<32xf64>
    %3 = arith.maximumf %alpha, %2 : f64
    %4 = affine.load %z[%i] : memref<32xf64>
    %5 = math.absf %4 : f64
    %6 = math.sqrt %5 : f64
    %7 = arith.addf %3, %6 : f64
    affine.store %7, %x[%i] : memref<32xf64>
  }
  affine.for %i = 0 to %0 {
    affine.store %cst, %u[%i] : memref<64xf64>
    affine.for %j = 0 to %1 {
      %8 = affine.load %A[%i, %j] : memref<64x32xf64>
      %9 = affine.load %u[%i] : memref<64xf64>
      %10 = arith.addf %9, %8 : f64
      affine.store %10, %u[%i] : memref<64xf64>
    }
  }
  affine.for %i = 0 to #map()[%0] {
    affine.for %j = 1 to %1 {
      affine.for %k = 0 to %1 {
        %11 = affine.load %z[%k] : memref<32xf64>
        affine.store %11, %B[%i, %j, %k] : memref<64x32x32xf64>
      }
    }
  }
  return %x : memref<32xf64>
}
