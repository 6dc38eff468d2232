module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr<270>, dense<32> : vector<4xi32>>, #dlti.dl_entry<"dlti.endianness", "little">>} {
  func @kernel_scale(%arg0: i32, %arg1: memref<16xf64>) {
    %0 = arith.index_cast %arg0 : i32 to index
    affine.for %i = 0 to %0 {
      %v = affine.load %arg1[%i] : memref<16xf64>
      %w = arith.addf %v, %v : f64
      affine.store %w, %arg1[%i] : memref<16xf64>
    }
    return
  }
}
