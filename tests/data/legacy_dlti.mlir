module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<!llvm.ptr, dense<64> : vector<4xi32>>>, llvm.data_layout = "e-m:e-p270:32:32", llvm.target_triple = "x86_64-unknown-linux-gnu", "polygeist.target-cpu" = "x86-64"} {
  func.func @kernel_x(%arg0: i32, %arg1: memref<10xf64>) attributes {llvm.linkage = #llvm.linkage<external>} {
    return
  }
}
