"""The C corpus (benchmarks/c-libs with its held-out kernels, and benchmarks/polybench-c):
synth's translation of every function equals the function compiled by the system C
compiler (-O0 and -O2), on random inputs (tests/c_oracle.py), both with the manifest's
--size values and with the sizes left as run-time arguments (slow: at other sizes too);
the functions of refused.c are refused (exit 2) with the construct named."""

from __future__ import annotations

import numpy as np
import pytest
from c_oracle import (
    OPT_LEVELS,
    Case,
    mlir_signature,
    assert_same,
    inputs,
    load_cases,
    run_c,
    run_translation,
    shapes_of,
    signature,
)
from conftest import ROOT
from polybench_reference import linear_algebra, solvers_stencils_medley

from synth.analysis import polybench

from synth.backends.cc import compiler
from synth.errors import InputError
from synth.frontend.c import translate_c

CORPUS = ROOT / "benchmarks" / "c-libs"
CASES = [c for d in (CORPUS, CORPUS / "heldout") for c in load_cases(d) if "refused" not in c.spec]
REFUSED = [c for c in load_cases(CORPUS) if "refused" in c.spec]

pytestmark = pytest.mark.skipif(compiler() is None, reason="no C compiler")


def test_corpus_size():
    assert len(CASES) >= 60 and len({c.path.name for c in CASES}) >= 8
    assert len([c for c in CASES if c.path.parent.name == "heldout"]) == 10


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_translation_equals_compiled_c(case):
    params, result = signature(case)
    args = inputs(case, params, np.random.default_rng(7))
    sized = run_translation(case, params, args, sizes=True)
    for opt in OPT_LEVELS:
        want = run_c(case, params, result, args, opt)
        assert_same(case, f"C {opt} vs translation at --size", params, result, want, sized)
    if not case.sizes:
        return
    # the sizes as run-time arguments: dynamic extents, size symbols
    shapes = shapes_of(sized[2], case.function, params)
    if "free_sizes_refused" in case.spec:  # a size the C cannot do without (a loop step)
        with pytest.raises(InputError, match=case.spec["free_sizes_refused"]):
            run_translation(case, params, args, sizes=False, shapes=shapes)
        return
    free = run_translation(case, params, args, sizes=False, shapes=shapes)
    assert_same(case, "C -O2 vs translation", params, result, want, free)


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.sizes], ids=[c.id for c in CASES if c.sizes])
def test_translation_equals_compiled_c_at_other_sizes(case):
    """Each size 3 more (the relations between them stay), with and without --size."""
    params, result = signature(case)
    steps = case.spec.get("size_steps", {})  # a byte stride moves by whole elements
    other = Case(case.path, case.function, {**case.spec, "sizes": {k: v + steps.get(k, 3) for k, v in case.sizes.items()}})
    args = inputs(other, params, np.random.default_rng(8))
    sized = run_translation(other, params, args, sizes=True)
    want = run_c(other, params, result, args, "-O2")
    assert_same(other, "C -O2 vs translation at other sizes", params, result, want, sized)
    if "free_sizes_refused" in case.spec:
        return
    free = run_translation(other, params, args, sizes=False,
                           shapes=shapes_of(sized[2], case.function, params))
    assert_same(other, "C -O2 vs translation at other free sizes", params, result, want, free)


@pytest.mark.parametrize("case", REFUSED, ids=[c.id for c in REFUSED])
def test_refused(case):
    with pytest.raises(InputError) as e:
        translate_c(str(case.path), function=case.function)
    assert e.value.exit_code == 2
    assert case.spec["refused"] in e.value.message, str(e.value)
    assert e.value.location.startswith(f"{case.path}:"), str(e.value)


PREPARE = {**linear_algebra.PREPARE, **solvers_stencils_medley.PREPARE}


@pytest.mark.parametrize("name", polybench.KERNELS)
def test_polybench_c_translation_equals_compiled_c(name):
    """benchmarks/polybench-c at MINI: the translation equals the C compiled by gcc."""
    fname = "kernel_" + name.replace("-", "_")
    case = Case(ROOT / "benchmarks" / "polybench-c" / f"{name}.c", fname, {"defines": ["MINI_DATASET"]})
    params, result = signature(case)
    ints = [p.name for p in params if not p.array and p.kind.name == "INT"]
    case.spec["sizes"] = dict(zip(ints, polybench.size_arguments(name, "mini")))
    text = translate_c(str(case.path), function=fname, defines=case.defines,
                       include_dirs=[str(case.path.parent)], locations=False).text
    shapes = [shape for _, shape in mlir_signature(text, fname)]
    rng = np.random.default_rng(3)
    args = []  # in argument order, the arrays in their shapes: what PREPARE changes
    for p, shape in zip(params, shapes):
        if p.array:
            args.append(rng.random(shape) if p.kind.name == "DOUBLE"
                        else rng.integers(0, 100, shape).astype(np.int32))
        else:
            args.append(case.spec["sizes"].get(p.name, float(rng.uniform(0.5, 2.0))))
    if name in PREPARE:
        PREPARE[name](rng, args)
    values = {p.name: (np.ascontiguousarray(a).reshape(-1) if p.array else a)
              for p, a in zip(params, args)}
    case.spec["arrays"] = {p.name: str(values[p.name].size) for p in params if p.array}
    translated = run_translation(case, params, values, sizes=False)
    for opt in OPT_LEVELS:
        assert_same(case, f"C {opt} vs translation", params, result,
                    run_c(case, params, result, values, opt), translated)
