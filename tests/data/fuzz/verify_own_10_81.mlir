// fuzz: {"kind": "verify_own", "target": "linalg", "seed": 10, "program": 81, "sizes": {}, "timeout": 20.0, "mutation": null}
// failed: verify_own (linalg): synth verify exits 2 on synth raise's own output: WORK/fuzz_81.orig.linalg.main.out.mlir: error: argument #1 of @fuzz_81_raised has shape [24, 2], the function expects tensor<2x2xf64>
// expected: synth verify says equivalent (exit 0) or undecided (3) on synth raise's own output
// shrunk: 11 -> 3 parts in 6 tries, 15 s (scripts/fuzz.py --seed 10, program 81)
// reproduce: python -m synth.cli raise tests/data/fuzz/verify_own_10_81.mlir --target linalg --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/verify_own_10_81.mlir
func.func @fuzz_81(%x: memref<24xf64>, %A: memref<24x24xf64>) {
  affine.for %i = 0 to 24 {
    %0 = affine.load %A[0, %i] : memref<24x24xf64>
    memref.store %0, %x[%i] : memref<24xf64>
  }
  return
}
