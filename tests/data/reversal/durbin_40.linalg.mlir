#map = affine_map<() -> (0)>
#map1 = affine_map<() -> ()>
#map2 = affine_map<(d0) -> (0)>
#map3 = affine_map<(d0) -> (d0)>
module {
  func.func @f(%arg0: tensor<i32>, %arg1: tensor<40xf64>, %arg2: tensor<40xf64>) -> tensor<40xf64> attributes {synth.outputs = [2]} {
    %cst = arith.constant 0.000000e+00 : f64
    %0 = tensor.empty() : tensor<1xf64>
    %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<1xf64>) -> tensor<1xf64>
    %2 = tensor.empty() : tensor<1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<1xf64>) -> tensor<1xf64>
    %4 = tensor.empty() : tensor<f64>
    %5 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%arg1 : tensor<40xf64>) outs(%4 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<f64>
    %6 = tensor.empty() : tensor<f64>
    %7 = linalg.negf ins(%5 : tensor<f64>) outs(%6 : tensor<f64>) -> tensor<f64>
    %8 = tensor.empty() : tensor<40xf64>
    %broadcasted = linalg.broadcast ins(%7 : tensor<f64>) outs(%8 : tensor<40xf64>) dimensions = [0] 
    %9 = tensor.empty() : tensor<1xf64>
    %10 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%broadcasted : tensor<40xf64>) outs(%9 : tensor<1xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<1xf64>
    %inserted_slice = tensor.insert_slice %10 into %arg2[0] [1] [1] : tensor<1xf64> into tensor<40xf64>
    %cst_0 = arith.constant 1.000000e+00 : f64
    %11 = tensor.empty() : tensor<f64>
    %12 = linalg.fill ins(%cst_0 : f64) outs(%11 : tensor<f64>) -> tensor<f64>
    %13 = tensor.empty() : tensor<1xf64>
    %broadcasted_1 = linalg.broadcast ins(%12 : tensor<f64>) outs(%13 : tensor<1xf64>) dimensions = [0] 
    %14 = tensor.empty() : tensor<1xf64>
    %15 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%broadcasted_1 : tensor<1xf64>) outs(%14 : tensor<1xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<1xf64>
    %inserted_slice_2 = tensor.insert_slice %15 into %3[0] [1] [1] : tensor<1xf64> into tensor<1xf64>
    %16 = tensor.empty() : tensor<f64>
    %17 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%arg1 : tensor<40xf64>) outs(%16 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<f64>
    %18 = tensor.empty() : tensor<f64>
    %19 = linalg.negf ins(%17 : tensor<f64>) outs(%18 : tensor<f64>) -> tensor<f64>
    %20 = tensor.empty() : tensor<1xf64>
    %broadcasted_3 = linalg.broadcast ins(%19 : tensor<f64>) outs(%20 : tensor<1xf64>) dimensions = [0] 
    %21 = tensor.empty() : tensor<1xf64>
    %22 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%broadcasted_3 : tensor<1xf64>) outs(%21 : tensor<1xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<1xf64>
    %inserted_slice_4 = tensor.insert_slice %22 into %1[0] [1] [1] : tensor<1xf64> into tensor<1xf64>
    %c0 = arith.constant 0 : index
    %c39 = arith.constant 39 : index
    %c1 = arith.constant 1 : index
    %23:3 = scf.for %arg3 = %c0 to %c39 step %c1 iter_args(%arg4 = %inserted_slice, %arg5 = %inserted_slice_4, %arg6 = %inserted_slice_2) -> (tensor<40xf64>, tensor<1xf64>, tensor<1xf64>) {
      %24 = arith.index_cast %arg3 : index to i64
      %c1_i64 = arith.constant 1 : i64
      %25 = arith.addi %24, %c1_i64 : i64
      %from_elements = tensor.from_elements %25 : tensor<i64>
      %extracted_slice = tensor.extract_slice %arg4[0] [39] [1] : tensor<40xf64> to tensor<39xf64>
      %extracted = tensor.extract %from_elements[] : tensor<i64>
      %26 = arith.index_cast %extracted : i64 to index
      %c0_5 = arith.constant 0 : index
      %27 = arith.maxsi %26, %c0_5 : index
      %c39_6 = arith.constant 39 : index
      %28 = arith.minsi %27, %c39_6 : index
      %extracted_slice_7 = tensor.extract_slice %arg1[%28] [1] [1] : tensor<40xf64> to tensor<f64>
      %extracted_8 = tensor.extract %from_elements[] : tensor<i64>
      %c-1_i64 = arith.constant -1 : i64
      %29 = arith.addi %extracted_8, %c-1_i64 : i64
      %c0_i64 = arith.constant 0 : i64
      %c39_i64 = arith.constant 39 : i64
      %c40_i64 = arith.constant 40 : i64
      %cst_9 = arith.constant 0.000000e+00 : f64
      %30 = tensor.empty() : tensor<40xf64>
      %31 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%30 : tensor<40xf64>) {
      ^bb0(%out: f64):
        %82 = linalg.index 0 : index
        %83 = arith.index_cast %82 : index to i64
        %84 = arith.subi %29, %83 : i64
        %85 = arith.cmpi sge, %84, %c0_i64 : i64
        %86 = arith.cmpi slt, %84, %c40_i64 : i64
        %87 = arith.andi %85, %86 : i1
        %88 = arith.maxsi %84, %c0_i64 : i64
        %89 = arith.minsi %88, %c39_i64 : i64
        %90 = arith.index_cast %89 : i64 to index
        %extracted_26 = tensor.extract %arg1[%90] : tensor<40xf64>
        %91 = arith.select %87, %extracted_26, %cst_9 : f64
        linalg.yield %91 : f64
      } -> tensor<40xf64>
      %extracted_slice_10 = tensor.extract_slice %31[0] [39] [1] : tensor<40xf64> to tensor<39xf64>
      %32 = tensor.empty() : tensor<39xf64>
      %33 = linalg.fill ins(%cst_9 : f64) outs(%32 : tensor<39xf64>) -> tensor<39xf64>
      %extracted_11 = tensor.extract %from_elements[] : tensor<i64>
      %34 = tensor.empty() : tensor<39xf64>
      %35 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%extracted_slice_10, %33 : tensor<39xf64>, tensor<39xf64>) outs(%34 : tensor<39xf64>) {
      ^bb0(%in: f64, %in_26: f64, %out: f64):
        %82 = linalg.index 0 : index
        %83 = arith.index_cast %82 : index to i64
        %84 = arith.cmpi slt, %83, %extracted_11 : i64
        %85 = arith.select %84, %in, %in_26 : f64
        linalg.yield %85 : f64
      } -> tensor<39xf64>
      %extracted_slice_12 = tensor.extract_slice %arg4[0] [39] [1] : tensor<40xf64> to tensor<39xf64>
      %36 = tensor.empty() : tensor<f64>
      %37 = linalg.fill ins(%cst_9 : f64) outs(%36 : tensor<f64>) -> tensor<f64>
      %38 = linalg.dot ins(%35, %extracted_slice_12 : tensor<39xf64>, tensor<39xf64>) outs(%37 : tensor<f64>) -> tensor<f64>
      %39 = tensor.empty() : tensor<f64>
      %40 = linalg.add ins(%extracted_slice_7, %38 : tensor<f64>, tensor<f64>) outs(%39 : tensor<f64>) -> tensor<f64>
      %41 = tensor.empty() : tensor<f64>
      %42 = linalg.negf ins(%40 : tensor<f64>) outs(%41 : tensor<f64>) -> tensor<f64>
      %cst_13 = arith.constant 1.000000e+00 : f64
      %43 = tensor.empty() : tensor<f64>
      %44 = linalg.fill ins(%cst_13 : f64) outs(%43 : tensor<f64>) -> tensor<f64>
      %45 = tensor.empty() : tensor<f64>
      %46 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%arg5 : tensor<1xf64>) outs(%45 : tensor<f64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<f64>
      %47 = tensor.empty() : tensor<f64>
      %48 = linalg.mul ins(%46, %46 : tensor<f64>, tensor<f64>) outs(%47 : tensor<f64>) -> tensor<f64>
      %49 = tensor.empty() : tensor<f64>
      %50 = linalg.sub ins(%44, %48 : tensor<f64>, tensor<f64>) outs(%49 : tensor<f64>) -> tensor<f64>
      %51 = tensor.empty() : tensor<f64>
      %52 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%arg6 : tensor<1xf64>) outs(%51 : tensor<f64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<f64>
      %53 = tensor.empty() : tensor<f64>
      %54 = linalg.mul ins(%50, %52 : tensor<f64>, tensor<f64>) outs(%53 : tensor<f64>) -> tensor<f64>
      %55 = tensor.empty() : tensor<1xf64>
      %broadcasted_14 = linalg.broadcast ins(%54 : tensor<f64>) outs(%55 : tensor<1xf64>) dimensions = [0] 
      %56 = tensor.empty() : tensor<1xf64>
      %57 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%broadcasted_14 : tensor<1xf64>) outs(%56 : tensor<1xf64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<1xf64>
      %inserted_slice_15 = tensor.insert_slice %57 into %arg6[0] [1] [1] : tensor<1xf64> into tensor<1xf64>
      %58 = tensor.empty() : tensor<f64>
      %59 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%inserted_slice_15 : tensor<1xf64>) outs(%58 : tensor<f64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<f64>
      %60 = tensor.empty() : tensor<f64>
      %61 = linalg.div ins(%42, %59 : tensor<f64>, tensor<f64>) outs(%60 : tensor<f64>) -> tensor<f64>
      %62 = tensor.empty() : tensor<1xf64>
      %broadcasted_16 = linalg.broadcast ins(%61 : tensor<f64>) outs(%62 : tensor<1xf64>) dimensions = [0] 
      %63 = tensor.empty() : tensor<1xf64>
      %64 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel"]} ins(%broadcasted_16 : tensor<1xf64>) outs(%63 : tensor<1xf64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<1xf64>
      %inserted_slice_17 = tensor.insert_slice %64 into %arg5[0] [1] [1] : tensor<1xf64> into tensor<1xf64>
      %65 = tensor.empty() : tensor<f64>
      %66 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%inserted_slice_17 : tensor<1xf64>) outs(%65 : tensor<f64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<f64>
      %67 = tensor.empty() : tensor<39xf64>
      %broadcasted_18 = linalg.broadcast ins(%66 : tensor<f64>) outs(%67 : tensor<39xf64>) dimensions = [0] 
      %extracted_19 = tensor.extract %from_elements[] : tensor<i64>
      %68 = arith.addi %extracted_19, %c-1_i64 : i64
      %69 = tensor.empty() : tensor<40xf64>
      %70 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel"]} outs(%69 : tensor<40xf64>) {
      ^bb0(%out: f64):
        %82 = linalg.index 0 : index
        %83 = arith.index_cast %82 : index to i64
        %84 = arith.subi %68, %83 : i64
        %85 = arith.cmpi sge, %84, %c0_i64 : i64
        %86 = arith.cmpi slt, %84, %c40_i64 : i64
        %87 = arith.andi %85, %86 : i1
        %88 = arith.maxsi %84, %c0_i64 : i64
        %89 = arith.minsi %88, %c39_i64 : i64
        %90 = arith.index_cast %89 : i64 to index
        %extracted_26 = tensor.extract %arg4[%90] : tensor<40xf64>
        %91 = arith.select %87, %extracted_26, %cst_9 : f64
        linalg.yield %91 : f64
      } -> tensor<40xf64>
      %extracted_slice_20 = tensor.extract_slice %70[0] [39] [1] : tensor<40xf64> to tensor<39xf64>
      %71 = tensor.empty() : tensor<39xf64>
      %72 = linalg.mul ins(%broadcasted_18, %extracted_slice_20 : tensor<39xf64>, tensor<39xf64>) outs(%71 : tensor<39xf64>) -> tensor<39xf64>
      %73 = tensor.empty() : tensor<39xf64>
      %74 = linalg.add ins(%extracted_slice, %72 : tensor<39xf64>, tensor<39xf64>) outs(%73 : tensor<39xf64>) -> tensor<39xf64>
      %extracted_slice_21 = tensor.extract_slice %arg4[0] [39] [1] : tensor<40xf64> to tensor<39xf64>
      %extracted_22 = tensor.extract %from_elements[] : tensor<i64>
      %75 = tensor.empty() : tensor<39xf64>
      %76 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%74, %extracted_slice_21 : tensor<39xf64>, tensor<39xf64>) outs(%75 : tensor<39xf64>) {
      ^bb0(%in: f64, %in_26: f64, %out: f64):
        %82 = linalg.index 0 : index
        %83 = arith.index_cast %82 : index to i64
        %84 = arith.cmpi slt, %83, %extracted_22 : i64
        %85 = arith.select %84, %in, %in_26 : f64
        linalg.yield %85 : f64
      } -> tensor<39xf64>
      %inserted_slice_23 = tensor.insert_slice %76 into %arg4[0] [39] [1] : tensor<39xf64> into tensor<40xf64>
      %77 = tensor.empty() : tensor<f64>
      %78 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = []} ins(%inserted_slice_17 : tensor<1xf64>) outs(%77 : tensor<f64>) {
      ^bb0(%in: f64, %out: f64):
        linalg.yield %in : f64
      } -> tensor<f64>
      %extracted_24 = tensor.extract %from_elements[] : tensor<i64>
      %79 = arith.index_cast %extracted_24 : i64 to index
      %80 = arith.maxsi %79, %c0_5 : index
      %81 = arith.minsi %80, %c39_6 : index
      %inserted_slice_25 = tensor.insert_slice %78 into %inserted_slice_23[%81] [1] [1] : tensor<f64> into tensor<40xf64>
      scf.yield %inserted_slice_25, %inserted_slice_17, %inserted_slice_15 : tensor<40xf64>, tensor<1xf64>, tensor<1xf64>
    }
    return %23#0 : tensor<40xf64>
  }
}
