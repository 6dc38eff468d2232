"""synth.backends.ir_toolkit, the helpers mlir-cpu's passes share, on a small module: walk,
defining op, the three kinds of "inside", constant ints, integer ranges and index values,
cmpi predicates, slices built and read back."""

from mlir import ir

from synth.backends import ir_toolkit as tk

LOOP = """
func.func @f(%t: tensor<16x8xf64>) -> tensor<16x8xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %r = scf.for %k = %c1 to %c10 step %c3 iter_args(%a = %t) -> (tensor<16x8xf64>) {
    %j = arith.addi %k, %c3 : index
    %m = arith.minsi %j, %c10 : index
    %p = arith.cmpi ult, %k, %m : index
    %s = tensor.extract_slice %a[%k, 0] [2, 8] [1, 1] : tensor<16x8xf64> to tensor<2x8xf64>
    %u = tensor.insert_slice %s into %a[%m, 0] [2, 8] [1, 1] : tensor<2x8xf64> into tensor<16x8xf64>
    scf.yield %u : tensor<16x8xf64>
  }
  return %r : tensor<16x8xf64>
}
"""


def test_toolkit_on_a_loop():
    with ir.Context():
        module = ir.Module.parse(LOOP)
        ops = tk.nested_ops(module)
        assert [o.name for o in ops][:2] == ["func.func", "arith.constant"]
        (loop,) = tk.ops_named(module, ("scf.for",))
        (add,) = tk.ops_named(module, ("arith.addi",))
        (mn,) = tk.ops_named(module, ("arith.minsi",))
        (cmp,) = tk.ops_named(module, ("arith.cmpi",))
        (ext,) = tk.ops_named(module, ("tensor.extract_slice",))
        (ret,) = tk.ops_named(module, ("func.return",))
        k = loop.regions[0].blocks[0].arguments[0]
        # defining op, constants
        assert tk.defining(add.results[0]) == add and tk.defining(k) is None
        assert tk.constant_int(add.operands[1]) == 3 and tk.constant_int(k) is None
        # inside: an op nested in the loop; a value of the loop (its block argument, its body's
        # results; its own result too for value_within, not for value_in_regions)
        assert tk.op_within(add, loop) and tk.op_within(loop, loop) and not tk.op_within(ret, loop)
        assert tk.value_within(k, loop) and tk.value_within(add.results[0], loop)
        assert tk.value_within(loop.results[0], loop) and not tk.value_in_regions(loop.results[0], loop)
        assert tk.value_in_regions(add.results[0], loop) and not tk.value_within(ret.operands[0], add)
        assert tk.in_block(add, loop.block) == loop
        # ranges and values of index arithmetic: k in {1, 4, 7}
        assert tk.int_range(k) == (1, 7)
        assert tk.int_range(add.results[0]) == (4, 10) and tk.int_range(mn.results[0]) == (4, 10)
        assert tk.evaluate(mn.results[0], k, 7, {}) == 10 and tk.evaluate(add.results[0], k, 1, {}) == 4
        # predicates
        assert tk.cmpi_predicate(cmp) == "ult" and tk.holds("ult", 1, 4) and not tk.holds("sge", 1, 4)
        assert tk.SIGNED_ORDER == {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}
        # slices: offsets as written, and a slice built from them reads back the same way
        offsets = tk.mixed(ext, "offsets")
        assert offsets[0] == k and offsets[1] == 0 and tk.mixed(ext, "sizes") == [2, 8]
        assert tk.static_values(ext, "offsets") is None and tk.static_values(ext, "sizes") == [2, 8]
        with ir.InsertionPoint(ext), ext.location:
            again = tk.extract_slice(ext.operands[0], [k, 0], [2, 8])
        assert str(again.type) == "tensor<2x8xf64>" and tk.mixed(tk.defining(again), "offsets")[0] == k
        assert module.operation.verify()
