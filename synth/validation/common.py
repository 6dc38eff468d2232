"""Constants and the report types of synth verify: levels, size configurations,
counterexamples, reports."""

from __future__ import annotations

from dataclasses import dataclass, field


from synth.semantics import support as support
from synth.numerics import RTOL as RTOLS

RTOL = RTOLS["f64"]

LEVELS = ("test", "z3", "all")
Sizes = dict[str, int]  # size symbol -> value

DEFAULT_Z3_TIMEOUT = 300.0  # seconds per solver call
MAX_PROOF_ELEMENTS = 4096  # proving at the original sizes (no re-instantiation) up to this
# ... and only where no size exceeds this: the symbolic run of a loop over 2000 elements
# (durbin's 2000 x 2000 steps, 4000 elements) did not finish in 5 minutes
MAX_PROOF_SIZE = 64


# results ----------------------------------------------------------------------------------


def sizes_text(sizes: Sizes) -> str:
    return ", ".join(f"{n}={v}" for n, v in sorted(sizes.items())) or "no sizes"


def element_text(key) -> str:
    """`arg5[1, 2]` for the key ("arg5", (1, 2)) of an output element."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], tuple):
        label, idx = key
        return f"{label}[{', '.join(map(str, idx))}]" if idx else f"{label}"
    return str(key)


@dataclass
class Counterexample:
    """Inputs on which the two functions differ, and the first differing element."""

    level: str  # "test" or "z3"
    sizes: Sizes
    output: str  # the output that differs: "arg5" or "result #0"
    index: tuple[int, ...]
    original: str  # the element's value in the original, as text
    raised: str
    inputs: dict[str, str]  # z3: the inputs the element depends on (others arbitrary); test: the input set
    # level test: the input set's kind (testing.INPUT_SETS) and the arguments themselves
    # (run_function's, at `sizes`), for a search that learns from them (synth.pipeline)
    kind: str | None = field(default=None, repr=False, compare=False)
    args: list | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        lines = [f"at sizes {sizes_text(self.sizes)}: {element_text((self.output, self.index))}: "
                 f"original {self.original}, "
                 f"raised {self.raised}"]
        if self.inputs:
            lines.append("inputs: " + ", ".join(f"{k} = {v}" for k, v in self.inputs.items()))
            if self.level == "z3":
                lines.append("(every other input: any value)")
        return "\n".join(lines)


@dataclass
class Report:
    function: str
    raised_function: str
    dialect: str
    verdict: str  # "equivalent", "not equivalent" or "unknown"
    level: str  # the level that decided: "test", "z3" (bounded sizes) or "all" (every size)
    sizes_tested: list[Sizes] = field(default_factory=list)
    input_sets: int = 0  # input sets run at level "test"
    sizes_proven: list[Sizes] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    counterexample: Counterexample | None = None
    message: str = ""  # why, when the verdict is "unknown"
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)  # "test" / "all" / "z3" -> seconds
    domain: str = ""  # level "all": the sizes the proof covers, in words
    all_sizes: str = ""  # level "all" tried and fell back to "z3": why
    # the largest sizes tested, with the original's statement instances and the raise's
    # estimated element operations there (SizePlan.largest_tested; None: not counted)
    largest: list[dict] = field(default_factory=list)

    @property
    def proof(self) -> str:
        """The proof level reached: "all sizes", "bounded sizes" or "none"."""
        if self.verdict != "equivalent":
            return "none"
        return {"all": "all sizes", "z3": "bounded sizes"}.get(self.level, "none")

    @property
    def equivalent(self) -> bool:
        return self.verdict == "equivalent"

    def summary(self) -> str:
        head = f"@{self.raised_function} ({self.dialect}) vs @{self.function}: "
        lines = []
        if self.verdict == "equivalent":
            lines.append(head + f"EQUIVALENT (level {self.level})")
        elif self.verdict == "not equivalent":
            lines.append(head + f"NOT EQUIVALENT (found at level {self.level})")
        else:
            lines.append(head + f"UNKNOWN at level {self.level}: {self.message}")
        if self.sizes_tested:
            lines.append(f"  tested: {self.input_sets} input sets (random, zeros, negatives, small, tiny, "
                         f"large, mixed) at sizes " + "; ".join(map(sizes_text, self.sizes_tested))
                         + f", tolerance rtol {RTOLS['f64']:g} (f64), {RTOLS['f32']:g} (f32), "
                         f"exact (integers)")
        if self.level == "all" and self.verdict == "equivalent":
            lines.append(f"  proven by Z3 (unsat) for every size: {self.domain}; every array element "
                         f"and scalar symbolic")
            lines.append("  covers: every size in that domain, in exact real arithmetic (floating-point "
                         "results may differ by rounding and reassociation)")
        elif self.all_sizes:
            lines.append(f"  all-size proof: {self.all_sizes}; fell back to bounded sizes")
        if self.sizes_proven:
            lines.append("  proven by Z3 (unsat) at sizes " + "; ".join(map(sizes_text, self.sizes_proven))
                         + ", every array element and scalar symbolic")
            lines.append("  covers: exactly these sizes, in exact real arithmetic (floating-point "
                         "results may differ by rounding and reassociation)")
        for a in self.assumptions:
            lines.append(f"  assuming: {a}")
        if self.counterexample is not None:
            lines.append("  counterexample " + str(self.counterexample).replace("\n", "\n    "))
        times = ", ".join(f"{k} {v:.2f} s" for k, v in self.timings.items())
        lines.append(f"  time: {self.seconds:.2f} s" + (f" ({times})" if times else ""))
        return "\n".join(lines)


