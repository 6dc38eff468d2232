// fuzz: {"kind": "hang", "target": "stablehlo", "seed": 1000, "program": 910, "sizes": {"0": 32}, "timeout": 20.0, "mutation": null}
// failed: hang (stablehlo): synth raise ran past 120 s
// expected: synth raise finishes within 3 x --timeout + 60 s (search, then Z3 with --z3-timeout = --timeout)
// shrunk: 12 -> 12 parts in 4 tries, 12 s (scripts/fuzz.py --seed 1000, program 910)
// reproduce: python -m synth.cli raise tests/data/fuzz/hang_1000_910.mlir --target stablehlo --timeout 20 -o out.mlir
//            python scripts/fuzz.py --check tests/data/fuzz/hang_1000_910.mlir
#set = affine_set<(d0, d1) : (d0 - d1 >= 0)>
func.func @fuzz_910(%size_n32: i32, %x: memref<32xf32>, %A: memref<32x32xf32>, %B: memref<32x32x32xf32>) -> f32 {
  %0 = arith.index_cast %size_n32 : i32 to index
  %res = memref.alloca() : memref<f32>
  %cst_f32 = arith.constant 0.000000e+00 : f32
  affine.store %cst_f32, %res[] : memref<f32>
  affine.for %i = 0 to %0 {
    %1 = affine.load %x[%i] : memref<32xf32>
    %2 = affine.load %x[%i] : memref<32xf32>
    %3 = arith.mulf %1, %2 : f32
    %4 = math.sqrt %3 : f32
    %5 = affine.load %res[] : memref<f32>
    %6 = arith.minimumf %5, %4 : f32
    affine.store %6, %res[] : memref<f32>
  }
  %7 = affine.load %res[] : memref<f32>
  affine.for %i = 0 to %0 {
    affine.for %j = 0 to %0 {
      affine.if #set(%j, %i) {
        %8 = affine.load %B[31, %i, %j] : memref<32x32x32xf32>
        affine.store %8, %A[%i, %j] : memref<32x32xf32>
      }
    }
  }
  return %7 : f32
}
