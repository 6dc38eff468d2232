"""Size arguments whose arrays are longer than the size (issue 56 item 5, issue 53).

A C kernel that takes `int n` and whose arrays have extent N + 1 (`for (j = i; j <= n;
j++)` over `e[N + 1][N + 1]`) got n = N + 1, the extent; the original, run at those
sizes to make examples, wrote past its arrays and the MLIR worker crashed (exit 1, heap
corruption). The size model now reads the relation extent = n + 1 from the loops' bounds
and the subscripts (synth.analysis.reach): n = N, each dim n + its reach past n. Where
no value of n fits, the raise is refused at the access with what to pass; a write past an
array by a kernel run at sizes synth chose is synth's fault (exit 1, internal error),
never a worker crash or bad input."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA

from synth.errors import ExecutionError, InputError
from synth.frontend.c import translate_c

EXTENTS = DATA / "c" / "extents.c"
N = 20


def _kernel(function: str):
    from synth.analysis.model import load_kernel

    return load_kernel(translate_c(str(EXTENTS), function=function), function)


@pytest.mark.parametrize("function,value,dims", [
    ("obst_weights", N, {1: ("arg0 + 1",), 2: ("arg0 + 1",), 3: ("arg0 + 1", "arg0 + 1")}),
    ("inclusive", N, {1: ("arg0 + 1",), 2: ("arg0 + 1",)}),
    ("shifted", N, {1: ("arg0 + 2",), 2: ("arg0 + 2",)}),
    ("upto_np1", N, {1: ("arg0 + 1",), 2: ("arg0 + 1",)}),
    ("pairs", N, {1: ("arg0",), 2: ("arg0",)}),
    ("mixed", N, {1: ("arg0 + 1",), 2: ("arg0",), 3: ("arg0 + 1",)}),
    ("pointers", None, {1: ("arg0 + 1",), 2: ("arg0 + 1",)}),
])
def test_a_size_is_what_its_arrays_hold_past_its_reach(function, value, dims):
    sizes = _kernel(function).sizes
    if value is None:  # known only at run time (pointers): a test value
        assert sizes.unknown() == ["arg0"]
        sizes.with_test_values()
        value = sizes.symbols["arg0"].value
    assert sizes.original() == {"arg0": value}
    assert {a: tuple(str(e) for e in sizes.arg_dims[a]) for a in dims} == dims
    # at the kernel's own sizes every dim is its declared extent and every access fits
    assert not sizes.violations(sizes.original())
    for values in (sizes.standin(), sizes.small_values(3, 2)):
        assert sizes.valid(values)


def test_no_size_that_fits_is_refused_at_the_access():
    with pytest.raises(InputError, match=r"no value of size argument #0 \(n\) .* index n \+ 8, past "
                                         r"the extent 8 .* --size n=VALUE") as e:
        _kernel("past")
    assert e.value.exit_code == 2 and e.value.location == f"{EXTENTS}:49:12"


def test_mlir_input_with_extent_n_plus_1(tmp_path):
    """The same relation read from MLIR: `affine.for 0 to n + 1` over memref<21x21xf64>."""
    from synth.analysis.model import load_kernel
    from synth.frontend.reader import load_source

    path = tmp_path / "obst.mlir"
    path.write_text("""#map = affine_map<()[s0] -> (s0 + 1)>
#map1 = affine_map<(d0) -> (d0)>
func.func @obst(%arg0: i32, %arg1: memref<21xf64>, %arg2: memref<21x21xf64>) {
  %0 = arith.index_cast %arg0 : i32 to index
  affine.for %i = 0 to #map()[%0] {
    affine.for %j = #map1(%i) to #map()[%0] {
      %1 = affine.load %arg1[%i] : memref<21xf64>
      %2 = affine.load %arg1[%j] : memref<21xf64>
      %3 = arith.addf %1, %2 : f64
      affine.store %3, %arg2[%i, %j] : memref<21x21xf64>
    }
  }
  return
}
""")
    sizes = load_kernel(load_source(path, warn=False), "obst").sizes
    assert sizes.original() == {"arg0": N}
    assert [str(e) for e in sizes.arg_dims[2]] == ["arg0 + 1", "arg0 + 1"]


def _original(function: str, args: list) -> list:
    from synth.execution import run_function

    return run_function(translate_c(str(EXTENTS), function=function, locations=False).text,
                        function, args).outputs


@pytest.mark.parametrize("function,target", [
    ("obst_weights", "linalg"), ("obst_weights", "stablehlo"), ("inclusive", "linalg"),
    ("shifted", "linalg"), ("upto_np1", "stablehlo"), ("mixed", "linalg"),
])
def test_the_raise_equals_the_loops(function, target):
    """Raised (for every size: n is a run-time argument) and run on the declared arrays,
    it equals the original loops run at n = N on the same arrays."""
    from synth.backends.run import run_raised
    from synth.pipeline import RaiseOptions, raise_function
    from synth.semantics.raised import load_raised
    from synth.semantics.specialize import generic_signature, specialize

    source = translate_c(str(EXTENTS), function=function)
    outcome = raise_function(source, function, target, RaiseOptions())
    kernel = _kernel(function)
    rng = np.random.default_rng(3)
    shapes = [kernel.sizes.shape(a, kernel.sizes.original()) for a in sorted(kernel.sizes.arg_dims)]
    arrays = [rng.standard_normal(s) for s in shapes]
    want = _original(function, [("i32", N), *arrays])
    raised = load_raised("<raised>", f"{function}_raised", outcome.module)
    name, module = f"{function}_raised", raised.text
    feed = [np.asarray(np.int32(N)), *arrays]
    if generic_signature(module, name):
        module = specialize(module, name, raised.dialect, [np.shape(x) for x in feed])
    got = run_raised(raised.dialect, module, name, feed)
    head = outcome.module[outcome.module.index(f"@{name}"):].split("\n", 1)[0]
    outs = [int(x) for x in head.split("synth.outputs = [", 1)[1].split("]", 1)[0].split(",")]
    assert outs and len(got) >= len(outs)
    for k, i in enumerate(outs):
        np.testing.assert_allclose(np.asarray(got[k]), want[i], rtol=1e-12, atol=0)


def test_a_write_past_an_array_is_synth_s_fault_not_a_crash():
    """The original is run in guard zones (synth.execution): a store past its array at the
    sizes synth passes is an internal error (exit 1), the worker alive."""
    from synth.execution import run_function

    text = """
func.func @f(%a: memref<4xf64>, %n: i32) {
  %c = arith.constant 1.5 : f64
  %i = arith.index_cast %n : i32 to index
  memref.store %c, %a[%i] : memref<4xf64>
  return
}"""
    a = np.zeros(4)
    assert run_function(text, "f", [a, ("i32", 3)]).outputs[0].tolist() == [0, 0, 0, 1.5]
    for n in (4, 9, -1):
        with pytest.raises(ExecutionError, match=r"internal error \(a bug in synth\): @f wrote "
                                                 r"outside its array argument\(s\) #0") as e:
            run_function(text, "f", [a, ("i32", n)])
        assert e.value.exit_code == 1 and e.value.location is None
    assert run_function(text, "f", [a, ("i32", 0)]).outputs[0].tolist() == [1.5, 0, 0, 0]


def test_a_size_the_arrays_do_not_hold_is_the_input_s_fault():
    """`--size n=21` on `w[N + 1][N + 1]` with N = 20, `j <= n`: the kernel at its own sizes
    runs past its arrays (the interval check alone dropped that as over-approximated, and
    the examples crashed the worker): refused at the access, exit 2."""
    from synth.analysis.model import load_kernel

    ok = load_kernel(translate_c(str(EXTENTS), function="obst_weights", sizes={"n": N}), "obst_weights")
    assert not ok.sizes.violations(ok.sizes.original())
    source = translate_c(str(EXTENTS), function="obst_weights", sizes={"n": N + 1})
    with pytest.raises(InputError, match=r"at the kernel's own sizes .* reaches index 21 of dimension "
                                         r"0, whose extent is 21: it runs past its array") as e:
        load_kernel(source, "obst_weights")
    assert e.value.exit_code == 2 and e.value.location.startswith(f"{EXTENTS}:11:")


INTERLEAVED = """
void gray(const unsigned char *in, int in_stride, unsigned char *out, int out_stride,
          int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[r * out_stride + c] = (unsigned char)((in[r * in_stride + 3 * c] + in[r * in_stride + 3 * c + 1]
                                                       + in[r * in_stride + 3 * c + 2]) / 3);
}
"""


def test_a_dynamic_dim_read_at_a_multiple_of_its_size_holds_that_multiple(tmp_path):
    """Rows of interleaved pixels (libjpeg's rgb_ycc_convert: `inptr[3 * col + 2]`, col <
    num_cols) read each row to 3 * cols: its dim is 3 * cols, not the cols its loop
    voted for, or no sizes keep the reads within the row (the raise for every size exited
    2: "no small sizes keep every access ... within its array: 3*arg7 - 2 > arg7")."""
    from synth.analysis.model import load_kernel

    path = tmp_path / "gray.c"
    path.write_text(INTERLEAVED)
    kernel = load_kernel(translate_c(str(path), function="gray"), "gray")
    cols = kernel.sizes.params[5]
    assert [str(e) for e in kernel.sizes.arg_dims[0]][1] == f"3*{cols}"
    assert [str(e) for e in kernel.sizes.arg_dims[2]][1] == cols
    standin = kernel.sizes.standin()
    assert kernel.sizes.valid(standin) and int(kernel.sizes.shape(0, standin)[1]) == 3 * standin[cols]
