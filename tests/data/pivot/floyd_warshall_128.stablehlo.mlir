// PolyBench floyd-warshall as synth raised it to stablehlo (benchmarks/polybench, LARGE), its
// size 2800 replaced by 128: a loop that carries row and column k + 1 besides the matrix.
module {
  func.func @kernel_floyd_warshall_raised(%arg0: tensor<i32>, %arg1: tensor<128x128xi32>) -> tensor<128x128xi32> attributes {synth.outputs = [1]} {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.dynamic_slice %arg1, %c_0, %c, sizes = [128, 1] : (tensor<128x128xi32>, tensor<i64>, tensor<i64>) -> tensor<128x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<128x1xi32>) -> tensor<128xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %2 = stablehlo.dynamic_slice %arg1, %c, %c_1, sizes = [1, 128] : (tensor<128x128xi32>, tensor<i64>, tensor<i64>) -> tensor<1x128xi32>
    %3 = stablehlo.reshape %2 : (tensor<1x128xi32>) -> tensor<128xi32>
    %4 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %5 = stablehlo.reshape %4 : (tensor<1xi32>) -> tensor<i32>
    %6 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %7 = stablehlo.reshape %6 : (tensor<1xi32>) -> tensor<i32>
    %8 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %9 = stablehlo.reshape %8 : (tensor<1xi32>) -> tensor<i32>
    %10 = stablehlo.add %7, %9 : tensor<i32>
    %11 = stablehlo.minimum %5, %10 : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %13 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %14 = stablehlo.reshape %13 : (tensor<1xi32>) -> tensor<i32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %16 = stablehlo.iota dim = 0 : tensor<128xi64>
    %17 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<128xi64>
    %18 = stablehlo.compare GT, %16, %17 : (tensor<128xi64>, tensor<128xi64>) -> tensor<128xi1>
    %19 = stablehlo.select %18, %12, %15 : tensor<128xi1>, tensor<128xi32>
    %20 = stablehlo.add %1, %19 : tensor<128xi32>
    %21 = stablehlo.minimum %1, %20 : tensor<128xi32>
    %22 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %23 = stablehlo.reshape %22 : (tensor<1xi32>) -> tensor<i32>
    %24 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %25 = stablehlo.reshape %24 : (tensor<1xi32>) -> tensor<i32>
    %26 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %27 = stablehlo.reshape %26 : (tensor<1xi32>) -> tensor<i32>
    %28 = stablehlo.add %25, %27 : tensor<i32>
    %29 = stablehlo.minimum %23, %28 : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %31 = stablehlo.dynamic_slice %1, %c, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
    %32 = stablehlo.reshape %31 : (tensor<1xi32>) -> tensor<i32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<i32>) -> tensor<128xi32>
    %34 = stablehlo.iota dim = 0 : tensor<128xi64>
    %35 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<128xi64>
    %36 = stablehlo.compare GT, %34, %35 : (tensor<128xi64>, tensor<128xi64>) -> tensor<128xi1>
    %37 = stablehlo.select %36, %30, %33 : tensor<128xi1>, tensor<128xi32>
    %38 = stablehlo.add %37, %3 : tensor<128xi32>
    %39 = stablehlo.minimum %3, %38 : tensor<128xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %40:7 = stablehlo.while(%iterArg = %c_2, %iterArg_3 = %arg1, %iterArg_4 = %arg0, %iterArg_5 = %1, %iterArg_6 = %3, %iterArg_7 = %21, %iterArg_8 = %39) : tensor<i64>, tensor<128x128xi32>, tensor<i32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>
    cond {
      %c_9 = stablehlo.constant dense<128> : tensor<i64>
      %41 = stablehlo.compare LT, %iterArg, %c_9 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %41 : tensor<i1>
    } do {
      %41 = stablehlo.broadcast_in_dim %iterArg_7, dims = [0] : (tensor<128xi32>) -> tensor<128x128xi32>
      %42 = stablehlo.broadcast_in_dim %iterArg_5, dims = [0] : (tensor<128xi32>) -> tensor<128x128xi32>
      %43 = stablehlo.iota dim = 1 : tensor<128x128xi64>
      %44 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<i64>) -> tensor<128x128xi64>
      %45 = stablehlo.compare GT, %43, %44 : (tensor<128x128xi64>, tensor<128x128xi64>) -> tensor<128x128xi1>
      %46 = stablehlo.select %45, %41, %42 : tensor<128x128xi1>, tensor<128x128xi32>
      %47 = stablehlo.broadcast_in_dim %iterArg_8, dims = [1] : (tensor<128xi32>) -> tensor<128x128xi32>
      %48 = stablehlo.broadcast_in_dim %iterArg_6, dims = [1] : (tensor<128xi32>) -> tensor<128x128xi32>
      %49 = stablehlo.iota dim = 0 : tensor<128x128xi64>
      %50 = stablehlo.broadcast_in_dim %iterArg, dims = [] : (tensor<i64>) -> tensor<128x128xi64>
      %51 = stablehlo.compare GT, %49, %50 : (tensor<128x128xi64>, tensor<128x128xi64>) -> tensor<128x128xi1>
      %52 = stablehlo.select %51, %47, %48 : tensor<128x128xi1>, tensor<128x128xi32>
      %53 = stablehlo.add %46, %52 : tensor<128x128xi32>
      %54 = stablehlo.minimum %iterArg_3, %53 : tensor<128x128xi32>
      %c_9 = stablehlo.constant dense<1> : tensor<i64>
      %55 = stablehlo.add %iterArg, %c_9 : tensor<i64>
      %c_10 = stablehlo.constant dense<0> : tensor<i64>
      %56 = stablehlo.dynamic_slice %54, %c_10, %55, sizes = [128, 1] : (tensor<128x128xi32>, tensor<i64>, tensor<i64>) -> tensor<128x1xi32>
      %57 = stablehlo.reshape %56 : (tensor<128x1xi32>) -> tensor<128xi32>
      %c_11 = stablehlo.constant dense<0> : tensor<i64>
      %58 = stablehlo.dynamic_slice %54, %55, %c_11, sizes = [1, 128] : (tensor<128x128xi32>, tensor<i64>, tensor<i64>) -> tensor<1x128xi32>
      %59 = stablehlo.reshape %58 : (tensor<1x128xi32>) -> tensor<128xi32>
      %60 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %61 = stablehlo.reshape %60 : (tensor<1xi32>) -> tensor<i32>
      %62 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %63 = stablehlo.reshape %62 : (tensor<1xi32>) -> tensor<i32>
      %64 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %65 = stablehlo.reshape %64 : (tensor<1xi32>) -> tensor<i32>
      %66 = stablehlo.add %63, %65 : tensor<i32>
      %67 = stablehlo.minimum %61, %66 : tensor<i32>
      %68 = stablehlo.broadcast_in_dim %67, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %69 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %70 = stablehlo.reshape %69 : (tensor<1xi32>) -> tensor<i32>
      %71 = stablehlo.broadcast_in_dim %70, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %72 = stablehlo.iota dim = 0 : tensor<128xi64>
      %73 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<i64>) -> tensor<128xi64>
      %74 = stablehlo.compare GT, %72, %73 : (tensor<128xi64>, tensor<128xi64>) -> tensor<128xi1>
      %75 = stablehlo.select %74, %68, %71 : tensor<128xi1>, tensor<128xi32>
      %76 = stablehlo.add %57, %75 : tensor<128xi32>
      %77 = stablehlo.minimum %57, %76 : tensor<128xi32>
      %78 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %79 = stablehlo.reshape %78 : (tensor<1xi32>) -> tensor<i32>
      %80 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %81 = stablehlo.reshape %80 : (tensor<1xi32>) -> tensor<i32>
      %82 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %83 = stablehlo.reshape %82 : (tensor<1xi32>) -> tensor<i32>
      %84 = stablehlo.add %81, %83 : tensor<i32>
      %85 = stablehlo.minimum %79, %84 : tensor<i32>
      %86 = stablehlo.broadcast_in_dim %85, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %87 = stablehlo.dynamic_slice %57, %55, sizes = [1] : (tensor<128xi32>, tensor<i64>) -> tensor<1xi32>
      %88 = stablehlo.reshape %87 : (tensor<1xi32>) -> tensor<i32>
      %89 = stablehlo.broadcast_in_dim %88, dims = [] : (tensor<i32>) -> tensor<128xi32>
      %90 = stablehlo.iota dim = 0 : tensor<128xi64>
      %91 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<i64>) -> tensor<128xi64>
      %92 = stablehlo.compare GT, %90, %91 : (tensor<128xi64>, tensor<128xi64>) -> tensor<128xi1>
      %93 = stablehlo.select %92, %86, %89 : tensor<128xi1>, tensor<128xi32>
      %94 = stablehlo.add %93, %59 : tensor<128xi32>
      %95 = stablehlo.minimum %59, %94 : tensor<128xi32>
      stablehlo.return %55, %54, %iterArg_4, %57, %59, %77, %95 : tensor<i64>, tensor<128x128xi32>, tensor<i32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>, tensor<128xi32>
    }
    return %40#1 : tensor<128x128xi32>
  }
                                                                              
                                                             
                                                                                                
                                                                                                                               
                                                                                                                                 
          
   
}
