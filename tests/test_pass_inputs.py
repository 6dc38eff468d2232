"""The inputs of the passes' lit tests (tests/lit/passes/inputs) are what fresh raises give
today: scripts/regen_pass_inputs.py regenerates them (raising PolyBench kernels at MINI)
and they must equal the checked-in ones, so a change upstream that stops a pass firing, or
changes what it sees, cannot leave its lit test green on a stale input. Slow: it raises
several kernels."""

import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.slow
def test_pass_inputs_are_fresh():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "regen_pass_inputs.py"), "--check"],
                       capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert p.returncode == 0, ("the lit inputs of the passes are stale: run "
                               "python scripts/regen_pass_inputs.py\n" + p.stdout + p.stderr)


def test_every_regenerated_input_has_its_lit_test():
    """Each input the script regenerates exists and a lit file of the pass runs the pass on
    it (one RUN line: `--pass NAME %S/inputs/FILE`): tests/lit/passes/NAME.mlir (the name
    without `synth-`) or another of the pass's, such as library-loops-generic.mlir."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from regen_pass_inputs import CASES, DROPIN_CASES, GENERIC_CASES, INPUTS
    finally:
        sys.path.pop(0)
    runs = [line for p in sorted((ROOT / "tests" / "lit" / "passes").glob("*.mlir"))
            for line in p.read_text().splitlines() if line.startswith("// RUN:")]
    inputs = [(name, f"{kernel}.{target}") for name, (kernel, target, _) in CASES.items()]
    inputs += [(name, f"{kernel}.{target}-dropin") for name, kernel, target, _ in DROPIN_CASES]
    inputs += [(name, f"{kernel}.{target}-generic") for name, kernel, target, _, _ in GENERIC_CASES]
    for name, stem in inputs:
        file = f"{name.removeprefix('synth-')}.{stem}.mlir"
        assert (INPUTS / file).exists(), f"no input {file}: run python scripts/regen_pass_inputs.py"
        assert any(f"--pass {name} %S/inputs/{file}" in line for line in runs), f"no lit test runs {name} on {file}"


def test_every_registered_pass_has_a_lit_test():
    """Each pass of mlir-cpu's pipeline (synth.backends.passes.BY_NAME) has its lit file,
    tests/lit/passes/NAME.mlir (the name without `synth-`), that runs it with `synth opt
    --pass NAME` and checks the result: a new pass cannot join the pipeline untested."""
    from synth.backends.passes import BY_NAME

    lit = ROOT / "tests" / "lit" / "passes"
    missing = []
    for name in sorted(BY_NAME):
        runs = [p for p in lit.glob("*.mlir") if f"--pass {name}" in p.read_text()]
        own = lit / f"{name.removeprefix('synth-')}.mlir"
        if own not in runs or "CHECK" not in own.read_text():
            missing.append(name)
    assert not missing, f"passes without their lit test in {lit}: {', '.join(missing)}"
