#map = affine_map<(d0) -> (d0)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<272>, dense<64> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<271>, dense<32> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_symm(%arg0: i32, %arg1: i32, %arg2: f64, %arg3: f64, %arg4: memref<1000x1200xf64>, %arg5: memref<1000x1000xf64>, %arg6: memref<1000x1200xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 0.000000e+00 : f64
    %alloca = memref.alloca() : memref<f64>
    %0 = llvm.mlir.undef : f64
    affine.store %0, %alloca[] : memref<f64>
    affine.for %arg7 = 0 to 1000 {
      affine.for %arg8 = 0 to 1200 {
        affine.store %cst, %alloca[] : memref<f64>
        affine.for %arg9 = 0 to #map(%arg7) {
          %11 = affine.load %arg6[%arg7, %arg8] : memref<1000x1200xf64>
          %12 = arith.mulf %arg2, %11 : f64
          %13 = affine.load %arg5[%arg7, %arg9] : memref<1000x1000xf64>
          %14 = arith.mulf %12, %13 : f64
          %15 = affine.load %arg4[%arg9, %arg8] : memref<1000x1200xf64>
          %16 = arith.addf %15, %14 : f64
          affine.store %16, %arg4[%arg9, %arg8] : memref<1000x1200xf64>
          %17 = affine.load %arg6[%arg9, %arg8] : memref<1000x1200xf64>
          %18 = affine.load %arg5[%arg7, %arg9] : memref<1000x1000xf64>
          %19 = arith.mulf %17, %18 : f64
          %20 = affine.load %alloca[] : memref<f64>
          %21 = arith.addf %20, %19 : f64
          affine.store %21, %alloca[] : memref<f64>
        }
        %1 = affine.load %arg4[%arg7, %arg8] : memref<1000x1200xf64>
        %2 = arith.mulf %arg3, %1 : f64
        %3 = affine.load %arg6[%arg7, %arg8] : memref<1000x1200xf64>
        %4 = arith.mulf %arg2, %3 : f64
        %5 = affine.load %arg5[%arg7, %arg7] : memref<1000x1000xf64>
        %6 = arith.mulf %4, %5 : f64
        %7 = arith.addf %2, %6 : f64
        %8 = affine.load %alloca[] : memref<f64>
        %9 = arith.mulf %arg2, %8 : f64
        %10 = arith.addf %7, %9 : f64
        affine.store %10, %arg4[%arg7, %arg8] : memref<1000x1200xf64>
      }
    }
    return
  }
}
