"""A loop run backwards at a small size made constant (`for (i = m - 1; i >= 0; i--)` with
m = 8 from --size) reads `A[-i + 7]`: 7 is below the constants the size analysis relates
to sizes by value, but it is the array's last index, and the kernel resized must read at
the new last index (at m = 6, `A[-i + 5]`), not past the array's end (dtrmm_left_lower
crashed the MLIR worker at its manifest sizes: heap corruption by writes at index 7 of a
6 x 6 array)."""

from __future__ import annotations

import numpy as np

from synth.analysis.instantiate import instantiate
from synth.analysis.model import load_kernel
from synth.execution import run_function
from synth.frontend.c import translate_c

C = """
void rev(int m, int n, double L[m][m], double B[m][n])
{
    for (int i = m - 1; i >= 0; i--)
        for (int j = 0; j < n; j++) {
            double t = 0.0;
            for (int k = 0; k <= i; k++)
                t += L[i][k] * B[k][j];
            B[i][j] = t;
        }
}
"""


def _ref(L, B):
    B = B.copy()
    for i in range(L.shape[0] - 1, -1, -1):
        B[i] = L[i, : i + 1] @ B[: i + 1]
    return B


def test_backward_loop_at_small_constant_size_resizes_to_the_new_end(tmp_path):
    path = tmp_path / "rev.c"
    path.write_text(C)
    source = translate_c(str(path), function="rev", sizes={"m": 8, "n": 6}, locations=False)
    kernel = load_kernel(source, "rev")
    names = {s: v.value for s, v in kernel.sizes.symbols.items()}
    assert sorted(names.values()) == [6, 8]
    m = next(s for s, v in names.items() if v == 8)
    values = {s: (5 if s == m else v) for s, v in names.items()}
    assert "+ 7" in kernel.normal.text
    small = instantiate(kernel.normal, "rev", kernel.sizes, values)
    assert "+ 7" not in small.text and "+ 4" in small.text  # the last index of a 5 x 5 L
    rng = np.random.default_rng(0)
    L, B = rng.standard_normal((5, 5)), rng.standard_normal((5, 6))
    out = run_function(small.text, "rev", [("i32", 5), ("i32", 6), L, B]).outputs
    np.testing.assert_allclose(out[3], _ref(L, B), rtol=1e-12)


# A solve run backwards whose inner loop runs down from the outer index (netlib DTRSV,
# upper, unit diagonal): at n = 7 the inner bound is `-j + 6` and the subscripts
# `-j - i + 5`, constants below those related to sizes by value; the kernel resized (and
# the step of its outer loop kept as a loop, at the stand-in sizes) must keep them the
# outer range less one and two, or its writes run past the array (the raise of
# heldout3's dtrsv_unu exited 1: "wrote outside its array argument(s) #3").
TRSV = """
void trsv_strided(int n, int lda, double A[n][lda], double x[n][2])
{
    for (int j = n - 1; j >= 0; j--)
        if (x[j][0] != 0.0) {
            double t = x[j][0];
            for (int i = j - 1; i >= 0; i--)
                x[i][0] -= t * A[j][i];
        }
}
"""


def _trsv_ref(A, x):
    x = x.copy()
    for j in range(x.shape[0] - 1, -1, -1):
        if x[j, 0] != 0.0:
            x[:j, 0] -= x[j, 0] * A[j, :j]
    return x


def test_nested_backward_loops_at_small_size_resize_with_their_bounds(tmp_path):
    from synth.analysis.sizes import COUNTER
    from synth.synthesis.spec import random_draw
    from synth.synthesis.steps import counter_loop, counter_step_kernel

    path = tmp_path / "trsv.c"
    path.write_text(TRSV)
    source = translate_c(str(path), function="trsv_strided", sizes={"n": 7, "lda": 9}, locations=False)
    kernel = load_kernel(source, "trsv_strided")
    assert "-d0 + 6" in kernel.normal.text and "+ 5]" in kernel.normal.text
    n = next(s for s, v in kernel.sizes.symbols.items() if v.value == 7)
    values = {s: (4 if s == n else v.value) for s, v in kernel.sizes.symbols.items()}
    small = instantiate(kernel.normal, "trsv_strided", kernel.sizes, values)
    assert "-d0 + 3" in small.text and "+ 2]" in small.text and "+ 5]" not in small.text
    rng = np.random.default_rng(0)
    A, x = rng.standard_normal((4, 9)), rng.standard_normal((4, 2))
    x[1, 0] = 0.0  # the guard's other branch
    out = run_function(small.text, "trsv_strided", [("i32", 4), ("i32", 9), A, x]).outputs
    np.testing.assert_allclose(out[3], _trsv_ref(A, x), rtol=1e-12)
    # the outer loop kept as a loop: its step at the stand-in sizes, at every counter
    # value, writes within its arrays (run_function raises where it does not)
    step, _ = counter_step_kernel(kernel, counter_loop(kernel))
    standin = step.sizes.standin()
    assert standin[n] < 7
    draw = random_draw(np.random.default_rng(1))
    for c in step.sizes.counter_values(standin):
        at = {**standin, COUNTER: c}
        run_function(step.at(at).text, "trsv_strided", step.arguments(at, draw))
