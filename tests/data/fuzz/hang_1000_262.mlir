// fuzz: {"kind": "hang", "target": "stablehlo", "seed": 1000, "program": 262, "sizes": {}, "timeout": 20.0, "mutation": null}
// failed: hang (stablehlo): synth raise ran past 120 s
// expected: synth raise finishes within 3 x --timeout + 60 s (search, then Z3 with --z3-timeout = --timeout)
// shrunk: 5 -> 5 parts in 0 tries, 0 s (scripts/fuzz.py --seed 1000, program 262)
// reproduce: python -m synth.cli raise /tmp/fz1000/repro/hang_1000_262.mlir --target stablehlo --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check /tmp/fz1000/repro/hang_1000_262.mlir
func.func @fuzz_262(%A: memref<48x48xf64>, %B: memref<48x48x48xf64>) {
  affine.for %i = 0 to 48 {
    affine.for %j = 0 to 48 {
      affine.for %k = 0 to 48 {
        %0 = affine.load %B[%k, %j, 47] : memref<48x48x48xf64>
        %1 = affine.load %A[%i, %j] : memref<48x48xf64>
        %2 = arith.addf %1, %0 : f64
        affine.store %2, %A[%i, %j] : memref<48x48xf64>
      }
    }
  }
  return
}
