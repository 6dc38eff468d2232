#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (-d0 + 2000)>
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<272>, dense<64> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<271>, dense<32> : vector<4xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<i8, dense<8> : vector<2xi32>>, #dlti.dl_entry<i16, dense<16> : vector<2xi32>>, #dlti.dl_entry<i32, dense<32> : vector<2xi32>>, #dlti.dl_entry<f16, dense<16> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>, llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64", "polygeist.target-features" = "+cx8,+fxsr,+mmx,+sse,+sse2,+x87", "polygeist.tune-cpu" = "generic"} {
  func.func @kernel_ludcmp(%arg0: i32, %arg1: memref<2000x2000xf64>, %arg2: memref<2000xf64>, %arg3: memref<2000xf64>, %arg4: memref<2000xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    %alloca = memref.alloca() : memref<1xf64>
    %0 = llvm.mlir.undef : f64
    affine.store %0, %alloca[0] : memref<1xf64>
    affine.for %arg5 = 0 to 2000 {
      affine.for %arg6 = 0 to #map(%arg5) {
        %1 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        affine.store %1, %alloca[0] : memref<1xf64>
        affine.for %arg7 = 0 to #map(%arg6) {
          %5 = affine.load %arg1[%arg5, %arg7] : memref<2000x2000xf64>
          %6 = affine.load %arg1[%arg7, %arg6] : memref<2000x2000xf64>
          %7 = arith.mulf %5, %6 : f64
          %8 = affine.load %alloca[0] : memref<1xf64>
          %9 = arith.subf %8, %7 : f64
          affine.store %9, %alloca[0] : memref<1xf64>
        }
        %2 = affine.load %alloca[0] : memref<1xf64>
        %3 = affine.load %arg1[%arg6, %arg6] : memref<2000x2000xf64>
        %4 = arith.divf %2, %3 : f64
        affine.store %4, %arg1[%arg5, %arg6] : memref<2000x2000xf64>
      }
      affine.for %arg6 = #map(%arg5) to 2000 {
        %1 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        affine.store %1, %alloca[0] : memref<1xf64>
        affine.for %arg7 = 0 to #map(%arg5) {
          %3 = affine.load %arg1[%arg5, %arg7] : memref<2000x2000xf64>
          %4 = affine.load %arg1[%arg7, %arg6] : memref<2000x2000xf64>
          %5 = arith.mulf %3, %4 : f64
          %6 = affine.load %alloca[0] : memref<1xf64>
          %7 = arith.subf %6, %5 : f64
          affine.store %7, %alloca[0] : memref<1xf64>
        }
        %2 = affine.load %alloca[0] : memref<1xf64>
        affine.store %2, %arg1[%arg5, %arg6] : memref<2000x2000xf64>
      }
    }
    affine.for %arg5 = 0 to 2000 {
      %1 = affine.load %arg2[%arg5] : memref<2000xf64>
      affine.store %1, %alloca[0] : memref<1xf64>
      affine.for %arg6 = 0 to #map(%arg5) {
        %3 = affine.load %arg1[%arg5, %arg6] : memref<2000x2000xf64>
        %4 = affine.load %arg4[%arg6] : memref<2000xf64>
        %5 = arith.mulf %3, %4 : f64
        %6 = affine.load %alloca[0] : memref<1xf64>
        %7 = arith.subf %6, %5 : f64
        affine.store %7, %alloca[0] : memref<1xf64>
      }
      %2 = affine.load %alloca[0] : memref<1xf64>
      affine.store %2, %arg4[%arg5] : memref<2000xf64>
    }
    affine.for %arg5 = 0 to 2000 {
      %1 = affine.load %arg4[-%arg5 + 1999] : memref<2000xf64>
      affine.store %1, %alloca[0] : memref<1xf64>
      affine.for %arg6 = #map1(%arg5) to 2000 {
        %5 = affine.load %arg1[-%arg5 + 1999, %arg6] : memref<2000x2000xf64>
        %6 = affine.load %arg3[%arg6] : memref<2000xf64>
        %7 = arith.mulf %5, %6 : f64
        %8 = affine.load %alloca[0] : memref<1xf64>
        %9 = arith.subf %8, %7 : f64
        affine.store %9, %alloca[0] : memref<1xf64>
      }
      %2 = affine.load %alloca[0] : memref<1xf64>
      %3 = affine.load %arg1[-%arg5 + 1999, -%arg5 + 1999] : memref<2000x2000xf64>
      %4 = arith.divf %2, %3 : f64
      affine.store %4, %arg3[-%arg5 + 1999] : memref<2000xf64>
    }
    return
  }
}
