module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_deriche(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: memref<?x2160xf64>, %arg4: memref<?x2160xf64>, %arg5: memref<?x2160xf64>, %arg6: memref<?x2160xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e+00 : f64
    %cst_1 = arith.constant 2.000000e+00 : f64
    %cst_2 = arith.constant -2.000000e+00 : f64
    %0 = arith.negf %arg2 : f64
    %1 = math.exp %0 : f64
    %2 = arith.subf %cst_0, %1 : f64
    %3 = arith.mulf %2, %2 : f64
    %4 = arith.mulf %arg2, %cst_1 : f64
    %5 = arith.mulf %4, %1 : f64
    %6 = arith.addf %5, %cst_0 : f64
    %7 = math.exp %4 : f64
    %8 = arith.subf %6, %7 : f64
    %9 = arith.divf %3, %8 : f64
    %10 = arith.mulf %9, %1 : f64
    %11 = arith.subf %arg2, %cst_0 : f64
    %12 = arith.mulf %10, %11 : f64
    %13 = arith.addf %arg2, %cst_0 : f64
    %14 = arith.mulf %10, %13 : f64
    %15 = arith.negf %9 : f64
    %16 = arith.mulf %arg2, %cst_2 : f64
    %17 = math.exp %16 : f64
    %18 = arith.mulf %15, %17 : f64
    %19 = math.powf %cst_1, %0 : f64
    %20 = arith.negf %17 : f64
    affine.for %arg7 = 0 to 4096 {
      %21:3 = affine.for %arg8 = 0 to 2160 iter_args(%arg9 = %cst, %arg10 = %cst, %arg11 = %cst) -> (f64, f64, f64) {
        %22 = affine.load %arg3[%arg7, %arg8] : memref<?x2160xf64>
        %23 = arith.mulf %9, %22 : f64
        %24 = arith.mulf %12, %arg11 : f64
        %25 = arith.addf %23, %24 : f64
        %26 = arith.mulf %19, %arg9 : f64
        %27 = arith.addf %25, %26 : f64
        %28 = arith.mulf %20, %arg10 : f64
        %29 = arith.addf %27, %28 : f64
        affine.store %29, %arg5[%arg7, %arg8] : memref<?x2160xf64>
        %30 = affine.load %arg5[%arg7, %arg8] : memref<?x2160xf64>
        affine.yield %30, %arg9, %22 : f64, f64, f64
      }
    }
    affine.for %arg7 = 0 to 4096 {
      %21:4 = affine.for %arg8 = 0 to 2160 iter_args(%arg9 = %cst, %arg10 = %cst, %arg11 = %cst, %arg12 = %cst) -> (f64, f64, f64, f64) {
        %22 = arith.mulf %14, %arg11 : f64
        %23 = arith.mulf %18, %arg12 : f64
        %24 = arith.addf %22, %23 : f64
        %25 = arith.mulf %19, %arg9 : f64
        %26 = arith.addf %24, %25 : f64
        %27 = arith.mulf %20, %arg10 : f64
        %28 = arith.addf %26, %27 : f64
        affine.store %28, %arg6[%arg7, -%arg8 + 2159] : memref<?x2160xf64>
        %29 = affine.load %arg3[%arg7, -%arg8 + 2159] : memref<?x2160xf64>
        %30 = affine.load %arg6[%arg7, -%arg8 + 2159] : memref<?x2160xf64>
        affine.yield %30, %arg9, %29, %arg11 : f64, f64, f64, f64
      }
    }
    affine.for %arg7 = 0 to 4096 {
      affine.for %arg8 = 0 to 2160 {
        %21 = affine.load %arg5[%arg7, %arg8] : memref<?x2160xf64>
        %22 = affine.load %arg6[%arg7, %arg8] : memref<?x2160xf64>
        %23 = arith.addf %21, %22 : f64
        affine.store %23, %arg4[%arg7, %arg8] : memref<?x2160xf64>
      }
    }
    affine.for %arg7 = 0 to 2160 {
      %21:3 = affine.for %arg8 = 0 to 4096 iter_args(%arg9 = %cst, %arg10 = %cst, %arg11 = %cst) -> (f64, f64, f64) {
        %22 = affine.load %arg4[%arg8, %arg7] : memref<?x2160xf64>
        %23 = arith.mulf %9, %22 : f64
        %24 = arith.mulf %12, %arg9 : f64
        %25 = arith.addf %23, %24 : f64
        %26 = arith.mulf %19, %arg10 : f64
        %27 = arith.addf %25, %26 : f64
        %28 = arith.mulf %20, %arg11 : f64
        %29 = arith.addf %27, %28 : f64
        affine.store %29, %arg5[%arg8, %arg7] : memref<?x2160xf64>
        %30 = affine.load %arg5[%arg8, %arg7] : memref<?x2160xf64>
        affine.yield %22, %30, %arg10 : f64, f64, f64
      }
    }
    affine.for %arg7 = 0 to 2160 {
      %21:4 = affine.for %arg8 = 0 to 4096 iter_args(%arg9 = %cst, %arg10 = %cst, %arg11 = %cst, %arg12 = %cst) -> (f64, f64, f64, f64) {
        %22 = arith.mulf %14, %arg9 : f64
        %23 = arith.mulf %18, %arg10 : f64
        %24 = arith.addf %22, %23 : f64
        %25 = arith.mulf %19, %arg11 : f64
        %26 = arith.addf %24, %25 : f64
        %27 = arith.mulf %20, %arg12 : f64
        %28 = arith.addf %26, %27 : f64
        affine.store %28, %arg6[-%arg8 + 4095, %arg7] : memref<?x2160xf64>
        %29 = affine.load %arg4[-%arg8 + 4095, %arg7] : memref<?x2160xf64>
        %30 = affine.load %arg6[-%arg8 + 4095, %arg7] : memref<?x2160xf64>
        affine.yield %29, %arg9, %30, %arg11 : f64, f64, f64, f64
      }
    }
    affine.for %arg7 = 0 to 4096 {
      affine.for %arg8 = 0 to 2160 {
        %21 = affine.load %arg5[%arg7, %arg8] : memref<?x2160xf64>
        %22 = affine.load %arg6[%arg7, %arg8] : memref<?x2160xf64>
        %23 = arith.addf %21, %22 : f64
        affine.store %23, %arg4[%arg7, %arg8] : memref<?x2160xf64>
      }
    }
    return
  }
}
