"""The differential fuzzer (scripts/fuzz.py, issue 13): random affine kernels raised by
`synth raise` and checked outside synth's own validation, mutants of the outputs given to
`synth verify`. A fixed-seed run must find no wrong raise, no accepted mutant, no crash
and no hang; every reproducer the fuzzer saved (tests/data/fuzz/) must now behave as its
header says (known, unfixed bugs are strict xfails)."""

import json
import subprocess
import sys

import pytest

from conftest import DATA, ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import fuzz  # noqa: E402

FUZZ = ROOT / "scripts" / "fuzz.py"
REPRODUCERS = sorted(p for p in (DATA / "fuzz").glob("*.mlir") if not p.name.endswith(".mutant.mlir"))

# reproducers of bugs found by the fuzzer and not fixed yet: file -> what is wrong
KNOWN_BUGS: dict[str, str] = {}


def _fuzz(tmp_path, *args: str, timeout: float) -> dict:
    """Run the fuzzer in a subprocess; its JSON report (failures unshrunk, in tmp_path)."""
    cmd = [sys.executable, str(FUZZ), *args, "--json", "--no-shrink",
           "--out", str(tmp_path / "out"), "--repro-dir", str(tmp_path / "repro")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _assert_clean(report: dict) -> None:
    failures = "\n".join(f"{f['kind']} fuzz_{f['program']} ({f['target']}): {f['description']}"
                         for f in report["failures"])
    assert report["wrong"] == 0, failures
    assert report["mutants"]["accepted"] == 0, failures
    assert report["crashes"] == 0, failures
    assert report["hangs"] == 0, failures
    assert report["malformed_not_refused"] == 0, failures
    assert report["verify_own_failures"] == 0, failures
    assert report["generator_errors"] == 0
    cpu = report.get("mlir_cpu") or {"wrong": 0, "errors": 0}
    assert cpu["wrong"] == 0 and cpu["errors"] == 0, failures


def test_generated_kernels_parse():
    """Every kernel parses in MLIR except the deliberately malformed ones that MLIR rejects
    (syntax errors, undefined values); generation is deterministic."""
    for k in range(150):
        kernel = fuzz.generate(11, k)
        text = fuzz.emit(kernel)
        assert text == fuzz.emit(fuzz.generate(11, k))
        must_fail = kernel.malformed in ("syntax-op", "syntax-brace", "syntax-type", "undefined")
        err = fuzz.parses(text)
        assert (err is not None) == must_fail, f"fuzz_{k} ({kernel.malformed}): {err}\n{text}"


def test_generator_coverage():
    """The constructs the fuzzer promises all occur within a few hundred programs."""
    seen = set()
    categories = set()
    for k in range(300):
        kernel = fuzz.generate(12, k)
        seen |= kernel.features
        categories.add(kernel.category)
    want = {"1-deep", "2-deep", "3-deep", "4-deep", "size-params", "transpose", "broadcast",
            "stride", "offset-access", "triangular-upper", "triangular-lower", "affine-if",
            "affine-if-else", "reduce-add", "reduce-max", "reduce-min", "iter-args",
            "accumulator", "returns-scalar", "returns-alloca", "returns-alloc", "scalar-arg",
            "in-place", "add", "sub", "mul", "div", "max", "min", "neg", "select", "sqrt", "exp",
            "elem-f64", "elem-f32", "elem-i32", "recurrence", "time-step", "malformed-scf",
            "malformed-call", "malformed-undefined", "malformed-undef"}
    assert want <= seen, sorted(want - seen)
    assert categories == {"normal", "inexpressible", "malformed"}


def test_shrink_keeps_failure():
    """Shrinking removes every part the failure does not need (here: a kernel 'fails'
    while it still divides)."""
    kernel = next(kn for k in range(200) if (kn := fuzz.generate(13, k)).category == "normal"
                  and "div" in kn.features and fuzz.kernel_size(kn) > 12)
    divides = lambda kn: "arith.divf" in fuzz.emit(kn)  # noqa: E731
    small, tries = fuzz.shrink(kernel, divides, budget_s=60, max_tries=2000)
    assert divides(small) and fuzz.parses(fuzz.emit(small)) is None
    assert fuzz.kernel_size(small) < fuzz.kernel_size(kernel)
    assert fuzz.emit(small).count("arith.divf") == 1


def test_fuzz_run(tmp_path):
    """35 programs, one target each (alternating), 2 mutants per raised output (18 raised,
    22 mutants on 2026-12-06; the slow tier runs 1000)."""
    report = _fuzz(tmp_path, "--seed", "7", "--count", "35", "--alternate", "--mutants", "2",
                   "--timeout", "20", timeout=900)  # about 6 min on 2 cores with level all
    assert report["programs"] == 35
    _assert_clean(report)
    assert sum(report["raised"].values()) >= 5  # the oracle and the mutants were exercised
    assert report["mutants"]["generated"] >= 5
    assert report["malformed_refused"] == report["malformed_programs"]


@pytest.mark.slow
def test_fuzz_1000(tmp_path):
    """1000 programs, one mutant per raised output, two programs at a time (about 45 min
    on 2 cores); the default run above also checks synth verify on the raises' own output."""
    report = _fuzz(tmp_path, "--seed", "1000", "--count", "1000", "--alternate", "--timeout", "20",
                   "--mutants", "1", "--no-verify-own", "--jobs", "2", timeout=4 * 3600)
    assert report["programs"] == 1000
    _assert_clean(report)


@pytest.mark.slow
def test_fuzz_through_mlir_cpu(tmp_path):
    """300 programs whose raises also run through mlir-cpu's pipeline, every performance
    pass on (issue 55: the passes meet kernels nobody tuned them for): its outputs equal
    the original's; the report counts each pass's rewrites."""
    report = _fuzz(tmp_path, "--seed", "2000", "--count", "300", "--alternate", "--timeout", "20",
                   "--mutants", "0", "--no-verify-own", "--mlir-cpu", timeout=4 * 3600)
    _assert_clean(report)
    assert sum(report["mlir_cpu"]["raises"].values()) >= 50


def _reproducer_params():
    out = []
    for path in REPRODUCERS:
        marks = []
        if path.name in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[path.name]))
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _reproducer_params())
def test_reproducer(path):
    """A saved failure now behaves as its header's `expected:` line says: a wrong raise is
    refused or correct, a crash / hang / malformed kernel exits as documented, a mutant
    is rejected by synth verify."""
    ok, what = fuzz.check_reproducer(path)
    assert ok, what
