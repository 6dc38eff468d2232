// fuzz: {"kind": "crash", "target": "stablehlo", "seed": 4, "program": 38, "sizes": {"0": 48, "1": 16}, "timeout": 20.0, "mutation": null}
// failed: crash (stablehlo): synth raise exit 1: ValueError: -inf has no real-number value in z3
// expected: synth raise exits 0, 2 or 3 without a traceback
// shrunk: 10 -> 3 parts in 1 tries, 2 s (scripts/fuzz.py --seed 4, program 38)
// reproduce: python -m synth.cli raise tests/data/fuzz/crash_4_38.mlir --target stablehlo --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/crash_4_38.mlir
func.func @fuzz_38(%size_n48: i32, %size_n16: i32, %x: memref<48xf64>, %z: memref<16xf64>) {
  %0 = arith.index_cast %size_n48 : i32 to index
  %1 = arith.index_cast %size_n16 : i32 to index
  %cst = arith.constant 0xFFF0000000000000 : f64
  affine.for %i = 0 to %1 {
    %2 = affine.for %j = 0 to %0 iter_args(%acc = %cst) -> (f64) {
      %3 = affine.load %x[%j] : memref<48xf64>
      %4 = arith.maximumf %acc, %3 : f64
      affine.yield %4 : f64
    }
    affine.store %2, %z[%i] : memref<16xf64>
  }
  return
}
