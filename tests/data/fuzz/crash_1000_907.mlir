// fuzz: {"kind": "crash", "target": "linalg", "seed": 1000, "program": 907, "sizes": {}, "timeout": 20.0, "mutation": null}
// failed: crash (linalg): synth raise exit 1: error: the MLIR worker crashed (exit code -11) while compiling or running @fuzz_907_part3: (no output)
// expected: synth raise exits 0, 2 or 3 without a traceback
// shrunk: 29 -> 5 parts in 25 tries, 203 s (scripts/fuzz.py --seed 1000, program 907)
// reproduce: python -m synth.cli raise tests/data/fuzz/crash_1000_907.mlir --target linalg --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/crash_1000_907.mlir
#map = affine_map<(d0) -> (d0)>
func.func @fuzz_907(%B: memref<24x24x24xf64>, %C: memref<24x24x24xf64>) {
  affine.for %i = 0 to 12 {
    affine.for %j = 1 to 23 {
      affine.for %k = #map(%i) to 24 {
        %0 = affine.load %C[%i + 12, %k, %j] : memref<24x24x24xf64>
        affine.store %0, %B[%i + 9, %j - 1, %k] : memref<24x24x24xf64>
      }
    }
  }
  return
}
