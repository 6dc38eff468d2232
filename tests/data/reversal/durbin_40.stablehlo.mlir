module {
  func.func @f(%arg0: tensor<i32>, %arg1: tensor<40xf64>, %arg2: tensor<40xf64>) -> tensor<40xf64> attributes {synth.outputs = [2]} {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<1xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<1xf64>
    %0 = stablehlo.slice %arg1 [0:1] : (tensor<40xf64>) -> tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    %2 = stablehlo.negate %1 : tensor<f64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f64>) -> tensor<40xf64>
    %4 = stablehlo.iota dim = 0 : tensor<40xi64>
    %c = stablehlo.constant dense<0> : tensor<40xi64>
    %5 = stablehlo.compare EQ, %4, %c : (tensor<40xi64>, tensor<40xi64>) -> tensor<40xi1>
    %6 = stablehlo.select %5, %3, %arg2 : tensor<40xi1>, tensor<40xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %8 = stablehlo.iota dim = 0 : tensor<1xi64>
    %c_2 = stablehlo.constant dense<0> : tensor<1xi64>
    %9 = stablehlo.compare EQ, %8, %c_2 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %10 = stablehlo.select %9, %7, %cst_0 : tensor<1xi1>, tensor<1xf64>
    %11 = stablehlo.slice %arg1 [0:1] : (tensor<40xf64>) -> tensor<1xf64>
    %12 = stablehlo.reshape %11 : (tensor<1xf64>) -> tensor<f64>
    %13 = stablehlo.negate %12 : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %15 = stablehlo.iota dim = 0 : tensor<1xi64>
    %c_3 = stablehlo.constant dense<0> : tensor<1xi64>
    %16 = stablehlo.compare EQ, %15, %c_3 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
    %17 = stablehlo.select %16, %14, %cst : tensor<1xi1>, tensor<1xf64>
    %c_4 = stablehlo.constant dense<0> : tensor<i64>
    %18:6 = stablehlo.while(%iterArg = %c_4, %iterArg_5 = %6, %iterArg_6 = %17, %iterArg_7 = %10, %iterArg_8 = %arg0, %iterArg_9 = %arg1) : tensor<i64>, tensor<40xf64>, tensor<1xf64>, tensor<1xf64>, tensor<i32>, tensor<40xf64>
    cond {
      %c_10 = stablehlo.constant dense<39> : tensor<i64>
      %19 = stablehlo.compare LT, %iterArg, %c_10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %19 : tensor<i1>
    } do {
      %c_10 = stablehlo.constant dense<1> : tensor<i64>
      %19 = stablehlo.add %iterArg, %c_10 : tensor<i64>
      %20 = stablehlo.slice %iterArg_5 [0:39] : (tensor<40xf64>) -> tensor<39xf64>
      %21 = stablehlo.dynamic_slice %iterArg_9, %19, sizes = [1] : (tensor<40xf64>, tensor<i64>) -> tensor<1xf64>
      %22 = stablehlo.reshape %21 : (tensor<1xf64>) -> tensor<f64>
      %23 = stablehlo.iota dim = 0 : tensor<40xi64>
      %c_11 = stablehlo.constant dense<-1> : tensor<i64>
      %24 = stablehlo.add %19, %c_11 : tensor<i64>
      %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<i64>) -> tensor<40xi64>
      %26 = stablehlo.subtract %25, %23 : tensor<40xi64>
      %c_12 = stablehlo.constant dense<0> : tensor<40xi64>
      %c_13 = stablehlo.constant dense<39> : tensor<40xi64>
      %c_14 = stablehlo.constant dense<40> : tensor<40xi64>
      %27 = stablehlo.compare GE, %26, %c_12 : (tensor<40xi64>, tensor<40xi64>) -> tensor<40xi1>
      %28 = stablehlo.compare LT, %26, %c_14 : (tensor<40xi64>, tensor<40xi64>) -> tensor<40xi1>
      %29 = stablehlo.and %27, %28 : tensor<40xi1>
      %30 = stablehlo.clamp %c_12, %26, %c_13 : tensor<40xi64>
      %31 = stablehlo.reshape %30 : (tensor<40xi64>) -> tensor<40x1xi64>
      %32 = "stablehlo.gather"(%iterArg_9, %31) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<40xf64>, tensor<40x1xi64>) -> tensor<40xf64>
      %33 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<40xi1>) -> tensor<40xi1>
      %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<40xf64>
      %34 = stablehlo.select %33, %32, %cst_15 : tensor<40xi1>, tensor<40xf64>
      %35 = stablehlo.slice %34 [0:39] : (tensor<40xf64>) -> tensor<39xf64>
      %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
      %36 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f64>) -> tensor<39xf64>
      %37 = stablehlo.iota dim = 0 : tensor<39xi64>
      %38 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<i64>) -> tensor<39xi64>
      %39 = stablehlo.compare LT, %37, %38 : (tensor<39xi64>, tensor<39xi64>) -> tensor<39xi1>
      %40 = stablehlo.select %39, %35, %36 : tensor<39xi1>, tensor<39xf64>
      %41 = stablehlo.slice %iterArg_5 [0:39] : (tensor<40xf64>) -> tensor<39xf64>
      %42 = stablehlo.dot_general %40, %41, contracting_dims = [0] x [0] : (tensor<39xf64>, tensor<39xf64>) -> tensor<f64>
      %43 = stablehlo.add %22, %42 : tensor<f64>
      %44 = stablehlo.negate %43 : tensor<f64>
      %cst_17 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
      %45 = stablehlo.slice %iterArg_6 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %46 = stablehlo.reshape %45 : (tensor<1xf64>) -> tensor<f64>
      %47 = stablehlo.multiply %46, %46 : tensor<f64>
      %48 = stablehlo.subtract %cst_17, %47 : tensor<f64>
      %49 = stablehlo.slice %iterArg_7 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %50 = stablehlo.reshape %49 : (tensor<1xf64>) -> tensor<f64>
      %51 = stablehlo.multiply %48, %50 : tensor<f64>
      %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f64>) -> tensor<1xf64>
      %53 = stablehlo.iota dim = 0 : tensor<1xi64>
      %c_18 = stablehlo.constant dense<0> : tensor<1xi64>
      %54 = stablehlo.compare EQ, %53, %c_18 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
      %55 = stablehlo.select %54, %52, %iterArg_7 : tensor<1xi1>, tensor<1xf64>
      %56 = stablehlo.slice %55 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %57 = stablehlo.reshape %56 : (tensor<1xf64>) -> tensor<f64>
      %58 = stablehlo.divide %44, %57 : tensor<f64>
      %59 = stablehlo.broadcast_in_dim %58, dims = [] : (tensor<f64>) -> tensor<1xf64>
      %60 = stablehlo.iota dim = 0 : tensor<1xi64>
      %c_19 = stablehlo.constant dense<0> : tensor<1xi64>
      %61 = stablehlo.compare EQ, %60, %c_19 : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
      %62 = stablehlo.select %61, %59, %iterArg_6 : tensor<1xi1>, tensor<1xf64>
      %63 = stablehlo.slice %62 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %64 = stablehlo.reshape %63 : (tensor<1xf64>) -> tensor<f64>
      %65 = stablehlo.broadcast_in_dim %64, dims = [] : (tensor<f64>) -> tensor<39xf64>
      %66 = stablehlo.iota dim = 0 : tensor<40xi64>
      %c_20 = stablehlo.constant dense<-1> : tensor<i64>
      %67 = stablehlo.add %19, %c_20 : tensor<i64>
      %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<i64>) -> tensor<40xi64>
      %69 = stablehlo.subtract %68, %66 : tensor<40xi64>
      %c_21 = stablehlo.constant dense<0> : tensor<40xi64>
      %c_22 = stablehlo.constant dense<39> : tensor<40xi64>
      %c_23 = stablehlo.constant dense<40> : tensor<40xi64>
      %70 = stablehlo.compare GE, %69, %c_21 : (tensor<40xi64>, tensor<40xi64>) -> tensor<40xi1>
      %71 = stablehlo.compare LT, %69, %c_23 : (tensor<40xi64>, tensor<40xi64>) -> tensor<40xi1>
      %72 = stablehlo.and %70, %71 : tensor<40xi1>
      %73 = stablehlo.clamp %c_21, %69, %c_22 : tensor<40xi64>
      %74 = stablehlo.reshape %73 : (tensor<40xi64>) -> tensor<40x1xi64>
      %75 = "stablehlo.gather"(%iterArg_5, %74) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<40xf64>, tensor<40x1xi64>) -> tensor<40xf64>
      %76 = stablehlo.broadcast_in_dim %72, dims = [0] : (tensor<40xi1>) -> tensor<40xi1>
      %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<40xf64>
      %77 = stablehlo.select %76, %75, %cst_24 : tensor<40xi1>, tensor<40xf64>
      %78 = stablehlo.slice %77 [0:39] : (tensor<40xf64>) -> tensor<39xf64>
      %79 = stablehlo.multiply %65, %78 : tensor<39xf64>
      %80 = stablehlo.add %20, %79 : tensor<39xf64>
      %81 = stablehlo.slice %iterArg_5 [0:39] : (tensor<40xf64>) -> tensor<39xf64>
      %82 = stablehlo.iota dim = 0 : tensor<39xi64>
      %83 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<i64>) -> tensor<39xi64>
      %84 = stablehlo.compare LT, %82, %83 : (tensor<39xi64>, tensor<39xi64>) -> tensor<39xi1>
      %85 = stablehlo.select %84, %80, %81 : tensor<39xi1>, tensor<39xf64>
      %c_25 = stablehlo.constant dense<0> : tensor<i64>
      %86 = stablehlo.dynamic_update_slice %iterArg_5, %85, %c_25 : (tensor<40xf64>, tensor<39xf64>, tensor<i64>) -> tensor<40xf64>
      %87 = stablehlo.slice %62 [0:1] : (tensor<1xf64>) -> tensor<1xf64>
      %88 = stablehlo.reshape %87 : (tensor<1xf64>) -> tensor<f64>
      %89 = stablehlo.reshape %88 : (tensor<f64>) -> tensor<1xf64>
      %90 = stablehlo.dynamic_update_slice %86, %89, %19 : (tensor<40xf64>, tensor<1xf64>, tensor<i64>) -> tensor<40xf64>
      %c_26 = stablehlo.constant dense<1> : tensor<i64>
      %91 = stablehlo.add %iterArg, %c_26 : tensor<i64>
      stablehlo.return %91, %90, %62, %55, %iterArg_8, %iterArg_9 : tensor<i64>, tensor<40xf64>, tensor<1xf64>, tensor<1xf64>, tensor<i32>, tensor<40xf64>
    }
    return %18#1 : tensor<40xf64>
  }
}
