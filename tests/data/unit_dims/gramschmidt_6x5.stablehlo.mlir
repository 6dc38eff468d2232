// gramschmidt as synth raises it to stablehlo (PolyBench's kernel), at 6 x 5 instead of
// LARGE's 1000 x 1200: the raise of a PolyBench LARGE run with the sizes replaced
// (1000 -> 6, 1200 -> 5, 1199 -> 4). Its step reads column k as a 6 x 1 slice reshaped.
module {
  func.func @f(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<6x5xf64>, %arg3: tensor<5x5xf64>, %arg4: tensor<6x5xf64>) -> (tensor<6x5xf64>, tensor<5x5xf64>, tensor<6x5xf64>) attributes {synth.outputs = [2, 3, 4]} {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg2, %c_0, %c, sizes = [6, 1] : (tensor<6x5xf64>, tensor<i64>, tensor<i64>) -> tensor<6x1xf64>
    %1 = stablehlo.reshape %0 : (tensor<6x1xf64>) -> tensor<6xf64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.dynamic_slice %arg3, %c_1, %c, sizes = [5, 1] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<5x1xf64>
    %3 = stablehlo.reshape %2 : (tensor<5x1xf64>) -> tensor<5xf64>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %4:8 = stablehlo.while(%iterArg = %c_2, %iterArg_3 = %arg2, %iterArg_4 = %arg3, %iterArg_5 = %arg4, %iterArg_6 = %arg0, %iterArg_7 = %arg1, %iterArg_8 = %1, %iterArg_9 = %3) : tensor<i64>, tensor<6x5xf64>, tensor<5x5xf64>, tensor<6x5xf64>, tensor<i32>, tensor<i32>, tensor<6xf64>, tensor<5xf64>
    cond {
      %c_10 = stablehlo.constant dense<5> : tensor<i64>
      %5 = stablehlo.compare LT, %iterArg, %c_10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = stablehlo.slice %iterArg_3 [0:6, 1:5] : (tensor<6x5xf64>) -> tensor<6x4xf64>
      %6 = stablehlo.dot_general %iterArg_8, %iterArg_8, contracting_dims = [0] x [0] : (tensor<6xf64>, tensor<6xf64>) -> tensor<f64>
      %7 = stablehlo.sqrt %6 : tensor<f64>
      %8 = stablehlo.reshape %7 : (tensor<f64>) -> tensor<1xf64>
      %9 = stablehlo.dynamic_update_slice %iterArg_9, %8, %iterArg : (tensor<5xf64>, tensor<1xf64>, tensor<i64>) -> tensor<5xf64>
      %10 = stablehlo.reshape %9 : (tensor<5xf64>) -> tensor<5x1xf64>
      %c_10 = stablehlo.constant dense<0> : tensor<i64>
      %11 = stablehlo.dynamic_update_slice %iterArg_4, %10, %c_10, %iterArg : (tensor<5x5xf64>, tensor<5x1xf64>, tensor<i64>, tensor<i64>) -> tensor<5x5xf64>
      %c_11 = stablehlo.constant dense<0> : tensor<i64>
      %12 = stablehlo.dynamic_slice %11, %c_11, %iterArg, sizes = [5, 1] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<5x1xf64>
      %13 = stablehlo.reshape %12 : (tensor<5x1xf64>) -> tensor<5xf64>
      %14 = stablehlo.dynamic_slice %13, %iterArg, sizes = [1] : (tensor<5xf64>, tensor<i64>) -> tensor<1xf64>
      %15 = stablehlo.reshape %14 : (tensor<1xf64>) -> tensor<f64>
      %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f64>) -> tensor<6xf64>
      %17 = stablehlo.divide %iterArg_8, %16 : tensor<6xf64>
      %18 = stablehlo.reshape %17 : (tensor<6xf64>) -> tensor<6x1xf64>
      %c_12 = stablehlo.constant dense<0> : tensor<i64>
      %19 = stablehlo.dynamic_update_slice %iterArg_5, %18, %c_12, %iterArg : (tensor<6x5xf64>, tensor<6x1xf64>, tensor<i64>, tensor<i64>) -> tensor<6x5xf64>
      %c_13 = stablehlo.constant dense<0> : tensor<i64>
      %20 = stablehlo.dynamic_slice %19, %c_13, %iterArg, sizes = [6, 1] : (tensor<6x5xf64>, tensor<i64>, tensor<i64>) -> tensor<6x1xf64>
      %21 = stablehlo.reshape %20 : (tensor<6x1xf64>) -> tensor<6xf64>
      %22 = stablehlo.broadcast_in_dim %21, dims = [0] : (tensor<6xf64>) -> tensor<6x4xf64>
      %c_14 = stablehlo.constant dense<0> : tensor<i64>
      %23 = stablehlo.dynamic_slice %11, %iterArg, %c_14, sizes = [1, 5] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<1x5xf64>
      %24 = stablehlo.reshape %23 : (tensor<1x5xf64>) -> tensor<5xf64>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %25 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4xf64>
      %c_15 = stablehlo.constant dense<0> : tensor<i64>
      %26 = stablehlo.dynamic_slice %11, %iterArg, %c_15, sizes = [1, 5] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<1x5xf64>
      %27 = stablehlo.reshape %26 : (tensor<1x5xf64>) -> tensor<5xf64>
      %28 = stablehlo.slice %27 [1:5] : (tensor<5xf64>) -> tensor<4xf64>
      %29 = stablehlo.iota dim = 0 : tensor<4xi64>
      %30 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %31 = stablehlo.compare GE, %29, %30 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
      %32 = stablehlo.select %31, %25, %28 : tensor<4xi1>, tensor<4xf64>
      %c_16 = stablehlo.constant dense<1> : tensor<i64>
      %33 = stablehlo.dynamic_update_slice %24, %32, %c_16 : (tensor<5xf64>, tensor<4xf64>, tensor<i64>) -> tensor<5xf64>
      %34 = stablehlo.reshape %33 : (tensor<5xf64>) -> tensor<1x5xf64>
      %c_17 = stablehlo.constant dense<0> : tensor<i64>
      %35 = stablehlo.dynamic_update_slice %11, %34, %iterArg, %c_17 : (tensor<5x5xf64>, tensor<1x5xf64>, tensor<i64>, tensor<i64>) -> tensor<5x5xf64>
      %c_18 = stablehlo.constant dense<0> : tensor<i64>
      %36 = stablehlo.dynamic_slice %35, %iterArg, %c_18, sizes = [1, 5] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<1x5xf64>
      %37 = stablehlo.reshape %36 : (tensor<1x5xf64>) -> tensor<5xf64>
      %c_19 = stablehlo.constant dense<0> : tensor<i64>
      %38 = stablehlo.dynamic_slice %35, %iterArg, %c_19, sizes = [1, 5] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<1x5xf64>
      %39 = stablehlo.reshape %38 : (tensor<1x5xf64>) -> tensor<5xf64>
      %40 = stablehlo.slice %39 [1:5] : (tensor<5xf64>) -> tensor<4xf64>
      %c_20 = stablehlo.constant dense<0> : tensor<i64>
      %41 = stablehlo.dynamic_slice %19, %c_20, %iterArg, sizes = [6, 1] : (tensor<6x5xf64>, tensor<i64>, tensor<i64>) -> tensor<6x1xf64>
      %42 = stablehlo.reshape %41 : (tensor<6x1xf64>) -> tensor<6xf64>
      %43 = stablehlo.dot_general %42, %iterArg_3, contracting_dims = [0] x [0] : (tensor<6xf64>, tensor<6x5xf64>) -> tensor<5xf64>
      %44 = stablehlo.slice %43 [1:5] : (tensor<5xf64>) -> tensor<4xf64>
      %45 = stablehlo.add %40, %44 : tensor<4xf64>
      %46 = stablehlo.iota dim = 0 : tensor<4xi64>
      %47 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<i64>) -> tensor<4xi64>
      %48 = stablehlo.compare GE, %46, %47 : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
      %49 = stablehlo.select %48, %45, %40 : tensor<4xi1>, tensor<4xf64>
      %c_21 = stablehlo.constant dense<1> : tensor<i64>
      %50 = stablehlo.dynamic_update_slice %37, %49, %c_21 : (tensor<5xf64>, tensor<4xf64>, tensor<i64>) -> tensor<5xf64>
      %51 = stablehlo.reshape %50 : (tensor<5xf64>) -> tensor<1x5xf64>
      %c_22 = stablehlo.constant dense<0> : tensor<i64>
      %52 = stablehlo.dynamic_update_slice %35, %51, %iterArg, %c_22 : (tensor<5x5xf64>, tensor<1x5xf64>, tensor<i64>, tensor<i64>) -> tensor<5x5xf64>
      %c_23 = stablehlo.constant dense<0> : tensor<i64>
      %53 = stablehlo.dynamic_slice %52, %iterArg, %c_23, sizes = [1, 5] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<1x5xf64>
      %54 = stablehlo.reshape %53 : (tensor<1x5xf64>) -> tensor<5xf64>
      %55 = stablehlo.slice %54 [1:5] : (tensor<5xf64>) -> tensor<4xf64>
      %56 = stablehlo.broadcast_in_dim %55, dims = [1] : (tensor<4xf64>) -> tensor<6x4xf64>
      %57 = stablehlo.multiply %22, %56 : tensor<6x4xf64>
      %58 = stablehlo.subtract %5, %57 : tensor<6x4xf64>
      %59 = stablehlo.iota dim = 1 : tensor<6x4xi64>
      %60 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<i64>) -> tensor<6x4xi64>
      %61 = stablehlo.compare GE, %59, %60 : (tensor<6x4xi64>, tensor<6x4xi64>) -> tensor<6x4xi1>
      %62 = stablehlo.select %61, %58, %5 : tensor<6x4xi1>, tensor<6x4xf64>
      %c_24 = stablehlo.constant dense<0> : tensor<i64>
      %c_25 = stablehlo.constant dense<1> : tensor<i64>
      %63 = stablehlo.dynamic_update_slice %iterArg_3, %62, %c_24, %c_25 : (tensor<6x5xf64>, tensor<6x4xf64>, tensor<i64>, tensor<i64>) -> tensor<6x5xf64>
      %c_26 = stablehlo.constant dense<1> : tensor<i64>
      %64 = stablehlo.add %iterArg, %c_26 : tensor<i64>
      %c_27 = stablehlo.constant dense<0> : tensor<i64>
      %65 = stablehlo.dynamic_slice %63, %c_27, %64, sizes = [6, 1] : (tensor<6x5xf64>, tensor<i64>, tensor<i64>) -> tensor<6x1xf64>
      %66 = stablehlo.reshape %65 : (tensor<6x1xf64>) -> tensor<6xf64>
      %c_28 = stablehlo.constant dense<0> : tensor<i64>
      %67 = stablehlo.dynamic_slice %52, %c_28, %64, sizes = [5, 1] : (tensor<5x5xf64>, tensor<i64>, tensor<i64>) -> tensor<5x1xf64>
      %68 = stablehlo.reshape %67 : (tensor<5x1xf64>) -> tensor<5xf64>
      stablehlo.return %64, %63, %52, %19, %iterArg_6, %iterArg_7, %66, %68 : tensor<i64>, tensor<6x5xf64>, tensor<5x5xf64>, tensor<6x5xf64>, tensor<i32>, tensor<i32>, tensor<6xf64>, tensor<5xf64>
    }
    return %4#1, %4#2, %4#3 : tensor<6x5xf64>, tensor<5x5xf64>, tensor<6x5xf64>
  }
}
