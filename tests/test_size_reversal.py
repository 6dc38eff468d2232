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
