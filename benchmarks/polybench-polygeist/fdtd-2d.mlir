module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<272>, dense<64> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<271>, dense<32> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_fdtd_2d(%arg0: i32, %arg1: i32, %arg2: i32, %arg3: memref<1000x1200xf64>, %arg4: memref<1000x1200xf64>, %arg5: memref<1000x1200xf64>, %arg6: memref<500xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 5.000000e-01 : f64
    %cst_0 = arith.constant 0.69999999999999996 : f64
    affine.for %arg7 = 0 to 500 {
      affine.for %arg8 = 0 to 1200 {
        %0 = affine.load %arg6[%arg7] : memref<500xf64>
        affine.store %0, %arg4[0, %arg8] : memref<1000x1200xf64>
      }
      affine.for %arg8 = 1 to 1000 {
        affine.for %arg9 = 0 to 1200 {
          %0 = affine.load %arg4[%arg8, %arg9] : memref<1000x1200xf64>
          %1 = affine.load %arg5[%arg8, %arg9] : memref<1000x1200xf64>
          %2 = affine.load %arg5[%arg8 - 1, %arg9] : memref<1000x1200xf64>
          %3 = arith.subf %1, %2 : f64
          %4 = arith.mulf %3, %cst : f64
          %5 = arith.subf %0, %4 : f64
          affine.store %5, %arg4[%arg8, %arg9] : memref<1000x1200xf64>
        }
      }
      affine.for %arg8 = 0 to 1000 {
        affine.for %arg9 = 1 to 1200 {
          %0 = affine.load %arg3[%arg8, %arg9] : memref<1000x1200xf64>
          %1 = affine.load %arg5[%arg8, %arg9] : memref<1000x1200xf64>
          %2 = affine.load %arg5[%arg8, %arg9 - 1] : memref<1000x1200xf64>
          %3 = arith.subf %1, %2 : f64
          %4 = arith.mulf %3, %cst : f64
          %5 = arith.subf %0, %4 : f64
          affine.store %5, %arg3[%arg8, %arg9] : memref<1000x1200xf64>
        }
      }
      affine.for %arg8 = 0 to 999 {
        affine.for %arg9 = 0 to 1199 {
          %0 = affine.load %arg5[%arg8, %arg9] : memref<1000x1200xf64>
          %1 = affine.load %arg3[%arg8, %arg9 + 1] : memref<1000x1200xf64>
          %2 = affine.load %arg3[%arg8, %arg9] : memref<1000x1200xf64>
          %3 = arith.subf %1, %2 : f64
          %4 = affine.load %arg4[%arg8 + 1, %arg9] : memref<1000x1200xf64>
          %5 = arith.addf %3, %4 : f64
          %6 = affine.load %arg4[%arg8, %arg9] : memref<1000x1200xf64>
          %7 = arith.subf %5, %6 : f64
          %8 = arith.mulf %7, %cst_0 : f64
          %9 = arith.subf %0, %8 : f64
          affine.store %9, %arg5[%arg8, %arg9] : memref<1000x1200xf64>
        }
      }
    }
    return
  }
}
