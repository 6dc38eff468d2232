"""8- and 16-bit element types (C's char and short): read through C's integer promotions
(arith.extui / extsi), computed on as int, stored back through a cast (arith.trunci: the
low bits). The statement is read as written (the sketch: no search), each conversion one
grammar op (linalg: a one-op generic; stablehlo: convert, and a mask for a zero
extension), proven for every size with the exact narrow-integer semantics, and the raised
function equals the loops bitwise on inputs covering every value of the type. The C
corpus's 8/16-bit functions are raised against gcc in test_c_raise.py."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import z3

from conftest import DATA
from synth.backends.run import run_raised
from synth.cli import main
from synth.execution import run_function
from synth.semantics import scalar
from synth.semantics.raised import load_raised

BLEND = DATA / "blend_u8.mlir"


@pytest.mark.parametrize("target", ["stablehlo", "linalg"])
def test_an_8bit_blend_is_read_as_written_and_equals_the_loops(tmp_path, target):
    out, stats = tmp_path / f"blend.{target}.mlir", tmp_path / "stats.json"
    assert main(["raise", str(BLEND), "--target", target, "-o", str(out), "--stats-json", str(stats), "-q"]) == 0
    record = json.loads(stats.read_text())["screen_u8"]
    assert record["candidates"] == 0 and record["verification"] == "all"
    text = out.read_text().split("func.func @screen_u8(")[0]
    head = text[text.index("@screen_u8_raised("):].split("attributes", 1)[0]
    assert head.count("tensor<32x24xi8>") == 4  # i8 tensors in and out
    if target == "stablehlo":
        ops = [o for o in re.findall(r"= stablehlo\.(\w+)", text) if o not in ("constant", "broadcast_in_dim")]
        assert ops == ["convert", "and", "subtract", "convert", "and", "subtract", "multiply", "divide",
                       "subtract", "compare", "select", "convert"]
    else:
        assert re.findall(r"arith\.(ext\w+|trunci)", text) == ["extui", "extui", "trunci"]
    rng = np.random.default_rng(3)
    a, b = (rng.integers(-128, 128, (32, 24)).astype(np.int8) for _ in range(2))
    a[0, :4] = [-1, -128, 127, 0]  # 255, 128, 127 and 0 as unsigned chars
    want = run_function(BLEND.read_text(), "screen_u8", [a, b, np.zeros((32, 24), np.int8)]).outputs[2]
    if target == "stablehlo":
        text, name = load_raised(str(out), "screen_u8_raised").text.replace("@screen_u8_raised(", "@main(", 1), "main"
    else:
        text, name = out.read_text(), "screen_u8_raised"
    (got,) = run_raised(target, text, name, [a, b, np.zeros((32, 24), np.int8)])
    assert got.dtype == np.int8 and np.array_equal(got, want)


def test_narrow_casts_are_exact_in_the_proofs():
    """extui is the unsigned reading, trunci keeps the low bits (two's complement), an and
    with a low-bit mask is a zero extension: at every i8 value, and z3 proves the two
    spellings of a zero extension (extui, convert + and) equal for every integer."""
    extui8, trunc8 = scalar.int_cast("arith.extui", 8, 32), scalar.int_cast("arith.trunci", 32, 8)
    for v in range(-128, 128):
        assert extui8(v) == v % 256 == scalar.bit_and(v, 255)
        assert trunc8(v) == v and trunc8(v + 256) == v and trunc8(v * 256 + 7) == 7
    x = z3.Int("x")
    s = z3.Solver()
    s.add(extui8(x) != scalar.bit_and(x, 255))
    assert s.check() == z3.unsat
    s = z3.Solver()
    s.add(x >= -128, x < 128, trunc8(extui8(x)) != x)  # a char read as unsigned and stored back is itself
    assert s.check() == z3.unsat


TEMPORARY = """
func.func @k(%a: memref<16xi8>, %out: memref<16xi8>, %acc: memref<i32>) {
  %t = memref.alloca() : memref<i32>
  %s = memref.alloca() : memref<i32>
  %c0 = arith.constant 0 : i32
  %c255 = arith.constant 255 : i32
  affine.store %c0, %s[] : memref<i32>
  affine.for %i = 0 to 16 {
    %x8 = affine.load %a[%i] : memref<16xi8>
    %x = arith.extui %x8 : i8 to i32
    %y = arith.addi %x, %x : i32
    affine.store %y, %t[] : memref<i32>
    %u = affine.load %t[] : memref<i32>
    %big = arith.cmpi sgt, %u, %c255 : i32
    %v = affine.load %t[] : memref<i32>
    %w = arith.select %big, %c255, %v : i32
    %w8 = arith.trunci %w : i32 to i8
    affine.store %w8, %out[%i] : memref<16xi8>
    %p = affine.load %s[] : memref<i32>
    %q = arith.addi %p, %w : i32
    affine.store %q, %s[] : memref<i32>
  }
  %r = affine.load %s[] : memref<i32>
  affine.store %r, %acc[] : memref<i32>
  return
}
"""


def test_a_local_temporary_is_read_as_its_value(tmp_path):
    """`int s = a[i] + a[i]; out[i] = s > 255 ? 255 : s;` in a loop: the local is read as
    the value stored (the normal form keeps no buffer for it, so no loop carries it); a
    local read before it is written in an iteration (a sum) is left to the accumulator
    rewrite, and the function computes what it did."""
    from synth.frontend.normalize import normalize
    from synth.frontend.reader import load_source

    path = tmp_path / "k.mlir"
    path.write_text(TEMPORARY)
    nf = normalize(load_source(path), "k")
    assert "read 1 local temporary as the values stored into it" in nf.interface.notes
    assert nf.source.text.count("memref.alloca") == 0 and "iter_args" in nf.source.text
    a = np.arange(-8, 8, dtype=np.int8) * 16
    want = run_function(TEMPORARY, "k", [a, np.zeros(16, np.int8), np.zeros((), np.int32)]).outputs
    got = run_function(nf.source.text, "k", [a, np.zeros(16, np.int8), np.zeros((), np.int32)]).outputs
    assert np.array_equal(want[1], got[1]) and np.array_equal(want[2], got[2])
