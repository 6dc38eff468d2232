"""Reproducers: `save_reproducer` shrinks a failing kernel and saves it (and a failing
mutant) under tests/data/fuzz/ with a `// fuzz:` header saying what failed, what is
expected instead (`EXPECTED`) and how to reproduce it; `check_reproducer` (`--check
FILE`) re-runs that check on a saved file and says whether it behaves as expected now."""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path

from .checker import Checker, Config, Failure
from .config import ROOT
from .emit import emit, size_values
from .kernel import Kernel, kernel_size
from .oracle import first_error_line, raise_cmd, run_proc, verify_cmd
from .shrink import shrink

EXPECTED = {
    "wrong": "synth raise refuses it (exit 2/3) or its output computes what the original does",
    "crash": "synth raise exits 0, 2 or 3 without a traceback",
    "hang": "synth raise finishes within 3 x --timeout + 60 s (search, then Z3 with --z3-timeout = --timeout)",
    "malformed": "synth raise refuses it with exit 2",
    "accepted_mutant": "synth verify rejects the mutant (exit 4, or 3 undecided)",
    "verify_crash": "synth verify exits 0, 3 or 4 on the mutant without a traceback",
    "verify_hang": "synth verify finishes on the mutant (or on the raised output)",
    "verify_own": "synth verify says equivalent (exit 0) or undecided (3) on synth raise's own output",
}


def save_reproducer(cfg: Config, checker: Checker, kernel: Kernel, failure: Failure) -> str:
    """Shrink the kernel while it keeps failing; save it (and, for a mutant failure, the
    mutant) under the reproducer directory; returns the path."""
    t0 = time.monotonic()
    small, tries = shrink(kernel, lambda c: checker.still_fails(c, failure),
                          cfg.shrink_budget if failure.kind != "hang" else min(cfg.shrink_budget, 4 * cfg.raise_deadline),
                          max_tries=60 if failure.kind != "hang" else 4)
    cfg.repro_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{failure.kind}_{cfg.seed}_{kernel.k}"
    path = cfg.repro_dir / f"{stem}.mlir"
    meta = {"kind": failure.kind, "target": failure.target, "seed": cfg.seed, "program": kernel.k,
            "sizes": {str(k): v for k, v in size_values(small).items()}, "timeout": cfg.timeout,
            "mutation": failure.mutation}
    try:
        rel = path.relative_to(ROOT)
    except ValueError:
        rel = path
    header = [
        f"// fuzz: {json.dumps(meta)}",
        f"// failed: {failure.kind} ({failure.target}): {failure.description[:400]}",
        f"// expected: {EXPECTED[failure.kind]}",
        f"// shrunk: {kernel_size(kernel)} -> {kernel_size(small)} parts in {tries} tries, "
        f"{time.monotonic() - t0:.0f} s (scripts/fuzz.py --seed {cfg.seed}, program {kernel.k})",
        f"// reproduce: python -m synth.cli raise {rel} --target {failure.target} --timeout {cfg.timeout:g} -o out.mlir",
        f"//            python scripts/fuzz.py --check {rel}",
    ]
    if failure.kind.startswith("verify") and not failure.mutation:
        header.insert(5, f"//            python -m synth.cli verify {rel} out.mlir")
    if failure.mutation:
        found: list = []
        if not checker.still_fails(small, failure, keep=found) and small is not kernel:
            small = kernel
            checker.still_fails(small, failure, keep=found)
        mutant_text = found[0]["text"] if found else "// (the failing mutant could not be regenerated)\n"
        mpath = cfg.repro_dir / f"{stem}.mutant.mlir"
        mrel = mpath.relative_to(ROOT) if mpath.is_relative_to(ROOT) else mpath
        mpath.write_text(f"// fuzz mutant ({failure.mutation}) of {stem}.mlir: {EXPECTED[failure.kind]}\n"
                         f"// reproduce: python -m synth.cli verify {rel} {mrel}\n" + mutant_text)
    path.write_text("\n".join(header) + "\n" + emit(small))
    return str(rel)


def read_meta(path: Path) -> dict:
    for line in Path(path).read_text().splitlines():
        if line.startswith("// fuzz: "):
            return json.loads(line[len("// fuzz: "):])
    raise ValueError(f"{path}: no `// fuzz:` header")


def check_reproducer(path: Path, timeout: float | None = None) -> tuple[bool, str]:
    """Re-run a saved reproducer's check: (behaves as expected now, what happened)."""
    path = Path(path)
    meta = read_meta(path)
    target = meta["target"]
    name = re.search(r"func\.func @(\w+)\(", path.read_text()).group(1)
    sizes = {int(k): v for k, v in meta.get("sizes", {}).items()}
    timeout = timeout or meta.get("timeout", 20)
    with tempfile.TemporaryDirectory(prefix="fuzz-check-") as tmp:
        cfg = Config(meta.get("seed", 0), Path(tmp), timeout, (target,), False, 0, None, 0, False)
        return _check(path, cfg, meta, name, sizes, timeout)


def _check(path: Path, cfg: Config, meta: dict, name: str, sizes: dict,
           timeout: float) -> tuple[bool, str]:
    kind, target = meta["kind"], meta["target"]
    checker = Checker(cfg, cfg.out)
    if kind in ("accepted_mutant", "verify_crash", "verify_hang") and meta.get("mutation"):
        mpath = path.with_name(path.stem + ".mutant.mlir")
        proc = run_proc(verify_cmd(path, mpath, timeout), cfg.verify_deadline)
        if proc.hang:
            return False, "synth verify hangs"
        if proc.crash:
            return False, f"synth verify crashes: {first_error_line(proc.stderr)}"
        if kind == "verify_hang" and proc.rc == 0:
            # finishing is what a hang reproducer expects; "equivalent" only where the
            # mutant is (a neutral mutation), by the oracle
            expected, specs = checker.expected(path, name, sizes, 0)
            diff = checker.oracle(mpath.read_text(), name, target, expected, specs)
            return diff is None, ("synth verify finishes: equivalent, and so is the mutant" if diff is None
                                  else f"synth verify accepts a mutant that differs: {diff}")
        return proc.rc in (3, 4), f"synth verify exit {proc.rc}"
    out = cfg.out / "out.mlir"
    proc = run_proc(raise_cmd(path, target, out, cfg.out / "stats.json", timeout), cfg.raise_deadline)
    if proc.hang:
        return False, "synth raise hangs"
    if proc.crash:
        return False, f"synth raise crashes: {first_error_line(proc.stderr)}"
    if kind == "malformed":
        return proc.rc == 2, f"synth raise exit {proc.rc}"
    if proc.rc in (2, 3):
        return True, f"refused (exit {proc.rc}): {first_error_line(proc.stderr)}"
    if proc.rc != 0 or not out.exists():
        return False, f"synth raise exit {proc.rc}"
    expected, specs = checker.expected(path, name, sizes, 0)
    diff = checker.oracle(out.read_text(), name, target, expected, specs)
    if diff is not None:
        return False, f"raised wrongly: {diff}"
    if kind in ("verify_own", "verify_crash", "verify_hang"):
        proc = run_proc(verify_cmd(path, out, timeout), cfg.verify_deadline)
        if proc.hang or proc.crash or proc.rc not in (0, 3):
            return False, (f"synth verify on the raised output: "
                           f"{'hangs' if proc.hang else f'exit {proc.rc}: {first_error_line(proc.stderr)}'}")
        return True, f"raised, correct, and synth verify exits {proc.rc} on it"
    return True, "raised and correct"
