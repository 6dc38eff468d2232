"""The Python passes of mlir-cpu's pipeline, by name, in the order the pipeline runs them.

A pass is a name and `apply(module) -> number of rewrites` (an ir.Module, changed in
place). In a pipeline (synth.execution.Pipeline) a pass is a Step("python", name,
"module:function"), run in the isolated ExecutionEngine worker; a pass that throws or leaves
IR that fails verification stops the pipeline with PassFailed naming it (never a silent
fallback: synth.backends.mlir_cpu). `synth opt --pass NAME FILE` runs one pass on a file
and prints the module (tests/lit/passes).
"""

from __future__ import annotations

from dataclasses import dataclass

from synth.execution import BOOLS_AS_BYTES, DISTINCT_BUFFERS, Step, run_step


@dataclass(frozen=True)
class Pass:
    name: str
    function: str  # "package.module:function", the function(module) -> int
    summary: str

    @property
    def step(self) -> Step:
        return Step("python", self.name, self.function)

    def apply(self, module) -> int:
        """Run the pass on `module` (in this process); the number of rewrites it made."""
        return run_step(module, self.step)


SLICE_SELECTS = "synth-slice-selects"
NARROW_PRODUCERS = "synth-narrow-producers"
TRIANGLES = "synth-triangular-blocks"
HOIST_FLIPS = "synth-hoist-flips"
FUSE_PRODUCERS = "synth-fuse-producers"
PIVOT_BLOCKS = "synth-pivot-blocks"
STATIC_ITER_ARGS = "synth-static-iter-args"
BROADCASTS_PER_USE = "synth-broadcasts-per-use"
PAYLOAD_CSE = "synth-payload-cse"
WAVEFRONT = "synth-wavefront"
HYPERPLANE_BANDS = "synth-hyperplane-bands"
WRITE_IN_PLACE = "synth-write-in-place"
SHIFT_REUSE = "synth-shift-reuse"
REVERSE_IN_PLACE = "synth-reverse-in-place"
COPIES_AS_LOOPS = "synth-copies-as-loops"
DISTINCT_RESULTS = "synth-distinct-results"
ONE_VIEW_PER_BUFFER = "synth-one-view-per-buffer"
WRITABLE_IN_OUT = "synth-writable-in-out"
LANE_SLICES = "synth-lane-slices"
LANE_BLOCKS = "synth-lane-blocks"
READS_FIRST = "synth-reads-first"

# in the order of the tiled pipeline (synth.backends.mlir_cpu.tiled_pipeline)
PASSES = (
    Pass(STATIC_ITER_ARGS, "synth.backends.static_iter_args:static_iter_args",
         "a static tensor a loop carries as a dynamic one, updated in place, carried static"),
    Pass(SLICE_SELECTS, "synth.backends.narrow:slice_selects",
         "counter-select generics put back where they came from: only the selected slice"),
    Pass(BROADCASTS_PER_USE, "synth.backends.broadcast_uses:broadcasts_per_use",
         "cheap producers (scalar broadcasts, index vectors) used several times computed once per use, for fusion"),
    Pass(NARROW_PRODUCERS, "synth.backends.narrow:narrow_producers",
         "dots over zero-padded operands and producers used only through a slice, narrowed"),
    Pass(PAYLOAD_CSE, "synth.backends.payload_cse:payload_cse",
         "an op computed twice in a generic's payload (fused per-use copies) computed once"),
    Pass(TRIANGLES, "synth.backends.triangles:triangular_blocks",
         "contractions over a triangle as loops over row blocks of the triangle"),
    Pass(HOIST_FLIPS, "synth.backends.invariant_flips:hoist_flips",
         "reversed reads of loop-invariant vectors reversed once before the loop"),
    Pass(FUSE_PRODUCERS, "synth.backends.row_passes:fuse_producers",
         "a vecmat computed with the row blocks of its elementwise matrix"),
    Pass(PIVOT_BLOCKS, "synth.backends.pivot_blocks:pivot_blocks",
         "pivot-row time loops (floyd-warshall) run blocks of steps per pass"),
    Pass(WAVEFRONT, "synth.backends.wavefront:wavefront",
         "stencil time loops sweep several steps at once"),
    Pass(HYPERPLANE_BANDS, "synth.backends.hyperplane_bands:hyperplane_bands",
         "sweeps over hyperplanes (seidel-2d) run by bands of rows, each band's hyperplanes clamped to it"),
    Pass(LANE_SLICES, "synth.backends.lane_slices:lane_slices",
         "a slice of a line's slice (adi's inner lanes of a column) taken as one slice of the array"),
    Pass(LANE_BLOCKS, "synth.backends.lane_blocks:lane_blocks",
         "counter loops whose step works lane by lane run by blocks of lanes, the state in registers"),
    Pass(READS_FIRST, "synth.backends.reads_first:reads_first",
         "reads of a tensor after an update of it in place moved before the update (no copy of the array)"),
    Pass(WRITE_IN_PLACE, "synth.backends.in_place:write_in_place",
         "loop steps that update their carried array elementwise write it in place"),
    Pass(SHIFT_REUSE, "synth.backends.shift_reuse:shift_reuse",
         "vector tiles reading one row at several shifts load it once"),
    Pass(ONE_VIEW_PER_BUFFER, "synth.backends.buffer_views:one_view_per_buffer",
         "the tensors of one memref (an in-out argument) made one, so bufferization sees their aliasing"),
    Pass(WRITABLE_IN_OUT, "synth.backends.buffer_views:writable_in_out",
         "the tensor of a memref written back later (an in-out argument) writable"),
    Pass(DISTINCT_RESULTS, "synth.backends.distinct_results:distinct_results",
         "a tensor returned at several positions returned as copies at the later ones"),
    Pass(DISTINCT_BUFFERS, "synth.backends.distinct_results:distinct_result_buffers",
         "a memref returned at several positions after bufferization returned as copies at the later ones"),
    Pass(REVERSE_IN_PLACE, "synth.backends.pairwise_reversal:reverse_in_place",
         "an update of a vector by its own reversal made in place, by pairs"),
    Pass(COPIES_AS_LOOPS, "synth.backends.copies:copies_as_loops",
         "copies the runtime would do element by element as compiled loops"),
    Pass(BOOLS_AS_BYTES, "synth.backends.byte_bools:bools_as_bytes",
         "memrefs of i1 as memrefs of i8 (MLIR 22 aborts on i1 stores)"),
)
LIBRARY_LOOPS = "synth-library-loops"

# lowerings run on the module before the pipeline (synth.backends.mlir_cpu.library_forms);
# `synth opt --pass` runs them too
LOWERINGS = (
    Pass(LIBRARY_LOOPS, "synth.backends.library_linalg:library_loops",
         "library loops (LU, Cholesky, forward substitution) blocked by panels in an scf.for"),
)


@dataclass(frozen=True)
class TextPass:
    """A lowering of stablehlo text run by a backend before its compiler (jaxlib's MLIR
    context, not the pipeline's): `function(text) -> (text, rewrites)`."""
    name: str
    function: str  # "package.module:function"
    summary: str

    def apply_text(self, text: str) -> tuple[str, int]:
        import importlib

        module, _, function = self.function.partition(":")
        return getattr(importlib.import_module(module), function)(text)


SOLVE_LOOPS = "synth-solve-loops"
GATHER_CLAMPS = "synth-gather-clamps"
# stablehlo lowerings of the IREE backend, in its order (synth.backends.iree.IreeBackend._compile);
# `synth opt --pass` runs them on stablehlo text
STABLEHLO_LOWERINGS = (
    TextPass(SOLVE_LOOPS, "synth.backends.solve_loops:lower",
             "stablehlo.triangular_solve as a stablehlo.while of substitution steps (IREE has no lowering of it)"),
    TextPass(GATHER_CLAMPS, "synth.backends.gather_clamps:lower",
             "each stablehlo.gather's start indices clamped explicitly, as the op clamps them (IREE reads them as they are)"),
)
BY_NAME = {p.name: p for p in PASSES + LOWERINGS + STABLEHLO_LOWERINGS}


def get(name: str) -> "Pass | TextPass":
    if name not in BY_NAME:
        raise KeyError(f"no pass {name!r}; the passes: {', '.join(BY_NAME)}")
    return BY_NAME[name]


def mlir(name: str, text: str) -> Step:
    """A step that runs MLIR's pass pipeline `text`, named `name` in the pipeline."""
    return Step("mlir", name, text)


def run_on_text(text: str, names: list[str], path: str = "<input>") -> tuple[str, dict[str, int]]:
    """`synth opt`: run the passes `names` (in order, in this process) on the module `text`;
    (the module printed, the rewrites each pass made). Bad input (a module that does not
    parse, an unknown pass) is an InputError with its location."""
    from mlir import ir

    from synth.errors import InputError
    from synth.execution import PassFailed

    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise InputError(f"unknown pass {unknown[0]!r}; the passes: {', '.join(BY_NAME)}")
    counts: dict[str, int] = {}
    if names and all(isinstance(get(n), TextPass) for n in names):
        return _run_text_passes(text, names, path)
    if any(isinstance(get(n), TextPass) for n in names):
        raise InputError("stablehlo lowerings (" + ", ".join(p.name for p in STABLEHLO_LOWERINGS)
                         + ") run alone, not with the mlir-cpu passes")
    with ir.Context() as ctx:
        ctx.allow_unregistered_dialects = False
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise InputError(*_location(e, path)) from None
        for name in names:
            try:
                counts[name] = counts.get(name, 0) + get(name).apply(module)
            except PassFailed as e:
                raise InputError(str(e), path) from None
        return str(module), counts


def _location(e, path: str) -> tuple[str, str]:
    """(message, file:line:col) of an MLIRError's first diagnostic."""
    d = e.error_diagnostics[0] if e.error_diagnostics else None
    where = str(d.location) if d is not None else ""
    loc = where.removeprefix("loc(").removesuffix(")").replace('"-"', path).replace('"', "")
    return (d.message if d is not None else str(e)), (loc or path)


def _run_text_passes(text: str, names: list[str], path: str) -> tuple[str, dict[str, int]]:
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir as jir

    from synth.errors import InputError

    try:  # the input is parsed here first, for a located error
        with jax_mlir.make_ir_context():
            jir.Module.parse(text)
    except jir.MLIRError as e:
        raise InputError(*_location(e, path)) from None
    counts: dict[str, int] = {}
    for name in names:
        text, made = get(name).apply_text(text)
        counts[name] = counts.get(name, 0) + made
    return text, counts
