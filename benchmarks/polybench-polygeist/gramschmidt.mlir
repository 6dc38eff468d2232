#map = affine_map<(d0) -> (d0 + 1)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_gramschmidt(%arg0: i32, %arg1: i32, %arg2: memref<1000x1200xf64>, %arg3: memref<1200x1200xf64>, %arg4: memref<1000x1200xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %cst = arith.constant 0.000000e+00 : f64
    %alloca = memref.alloca() : memref<f64>
    %0 = llvm.mlir.undef : f64
    affine.store %0, %alloca[] : memref<f64>
    affine.for %arg5 = 0 to 1200 {
      affine.store %cst, %alloca[] : memref<f64>
      affine.for %arg6 = 0 to 1000 {
        %3 = affine.load %arg2[%arg6, %arg5] : memref<1000x1200xf64>
        %4 = arith.mulf %3, %3 : f64
        %5 = affine.load %alloca[] : memref<f64>
        %6 = arith.addf %5, %4 : f64
        affine.store %6, %alloca[] : memref<f64>
      }
      %1 = affine.load %alloca[] : memref<f64>
      %2 = math.sqrt %1 : f64
      affine.store %2, %arg3[%arg5, %arg5] : memref<1200x1200xf64>
      affine.for %arg6 = 0 to 1000 {
        %3 = affine.load %arg2[%arg6, %arg5] : memref<1000x1200xf64>
        %4 = affine.load %arg3[%arg5, %arg5] : memref<1200x1200xf64>
        %5 = arith.divf %3, %4 : f64
        affine.store %5, %arg4[%arg6, %arg5] : memref<1000x1200xf64>
      }
      affine.for %arg6 = #map(%arg5) to 1200 {
        affine.store %cst, %arg3[%arg5, %arg6] : memref<1200x1200xf64>
        affine.for %arg7 = 0 to 1000 {
          %3 = affine.load %arg4[%arg7, %arg5] : memref<1000x1200xf64>
          %4 = affine.load %arg2[%arg7, %arg6] : memref<1000x1200xf64>
          %5 = arith.mulf %3, %4 : f64
          %6 = affine.load %arg3[%arg5, %arg6] : memref<1200x1200xf64>
          %7 = arith.addf %6, %5 : f64
          affine.store %7, %arg3[%arg5, %arg6] : memref<1200x1200xf64>
        }
        affine.for %arg7 = 0 to 1000 {
          %3 = affine.load %arg2[%arg7, %arg6] : memref<1000x1200xf64>
          %4 = affine.load %arg4[%arg7, %arg5] : memref<1000x1200xf64>
          %5 = affine.load %arg3[%arg5, %arg6] : memref<1200x1200xf64>
          %6 = arith.mulf %4, %5 : f64
          %7 = arith.subf %3, %6 : f64
          affine.store %7, %arg2[%arg7, %arg6] : memref<1000x1200xf64>
        }
      }
    }
    return
  }
}
