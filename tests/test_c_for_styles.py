"""C as libraries write it, part two (issue 53): `for` loops without an initialisation or an
increment (`int i = 0; for (; i < n; ++i)`, OpenCV's `for (; height--; src += sstep)`,
`for (int j = 0; j < n;) { ...; j++; }`), the tail of an unrolled loop counting on from the
main loop's final index (`for (i = 0; i + 4 <= n; i += 4) {...} for (; i < n; i++)`), and
C99's classification macros (`isnan`, `isinf`, `isfinite`) as float comparisons, so that
NumPy's clip with NaN passing through reads.

Each function of tests/data/c/for_styles.c is translated with its sizes given and left
free, and run against the same function compiled by the system C compiler (-O0 and -O2,
tests/c_oracle.py) on random inputs with NaN and infinities where the kernel classifies
them; the ones that raise are raised to both targets and run against the compiled C."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import Case, assert_same, inputs, run_c, run_translation, shapes_of, signature
from conftest import DATA

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")

SOURCE = DATA / "c" / "for_styles.c"
SPECS = {
    "from_before": [{"sizes": {"n": 9}, "arrays": {"x": "n", "y": "n"}}],
    "scale_tail": [{"sizes": {"n": 11}, "arrays": {"x": "n", "y": "n"}},
                   {"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"}},
                   {"sizes": {"n": 2}, "arrays": {"x": "n", "y": "n"}}],
    "dot_tail": [{"sizes": {"n": 10}, "arrays": {"x": "n", "y": "n"}},
                 {"sizes": {"n": 3}, "arrays": {"x": "n", "y": "n"}}],
    "add_rows": [{"sizes": {"step1": 9, "step2": 8, "step": 10, "width": 7, "height": 4},
                  "arrays": {"src1": "height*step1", "src2": "height*step2", "dst": "height*step"}},
                 {"sizes": {"step1": 4, "step2": 5, "step": 4, "width": 4, "height": 3},
                  "arrays": {"src1": "height*step1", "src2": "height*step2", "dst": "height*step"}}],
    "rows_tail": [{"sizes": {"m": 4, "n": 5}, "arrays": {"a": "m*n", "b": "m*n"}}],
    "odd_tail": [{"sizes": {"n": 7}, "arrays": {"a": "n+2"}},
                 {"sizes": {"n": 8}, "arrays": {"a": "n+2"}}],
    "copy_count": [{"sizes": {"n": 6}, "arrays": {"x": "n", "y": "n"}}],
    "ones_from": [{"sizes": {"n": 8, "i": 3}, "arrays": {"a": "n"}}],
    "ones_stepped_inside": [{"sizes": {"n": 5}, "arrays": {"a": "n"}}],
    "clip_nan": [{"sizes": {"n": 16}, "arrays": {"x": "n", "y": "n"}, "ranges": {"x": [-2, 2]},
                  "special": {"x": [1, 5, 9]}}],
    "nan_to_zero": [{"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"},
                     "special": {"x": [0, 4, 7]}}],
    "classes": [{"sizes": {"n": 12}, "arrays": {"x": "n", "y": "n"},
                 "special": {"x": [1, 2, 3, 6, 8, 10]}}],
}
CASES = [(name, k) for name, specs in SPECS.items() for k in range(len(specs))]
_SPECIAL = (np.nan, np.inf, -np.inf)


def _inputs(case, params, seed):
    args = inputs(case, params, np.random.default_rng(seed))
    for name, at in case.spec.get("special", {}).items():  # NaN, +inf, -inf in turn
        for j, k in enumerate(at):
            args[name][k] = _SPECIAL[j % 3]
    return args


@pytest.mark.parametrize("name,k", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_translation_equals_compiled_c(name, k):
    case = Case(SOURCE, name, dict(SPECS[name][k]))
    params, result = signature(case)
    args = _inputs(case, params, 21 + k)
    sized = run_translation(case, params, args, sizes=True)
    for opt in ("-O0", "-O2"):
        want = run_c(case, params, result, args, opt)
        assert_same(case, f"C {opt} vs translation at --size", params, result, want, sized)
    free = run_translation(case, params, args, sizes=False, shapes=shapes_of(sized[2], name, params))
    assert_same(case, "C -O2 vs translation", params, result,
                run_c(case, params, result, args, "-O2"), free)
    if "special" in case.spec:  # infinities make assert_same's tolerance infinite: exactly
        for p in params:
            if p.array:
                np.testing.assert_array_equal(np.asarray(free[0][p.name]).reshape(-1),
                                              np.asarray(want[0][p.name]).reshape(-1), err_msg=p.name)
