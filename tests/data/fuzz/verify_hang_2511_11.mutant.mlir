// fuzz mutant (dims) of verify_hang_2511_11.mlir: synth verify finishes on the mutant (or on the raised output)
// reproduce: python -m synth.cli verify tests/data/fuzz/verify_hang_2511_11.mlir tests/data/fuzz/verify_hang_2511_11.mutant.mlir
module {
  func.func @fuzz_11_raised(%arg0: tensor<32xf64>, %arg1: tensor<32x32x24xf64>) -> tensor<32xf64> attributes {synth.outputs = [0], synth.proof = "all sizes: n24, n32 >= 1 with every access of the original within its array (10 constraints); every input symbolic, real arithmetic", synth.validation = "all"} {
    %cst = arith.constant 0.000000e+00 : f64
    %0 = tensor.empty() : tensor<32x32xf64>
    %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<32x32xf64>) -> tensor<32x32xf64>
    %reduced = linalg.reduce ins(%arg1 : tensor<32x32x24xf64>) outs(%1 : tensor<32x32xf64>) dimensions = [2] 
      (%in: f64, %init: f64) {
        %9 = arith.addf %in, %init : f64
        linalg.yield %9 : f64
      }
    %2 = tensor.empty() : tensor<32xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<32xf64>) -> tensor<32xf64>
    %reduced_0 = linalg.reduce ins(%reduced : tensor<32x32xf64>) outs(%3 : tensor<32xf64>) dimensions = [0] 
      (%in: f64, %init: f64) {
        %9 = arith.addf %in, %init : f64
        linalg.yield %9 : f64
      }
    %4 = tensor.empty() : tensor<f64>
    %5 = linalg.fill ins(%cst : f64) outs(%4 : tensor<f64>) -> tensor<f64>
    %reduced_1 = linalg.reduce ins(%reduced_0 : tensor<32xf64>) outs(%5 : tensor<f64>) dimensions = [0] 
      (%in: f64, %init: f64) {
        %9 = arith.addf %in, %init : f64
        linalg.yield %9 : f64
      }
    %6 = tensor.empty() : tensor<32xf64>
    %broadcasted = linalg.broadcast ins(%reduced_1 : tensor<f64>) outs(%6 : tensor<32xf64>) dimensions = [0] 
    %7 = tensor.empty() : tensor<32xf64>
    %8 = linalg.add ins(%arg0, %broadcasted : tensor<32xf64>, tensor<32xf64>) outs(%7 : tensor<32xf64>) -> tensor<32xf64>
    return %8 : tensor<32xf64>
  }
  func.func @fuzz_11(%arg0: memref<32xf64>, %arg1: memref<32x32x24xf64>) {
    %0 = bufferization.to_tensor %arg0 restrict : memref<32xf64> to tensor<32xf64>
    %1 = bufferization.to_tensor %arg1 restrict : memref<32x32x24xf64> to tensor<32x32x24xf64>
    %2 = call @fuzz_11_raised(%0, %1) : (tensor<32xf64>, tensor<32x32x24xf64>) -> tensor<32xf64>
    bufferization.materialize_in_destination %2 in restrict writable %arg0 : (tensor<32xf64>, memref<32xf64>) -> ()
    return
  }
}
