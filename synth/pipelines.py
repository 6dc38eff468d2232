"""Pipelines that compile MLIR in the execution worker (synth.execution): the pass
pipelines' texts, Steps and Pipelines of them (MLIR pass pipelines or rewrites written in
Python), and running them on a module, a failing step named (PassFailed)."""

from __future__ import annotations

from typing import NamedTuple

# math ops LLVM has no intrinsic for (math.erf: C's erf / erff) become calls of libm's
# functions (the process has libm loaded); the others stay LLVM intrinsics
MATH_TO_LLVM = "convert-math-to-llvm,convert-math-to-libm,convert-to-llvm"
AFFINE_PIPELINE = (
    f"builtin.module(lower-affine,convert-scf-to-cf,{MATH_TO_LLVM},reconcile-unrealized-casts)"
)
# affine lowered first: a static drop-in's original loops (@NAME_loops) are affine.
# The ownership-based deallocation may keep flags in memrefs of i1, whose stores MLIR 22's
# memref-to-LLVM conversion aborts on (`integralElementType.getWidth() >= 8`: durbin's
# generic linalg raise, whose loop yields buffers it may have allocated): between the two
# halves, memrefs of i1 become memrefs of bytes (BOOLS_AS_BYTES, synth.backends.byte_bools).
# Between bufferization and buffer-results-to-out-params, a memref returned twice (two
# results one buffer holds) gets a copy (DISTINCT_BUFFERS, synth.backends.distinct_results):
# MLIR 22's pass crashes the process on it.
TENSOR_PIPELINE = (
    "builtin.module(lower-affine,one-shot-bufferize{bufferize-function-boundaries=1 "
    "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops=1});"
    "synth-distinct-result-buffers;builtin.module("
    "buffer-results-to-out-params{modify-public-functions=1 hoist-static-allocs=1},"
    "func.func(convert-linalg-to-loops),buffer-deallocation-pipeline);synth-bools-as-bytes;"
    "builtin.module(convert-scf-to-cf,"
    f"expand-strided-metadata,lower-affine,finalize-memref-to-llvm,{MATH_TO_LLVM},"
    "reconcile-unrealized-casts)"
)

# a drop-in module (synth raise's output: the tensor @NAME_raised, the memref @NAME that
# calls it, and a guarded static raise's original loops @NAME_loops) as one memref function:
# calls inlined first (a generic raise's dynamic results cannot become out-parameters),
# affine lowered before scf
DROPIN_PIPELINE = TENSOR_PIPELINE.replace("builtin.module(", "builtin.module(inline,lower-affine,", 1)

# elementwise chains fused first (one loop nest, no temporaries between them): a time loop's
# linalg body at its own sizes runs 5x faster. MLIR (the wheel's build) crashes on some IR
# with it (a generalized op whose result is also returned and copied), so callers fall
# back to TENSOR_PIPELINE when the worker crashes (synth.validation.reference).
FUSED_TENSOR_PIPELINE = TENSOR_PIPELINE.replace(
    "builtin.module(", "builtin.module(func.func(linalg-generalize-named-ops,linalg-fuse-elementwise-ops),", 1)

# a pipeline given as a string: one pass pipeline, or stages separated by STAGE, each a pass
# pipeline or a rewrite written in Python in REWRITES (run in the worker). The backends'
# pipelines are Pipelines of Steps instead (synth.backends.passes).
STAGE = ";"
BOOLS_AS_BYTES = "synth-bools-as-bytes"
DISTINCT_BUFFERS = "synth-distinct-result-buffers"
REWRITES = {BOOLS_AS_BYTES: ("synth.backends.byte_bools", "bools_as_bytes"),
            DISTINCT_BUFFERS: ("synth.backends.distinct_results", "distinct_result_buffers")}


class Step(NamedTuple):
    """One step of a pipeline: `kind` "mlir" (payload: a pass pipeline's text) or "python"
    (payload: "package.module:function", a rewrite `function(module) -> number of rewrites`
    imported where the step runs, in the worker)."""

    kind: str
    name: str
    payload: str


class Pipeline(tuple):
    """An ordered list of Steps (what synth.backends.mlir_cpu runs), printable by name."""

    def names(self) -> list[str]:
        return [s.name for s in self]

    def index_of(self, name: str) -> int:
        names = self.names()
        if name not in names:
            raise KeyError(f"no step {name!r} in the pipeline ({', '.join(names)})")
        return names.index(name)

    def before(self, name: str) -> "Pipeline":
        """The steps before the step `name`."""
        return Pipeline(self[:self.index_of(name)])

    def without(self, name: str) -> "Pipeline":
        return Pipeline(s for s in self if s.name != name)

    def replaced(self, name: str, step: Step) -> "Pipeline":
        return Pipeline(step if s.name == name else s for s in self)

    def inserted_before(self, name: str, step: Step) -> "Pipeline":
        k = self.index_of(name)
        return Pipeline(self[:k] + (step,) + self[k:])

    def __str__(self) -> str:
        return " -> ".join(self.names())

    def to_text(self) -> str:
        """One step a line, `KIND NAME PAYLOAD` (what `from_text` reads back: a pipeline kept
        in a file, e.g. for scripts/compare_pipelines.py)."""
        return "".join(f"{s.kind} {s.name} {s.payload}\n" for s in self)

    @staticmethod
    def from_text(text: str) -> "Pipeline":
        steps = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            parts = line.split(" ", 2)
            if len(parts) != 3 or parts[0] not in ("mlir", "python"):
                raise ValueError(f"line {n}: expected 'mlir|python NAME PAYLOAD', got {line[:60]!r}")
            steps.append(Step(*parts))
        return Pipeline(steps)


class PassFailed(Exception):
    """A step of a pipeline threw, or left IR that fails verification: the pass is named."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"pass {name} failed: {reason}")
        self.pass_name, self.reason = name, reason


def error_text(e: BaseException) -> str:
    """One line for an error from a pass run: its type and MLIR diagnostics (location: message)."""
    diags = getattr(e, "error_diagnostics", None)
    if diags:
        return f"{type(e).__name__}: " + "; ".join(f"{d.location}: {d.message}" for d in diags)
    return f"{type(e).__name__}: {e}"


def as_steps(pipeline) -> list[Step]:
    """A Pipeline (or any sequence of Steps) as it is; a string: its STAGE-separated stages,
    each a pass pipeline or a name in REWRITES."""
    if not isinstance(pipeline, str):
        return [Step(*s) for s in pipeline]
    steps = []
    for stage in pipeline.split(STAGE):
        if stage in REWRITES:
            steps.append(Step("python", stage, ":".join(REWRITES[stage])))
        else:
            steps.append(Step("mlir", stage, stage))
    return steps


def run_step(module, step: Step) -> int:
    """Run one step on `module`; the number of rewrites a Python step made (0 for MLIR's).
    A step that throws, or a Python step after which the module fails to verify, raises
    PassFailed naming it."""
    import importlib

    from mlir import ir, passmanager

    if step.kind == "mlir":
        try:
            passmanager.PassManager.parse(step.payload).run(module.operation)
        except (ir.MLIRError, ValueError) as e:
            raise PassFailed(step.name, error_text(e)) from None
        return 0
    where, name = step.payload.split(":")
    try:
        count = getattr(importlib.import_module(where), name)(module)
    except Exception as e:  # any exception of a rewrite is that pass's failure, named
        raise PassFailed(step.name, error_text(e)) from None
    try:
        module.operation.verify()
    except ir.MLIRError as e:
        raise PassFailed(step.name, "left IR that fails verification: " + error_text(e)) from None
    return int(count or 0) if not isinstance(count, bool) else int(count)


def run_stages(module, pipeline) -> dict[str, int]:
    """Run `pipeline` (a Pipeline, or a string: see STAGE) on `module` (an ir.Module), step
    by step; the number of rewrites each Python step made, by name."""
    counts: dict[str, int] = {}
    for step in as_steps(pipeline):
        made = run_step(module, step)
        if step.kind == "python":
            counts[step.name] = counts.get(step.name, 0) + made
    return counts
