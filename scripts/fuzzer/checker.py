"""Checking one kernel on one target: `Config` (a run's settings), `Checker.check` raises
the kernel, classifies the exit, runs the oracle on a raised output, then `synth
verify` on the output itself and on its mutants, recording a `TargetResult` and its
`Failure`s; `Checker.still_fails` repeats one failure's check on a smaller kernel (for
shrinking)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .emit import emit, size_values
from .kernel import Kernel
from .mutate import mutant_valid, mutants
from .oracle import (Proc, bucket, compare_runs, draw_inputs, first_error_line, raise_cmd,
                     run_on_mlir_cpu, run_original, run_proc, run_raised, signature, verify_cmd)


@dataclass
class Config:
    seed: int
    out: Path
    timeout: float
    targets: tuple
    alternate: bool
    mutants: int
    repro_dir: Path | None
    shrink_budget: float
    other_sizes: bool
    verify_own: bool = True
    input_sets: tuple = ("random", "ties")
    mlir_cpu: bool = False  # also run each raise through mlir-cpu's performance pipeline

    @property
    def raise_deadline(self) -> float:
        """Search (timeout) + the validation's Z3 queries (timeout each) + 60 s."""
        return 3 * self.timeout + 60

    @property
    def verify_deadline(self) -> float:
        return 3 * self.timeout + 60


@dataclass
class Failure:
    kind: str  # wrong, accepted_mutant, crash, hang, malformed, verify_crash, verify_hang
    program: int
    target: str
    description: str
    mutation: str | None = None  # the operator, for accepted mutants
    reproducer: str | None = None


@dataclass
class TargetResult:
    target: str
    status: str  # raised, refused, crash, hang, malformed-accepted, malformed-refused
    exit_code: int | None
    reason: str = ""
    seconds: float = 0.0
    mutants: Counter = field(default_factory=Counter)
    mutant_log: list = field(default_factory=list)  # (operator, verdict, oracle difference)
    notes: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    rewrites: Counter = field(default_factory=Counter)  # mlir-cpu's passes on this raise


class Checker:
    """Raises one kernel to one target and checks what comes out."""

    def __init__(self, cfg: Config, work: Path):
        self.cfg = cfg
        self.work = work

    def write(self, kernel: Kernel, tag: str) -> tuple[Path, str]:
        text = emit(kernel)
        path = self.work / f"{kernel.name}.{tag}.mlir"
        path.write_text(text)
        return path, text

    def expected(self, path: Path, kernel_name: str, sizes: dict[int, int], seed: int) -> tuple[list, list]:
        """[(inputs, (arrays, results))] for each input set, from the original, and the
        argument specs of the signature."""
        from synth.frontend.reader import load_source

        text = load_source(str(path), warn=False).text
        specs, _ = signature(text, kernel_name)
        out = []
        for n, kind in enumerate(self.cfg.input_sets):
            rng = np.random.default_rng([seed, n])
            inputs = draw_inputs(specs, sizes, rng, kind)
            out.append((inputs, run_original(text, kernel_name, inputs)))
        return out, specs

    def oracle(self, out_text: str, name: str, target: str, expected: list, specs) -> str | None:
        """None if the raised module computes what the original does on every input set."""
        for inputs, want in expected:
            try:
                got = run_raised(out_text, name, target, inputs, specs)
            except Exception as e:
                return f"the raised module does not run: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            diff = compare_runs(want, got)
            if diff:
                return diff
        return None

    def backend_oracle(self, out_text: str, name: str, target: str, expected: list,
                       res) -> tuple[str, str] | None:
        """None if mlir-cpu's compiled code computes what the original does on every input
        set (the passes' rewrites counted into `res`), else (failure kind, what):
        backend_error where it does not compile or run, backend_wrong where it differs."""
        try:
            runs, rewrites = run_on_mlir_cpu(out_text, name, target, [inputs for inputs, _ in expected])
        except Exception as e:
            return "backend_error", f"mlir-cpu: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        res.rewrites.update(rewrites)
        for (_, want), got in zip(expected, runs):
            diff = compare_runs(want, got)
            if diff:
                return "backend_wrong", f"mlir-cpu: {diff}"
        return None

    def raise_(self, path: Path, target: str, tag: str) -> tuple[Proc, Path]:
        out = self.work / f"{path.stem}.{target}.{tag}.out.mlir"
        stats = self.work / f"{path.stem}.{target}.{tag}.stats.json"
        if out.exists():
            out.unlink()
        proc = run_proc(raise_cmd(path, target, out, stats, self.cfg.timeout), self.cfg.raise_deadline)
        return proc, out

    # the full check ----------------------------------------------------------------------

    def check(self, kernel: Kernel, target: str) -> TargetResult:
        path, text = self.write(kernel, "orig")
        proc, out = self.raise_(path, target, "main")
        res = TargetResult(target, "", proc.rc, seconds=proc.seconds)
        fail = lambda kind, desc, **kw: res.failures.append(  # noqa: E731
            Failure(kind, kernel.k, target, desc, **kw))
        if proc.hang:
            res.status = "hang"
            fail("hang", f"synth raise ran past {self.cfg.raise_deadline:.0f} s")
            return res
        if proc.crash:
            res.status = "crash"
            res.reason = first_error_line(proc.stderr)
            fail("crash", f"synth raise exit {proc.rc}: {res.reason}")
            return res
        if kernel.category == "malformed":
            if proc.rc == 2:
                res.status, res.reason = "malformed-refused", bucket(first_error_line(proc.stderr))
            else:
                res.status = "malformed-accepted"
                fail("malformed", f"malformed kernel ({kernel.malformed}) gave exit {proc.rc}, not 2")
            return res
        if proc.rc in (2, 3, 4):
            res.status = "refused"
            res.reason = bucket(first_error_line(proc.stderr))
            res.notes.append(first_error_line(proc.stderr)[:300])
            return res
        if proc.rc != 0 or not out.exists():
            res.status = "crash"
            fail("crash", f"synth raise exit {proc.rc} without output")
            return res
        res.status = "raised"
        out_text = out.read_text()
        sizes = size_values(kernel)
        expected, specs = self.expected(path, kernel.name, sizes, kernel.k)
        diff = self.oracle(out_text, kernel.name, target, expected, specs)
        if diff:
            fail("wrong", diff)
            return res
        if self.cfg.mlir_cpu:
            found = self.backend_oracle(out_text, kernel.name, target, expected, res)
            if found:
                fail(*found)
                return res
        if self.cfg.other_sizes and sizes:
            self.check_other_sizes(path, kernel, out_text, target, sizes, res)
        if self.cfg.verify_own:
            self.check_own(kernel, path, out, target, res)
        self.check_mutants(kernel, path, out_text, target, expected, specs, res)
        return res

    def check_own(self, kernel, path: Path, out: Path, target: str, res) -> str:
        """synth verify on synth raise's own (correct, per the oracle) output: it must say
        equivalent (0) or undecided (3), not bad input (2) or not equivalent (4)."""
        proc = run_proc(verify_cmd(path, out, self.cfg.timeout), self.cfg.verify_deadline)
        fail = lambda kind, desc: res.failures.append(Failure(kind, kernel.k, target, desc))  # noqa: E731
        if proc.hang:
            verdict = "hang"
            fail("verify_hang", f"synth verify on the raised output ran past {self.cfg.verify_deadline:.0f} s")
        elif proc.crash:
            verdict = "crash"
            fail("verify_crash", f"synth verify on the raised output: exit {proc.rc}: {first_error_line(proc.stderr)}")
        elif proc.rc in (2, 4):
            verdict = "bad_input" if proc.rc == 2 else "rejected"
            msg = first_error_line(proc.stderr if proc.rc == 2 else proc.stdout + proc.stderr)
            fail("verify_own", f"synth verify exits {proc.rc} on synth raise's own output: {msg}")
        else:
            verdict = {0: "equivalent", 3: "undecided"}.get(proc.rc, "other")
        res.mutants[f"own-{verdict}"] += 1
        return verdict

    def check_other_sizes(self, path, kernel, out_text, target, sizes, res) -> None:
        """Informational: the raised function at smaller size-argument values."""
        smaller = {i: max(2, v // 2) for i, v in sizes.items()}
        expected, specs = self.expected(path, kernel.name, smaller, kernel.k + 7919)
        diff = self.oracle(out_text, kernel.name, target, expected[:1], specs)
        res.notes.append(f"other sizes {smaller}: {'same' if not diff else 'differs: ' + diff}")
        res.mutants["other-sizes-" + ("same" if not diff else "differs")] += 1

    def check_mutants(self, kernel, path, out_text, target, expected, specs, res,
                      only: str | None = None, limit: int | None = None) -> list[dict]:
        """Mutate @NAME_raised; verify must not accept one the oracle shows to differ.
        Returns one record per mutant checked: operator, verdict, oracle difference, text."""
        rng = random.Random(f"mutants:{self.cfg.seed}:{kernel.k}:{target}")
        limit = self.cfg.mutants if limit is None else limit
        checked: list[dict] = []
        tried = 0
        for op, mtext in mutants(out_text, kernel.name, rng, only):
            if len(checked) >= limit or tried >= 4 * max(limit, 1) + 8:
                break
            tried += 1
            mpath = self.work / f"{kernel.name}.{target}.mutant.mlir"
            if mutant_valid(mpath, mtext, kernel.name) is not None:
                res.mutants["invalid"] += 1
                continue
            mpath.write_text(mtext)
            res.mutants["generated"] += 1
            differs = self.oracle(mtext, kernel.name, target, expected, specs)
            proc = run_proc(verify_cmd(path, mpath, self.cfg.timeout), self.cfg.verify_deadline)
            verdict = self.mutant_verdict(proc, differs)
            res.mutants[verdict] += 1
            checked.append({"op": op, "verdict": verdict, "differs": differs, "text": mtext})
            res.mutant_log.append((op, verdict, (differs or "")[:120]))
            fail = lambda kind, desc: res.failures.append(  # noqa: E731
                Failure(kind, kernel.k, target, desc, mutation=op))
            if verdict == "hang":
                fail("verify_hang", f"synth verify on a {op} mutant ran past {self.cfg.verify_deadline:.0f} s")
            elif verdict == "crash":
                fail("verify_crash", f"synth verify on a {op} mutant: exit {proc.rc}: {first_error_line(proc.stderr)}")
            elif verdict == "accepted":
                fail("accepted_mutant", f"synth verify accepts a {op} mutant that differs: {differs}")
            elif verdict == "undecided":
                res.notes.append(f"mutant {op} undecided: {first_error_line(proc.stdout + proc.stderr)[:200]}")
            elif verdict == "bad_input":
                res.notes.append(f"verify exit 2 on a {op} mutant: {first_error_line(proc.stderr)[:200]}")
        return checked

    @staticmethod
    def mutant_verdict(proc: Proc, differs: str | None) -> str:
        if proc.hang:
            return "hang"
        if proc.crash:
            return "crash"
        if proc.rc == 0:
            # accepted: a failure only when the oracle shows the mutant computes something
            # else; otherwise the mutation was neutral (e.g. GT -> GE without ties)
            return "accepted" if differs else "equivalent"
        return {4: "rejected", 3: "undecided", 2: "bad_input"}.get(proc.rc, "other")

    # does a (smaller) kernel still fail the same way? ----------------------------------------

    def still_fails(self, kernel: Kernel, failure: Failure, keep: list | None = None) -> bool:
        """Raise the kernel again and look for the same kind of failure (for a mutant
        failure: a mutant of the same operator). `keep` receives the failing mutant."""
        path, _ = self.write(kernel, "shrink")
        proc, out = self.raise_(path, failure.target, "shrink")
        kind = failure.kind
        if kind == "hang":
            return proc.hang
        if kind == "crash":
            return proc.crash or (proc.rc == 0 and not out.exists())
        if kind == "malformed":
            return not proc.hang and proc.rc != 2
        if proc.rc != 0 or not out.exists():
            return False
        out_text = out.read_text()
        expected, specs = self.expected(path, kernel.name, size_values(kernel), kernel.k)
        diff = self.oracle(out_text, kernel.name, failure.target, expected, specs)
        if kind == "wrong":
            return diff is not None
        if diff is not None:
            return False
        res = TargetResult(failure.target, "raised", 0)
        if kind == "verify_own" or (kind in ("verify_crash", "verify_hang") and failure.mutation is None):
            verdict = self.check_own(kernel, path, out, failure.target, res)
            return verdict in (("bad_input", "rejected") if kind == "verify_own" else (kind[7:],))
        want = {"accepted_mutant": "accepted", "verify_crash": "crash", "verify_hang": "hang"}[kind]
        for m in self.check_mutants(kernel, path, out_text, failure.target, expected, specs, res,
                                    only=failure.mutation, limit=6):
            if m["verdict"] == want:
                if keep is not None:
                    keep.append(m)
                return True
        return False
