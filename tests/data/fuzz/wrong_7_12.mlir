// fuzz: {"kind": "wrong", "target": "stablehlo", "seed": 7, "program": 12, "sizes": {}, "timeout": 20.0, "mutation": null}
// failed: wrong (stablehlo): arg3[0]: raised np.float64(0.6065306597126334), original np.float64(-0.5)
// expected: synth raise refuses it (exit 2/3) or its output computes what the original does
// shrunk: 17 -> 11 parts in 15 tries, 32 s (scripts/fuzz.py --seed 7, program 12)
// reproduce: python -m synth.cli raise tests/data/fuzz/wrong_7_12.mlir --target stablehlo --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/wrong_7_12.mlir
func.func @fuzz_12(%y: memref<48xf64>, %z: memref<64xf64>, %u: memref<64xf64>, %v: memref<64xf64>) -> f64 {
  %cst = arith.constant 0xFFF0000000000000 : f64
  %cst_0 = arith.constant 2.000000e+00 : f64
  %0 = affine.for %i = 0 to 48 iter_args(%acc = %cst) -> (f64) {
    %1 = memref.load %y[%i] : memref<48xf64>
    %2 = math.exp %1 : f64
    %3 = arith.maximumf %acc, %2 : f64
    affine.yield %3 : f64
  }
  affine.for %i = 0 to 64 {
    %4 = memref.load %u[%i] : memref<64xf64>
    %5 = memref.load %v[%i] : memref<64xf64>
    %6 = math.exp %5 : f64
    %7 = memref.load %v[%i] : memref<64xf64>
    %8 = arith.cmpf olt, %4, %cst_0 : f64
    %9 = arith.select %8, %6, %7 : f64
    memref.store %9, %z[%i] : memref<64xf64>
  }
  return %0 : f64
}
