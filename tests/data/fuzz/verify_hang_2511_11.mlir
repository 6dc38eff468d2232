// fuzz: {"kind": "verify_hang", "target": "linalg", "seed": 2511, "program": 11, "sizes": {}, "timeout": 20.0, "mutation": "dims"}
// failed: verify_hang (linalg): synth verify on a dims mutant ran past 120 s
// expected: synth verify finishes on the mutant (or on the raised output)
// shrunk: 6 -> 6 parts in 0 tries, 0 s (scripts/fuzz.py --seed 2511, program 11)
// reproduce: python -m synth.cli raise tests/data/fuzz/verify_hang_2511_11.mlir --target linalg --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/verify_hang_2511_11.mlir
func.func @fuzz_11(%x: memref<32xf64>, %B: memref<32x32x24xf64>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      affine.for %k = 0 to 32 {
        affine.for %l = 0 to 24 {
          %0 = affine.load %B[%j, %k, %l] : memref<32x32x24xf64>
          %1 = affine.load %x[%i] : memref<32xf64>
          %2 = arith.addf %1, %0 : f64
          affine.store %2, %x[%i] : memref<32xf64>
        }
      }
    }
  }
  return
}
