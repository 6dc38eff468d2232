module {
  func.func @kernel_durbin_raised(%arg0: tensor<i32>, %arg1: tensor<2000xf64>, %arg2: tensor<2000xf64>) -> tensor<2000xf64> attributes {synth.all_sizes = "not applicable ('stablehlo.dynamic_slice' has no description at symbolic sizes)", synth.assumptions = ["the statements before the loop kept as a loop: raised and proven as a function of their own (the local scalars the loop carries made its arguments), at the same level", "where the original is ill-conditioned on an input set (it amplifies a 1e-12 relative move of its float inputs more than 1000 times, a 1e-6 move in f32 10 times) and the raised function differs, the set is tested again with its float inputs divided by the largest extent (durbin's recursion on a positive definite Toeplitz system), where the original is well-conditioned on that set", "the loop kept as a loop: its step proven on every input state (the arrays the step reads and writes) at every value of its counter, so the loop by induction on the counter; the whole loop tested"], synth.outputs = [2], synth.proof = "bounded sizes, every input symbolic, real arithmetic", synth.sizes_proven = [{arg0 = 2 : i64, counter = 1 : i64}, {arg0 = 3 : i64, counter = 1 : i64}, {arg0 = 3 : i64, counter = 2 : i64}], synth.validation = "z3"} {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<1xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<1xf64>
    %0 = stablehlo.slice %arg1 [0:1] : (tensor<2000xf64>) -> tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    %2 = stablehlo.negate %1 : tensor<f64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f64>) -> tensor<2000xf64>
    %4 = stablehlo.iota dim = 0 : tensor<2000xi64>
    %c = stablehlo.constant dense<0> : tensor<2000xi64>
    %5 = stablehlo.compare EQ, %4, %c : (tensor<2000xi64>, tensor<2000xi64>) -> tensor<2000xi1>
    %6 = stablehlo.select %5, %3, %arg2 : tensor<2000xi1>, tensor<2000xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %8 = stablehlo.iota dim = 0 : tensor<1xi64>
    %c_2 = stablehlo.constant dense<0> : tensor<1xi64>
    %9 = stablehlo.compare EQ, %8, %c_2 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %10 = stablehlo.select %9, %7, %cst_0 : tensor<1xi1>, tensor<1xf64>
    %11 = stablehlo.slice %arg1 [0:1] : (tensor<2000xf64>) -> tensor<1xf64>
    %12 = stablehlo.reshape %11 : (tensor<1xf64>) -> tensor<f64>
    %13 = stablehlo.negate %12 : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %15 = stablehlo.iota dim = 0 : tensor<1xi64>
    %c_3 = stablehlo.constant dense<0> : tensor<1xi64>
    %16 = stablehlo.compare EQ, %15, %c_3 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %17 = stablehlo.select %16, %14, %cst : tensor<1xi1>, tensor<1xf64>
    %c_4 = stablehlo.constant dense<0> : tensor<i64>
    %18:6 = stablehlo.while(%iterArg = %c_4, %iterArg_5 = %6, %iterArg_6 = %17, %iterArg_7 = %10, %iterArg_8 = %arg0, %iterArg_9 = %arg1) : tensor<i64>, tensor<2000xf64>, tensor<1xf64>, tensor<1xf64>, tensor<i32>, tensor<2000xf64>
    cond {
      %c_10 = stablehlo.constant dense<1999> : tensor<i64>
      %19 = stablehlo.compare LT, %iterArg, %c_10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %19 : tensor<i1>
    } do {
      %c_10 = stablehlo.constant dense<1> : tensor<i64>
      %19 = stablehlo.add %iterArg, %c_10 : tensor<i64>
      %20 = stablehlo.slice %iterArg_5 [0:1999] : (tensor<2000xf64>) -> tensor<1999xf64>
      %21 = stablehlo.dynamic_slice %iterArg_9, %19, sizes = [1] : (tensor<2000xf64>, tensor<i64>) -> tensor<1xf64>
      %22 = stablehlo.reshape %21 : (tensor<1xf64>) -> tensor<f64>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %23 = stablehlo.pad %iterArg_9, %cst_11, low = [2000], high = [2000], interior = [0] : (tensor<2000xf64>, tensor<f64>) -> tensor<6000xf64>
      %24 = stablehlo.reverse %23, dims = [0] : tensor<6000xf64>
      %c_12 = stablehlo.constant dense<4000> : tensor<i64>
      %25 = stablehlo.subtract %c_12, %19 : tensor<i64>
      %26 = stablehlo.dynamic_slice %24, %25, sizes = [2000] : (tensor<6000xf64>, tensor<i64>) -> tensor<2000xf64>
      %27 = stablehlo.slice %26 [0:1999] : (tensor<2000xf64>) -> tensor<1999xf64>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %28 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f64>) -> tensor<1999xf64>
      %29 = stablehlo.iota dim = 0 : tensor<1999xi64>
      %30 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<i64>) -> tensor<1999xi64>
      %31 = stablehlo.compare LT, %29, %30 : (tensor<1999xi64>, tensor<1999xi64>) -> tensor<1999xi1>
      %32 = stablehlo.select %31, %27, %28 : tensor<1999xi1>, tensor<1999xf64>
      %33 = stablehlo.slice %iterArg_5 [0:1999] : (tensor<2000xf64>) -> tensor<1999xf64>
      %34 = stablehlo.dot_general %32, %33, contracting_dims = [0] x [0] : (tensor<1999xf64>, tensor<1999xf64>) -> tensor<f64>
      %35 = stablehlo.add %22, %34 : tensor<f64>
      %36 = stablehlo.negate %35 : tensor<f64>
      %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %37 = stablehlo.slice %iterArg_6 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %38 = stablehlo.reshape %37 : (tensor<1xf64>) -> tensor<f64>
      %39 = stablehlo.multiply %38, %38 : tensor<f64>
      %40 = stablehlo.subtract %cst_14, %39 : tensor<f64>
      %41 = stablehlo.slice %iterArg_7 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %42 = stablehlo.reshape %41 : (tensor<1xf64>) -> tensor<f64>
      %43 = stablehlo.multiply %40, %42 : tensor<f64>
      %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f64>) -> tensor<1xf64>
      %45 = stablehlo.iota dim = 0 : tensor<1xi64>
      %c_15 = stablehlo.constant dense<0> : tensor<1xi64>
      %46 = stablehlo.compare EQ, %45, %c_15 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
      %47 = stablehlo.select %46, %44, %iterArg_7 : tensor<1xi1>, tensor<1xf64>
      %48 = stablehlo.slice %47 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %49 = stablehlo.reshape %48 : (tensor<1xf64>) -> tensor<f64>
      %50 = stablehlo.divide %36, %49 : tensor<f64>
      %51 = stablehlo.broadcast_in_dim %50, dims = [] : (tensor<f64>) -> tensor<1xf64>
      %52 = stablehlo.iota dim = 0 : tensor<1xi64>
      %c_16 = stablehlo.constant dense<0> : tensor<1xi64>
      %53 = stablehlo.compare EQ, %52, %c_16 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
      %54 = stablehlo.select %53, %51, %iterArg_6 : tensor<1xi1>, tensor<1xf64>
      %55 = stablehlo.slice %54 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %56 = stablehlo.reshape %55 : (tensor<1xf64>) -> tensor<f64>
      %57 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f64>) -> tensor<1999xf64>
      %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %58 = stablehlo.pad %iterArg_5, %cst_17, low = [2000], high = [2000], interior = [0] : (tensor<2000xf64>, tensor<f64>) -> tensor<6000xf64>
      %59 = stablehlo.reverse %58, dims = [0] : tensor<6000xf64>
      %c_18 = stablehlo.constant dense<4000> : tensor<i64>
      %60 = stablehlo.subtract %c_18, %19 : tensor<i64>
      %61 = stablehlo.dynamic_slice %59, %60, sizes = [2000] : (tensor<6000xf64>, tensor<i64>) -> tensor<2000xf64>
      %62 = stablehlo.slice %61 [0:1999] : (tensor<2000xf64>) -> tensor<1999xf64>
      %63 = stablehlo.multiply %57, %62 : tensor<1999xf64>
      %64 = stablehlo.add %20, %63 : tensor<1999xf64>
      %65 = stablehlo.slice %iterArg_5 [0:1999] : (tensor<2000xf64>) -> tensor<1999xf64>
      %66 = stablehlo.iota dim = 0 : tensor<1999xi64>
      %67 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<i64>) -> tensor<1999xi64>
      %68 = stablehlo.compare LT, %66, %67 : (tensor<1999xi64>, tensor<1999xi64>) -> tensor<1999xi1>
      %69 = stablehlo.select %68, %64, %65 : tensor<1999xi1>, tensor<1999xf64>
      %c_19 = stablehlo.constant dense<0> : tensor<i64>
      %70 = stablehlo.dynamic_update_slice %iterArg_5, %69, %c_19 : (tensor<2000xf64>, tensor<1999xf64>, tensor<i64>) -> tensor<2000xf64>
      %71 = stablehlo.slice %54 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %72 = stablehlo.reshape %71 : (tensor<1xf64>) -> tensor<f64>
      %73 = stablehlo.reshape %72 : (tensor<f64>) -> tensor<1xf64>
      %74 = stablehlo.dynamic_update_slice %70, %73, %19 : (tensor<2000xf64>, tensor<1xf64>, tensor<i64>) -> tensor<2000xf64>
      %c_20 = stablehlo.constant dense<1> : tensor<i64>
      %75 = stablehlo.add %iterArg, %c_20 : tensor<i64>
      stablehlo.return %75, %74, %54, %47, %iterArg_8, %iterArg_9 : tensor<i64>, tensor<2000xf64>, tensor<1xf64>, tensor<1xf64>, tensor<i32>, tensor<2000xf64>
    }
    return %18#1 : tensor<2000xf64>
  }
  func.func @kernel_durbin(%arg0: i32, %arg1: memref<2000xf64>, %arg2: memref<2000xf64>) {
    %from_elements = tensor.from_elements %arg0 : tensor<i32>
    %0 = bufferization.to_tensor %arg1 restrict : memref<2000xf64> to tensor<2000xf64>
    %1 = bufferization.to_tensor %arg2 restrict : memref<2000xf64> to tensor<2000xf64>
    %2 = call @kernel_durbin_raised(%from_elements, %0, %1) : (tensor<i32>, tensor<2000xf64>, tensor<2000xf64>) -> tensor<2000xf64>
    bufferization.materialize_in_destination %2 in restrict writable %arg2 : (tensor<2000xf64>, memref<2000xf64>) -> ()
    return
  }
}
