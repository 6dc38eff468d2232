func.func @f() {
  %0 = arith.addf %x, %y : f64
  return
}
