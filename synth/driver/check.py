"""The native object of a raise checked against the original before it is used: the
validation proves the raised program, not the performance pipeline that compiles it, so the
object's C entry point is called (in a worker process: a bad object may crash) on the
kernel's own inputs, at its sizes, and its outputs compared with the original loops run by
MLIR's reference lowering (synth.execution.run_function). A difference sends the build to
the plain drop-in pipeline (synth.driver.jobs).

    python -m synth.driver.check DIR   # the worker: DIR/request.pkl -> DIR/outputs.pkl
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from synth.errors import ExecutionError

CHECK_TIMEOUT = 120.0
_CTYPES = {"f64": "c_double", "f32": "c_float", "i64": "c_int64", "i32": "c_int32", "i16": "c_int16",
           "i8": "c_int8", "index": "c_int64", "i1": "c_bool"}


CHECK_SIZE = 40  # the largest size the check runs at (its sizes keep the kernel's ratios)


def check_sizes(kernel, static: bool) -> dict[str, int]:
    """A static raise: the kernel's own sizes (at others the drop-in runs the original).
    A generic one: those sizes scaled so the largest is CHECK_SIZE, large enough for the
    tiles of the performance pipeline to be whole (and to have remainders), small enough
    for the original to run at once through the reference lowering."""
    values = kernel.sizes.original()
    top = max(values.values(), default=0)
    if static or top <= 0:
        return values
    return {k: max(1, round(v * CHECK_SIZE / top)) for k, v in values.items()}


def reference(kernel, source, arguments: list[dict], static: bool, seed: int = 0,
              perturb: float = 0.0) -> tuple[list, dict, list]:
    """(the call's arguments as written, {argument: final array} of the written ones, the
    returned values) of the original on seeded inputs at `check_sizes`. An array of static
    type is passed whole (the loops bounded by the sizes reach a part of it). `perturb`:
    each float input multiplied by 1 + perturb * u, u uniform in [-1, 1] (`tolerances`)."""
    from synth.execution import run_function
    from synth.synthesis.spec import random_draw

    values = check_sizes(kernel, static)
    draw = random_draw(np.random.default_rng(seed))
    params = kernel.sizes.param_values(values)
    args = []
    for a, meta in zip(kernel.function.arguments[:kernel.n_arguments], arguments):
        if a.is_array:
            static = meta["kind"] == "memref" and all(d is not None for d in meta["shape"])
            # a dim of static extent keeps it (blas2's gemv_rows: A is double (*)[24], its
            # 24 columns a size the scaling would otherwise make 15, and the original then
            # read past the array it was given)
            shape = tuple(meta["shape"]) if static else tuple(
                int(d) if m is None else int(m) for d, m in zip(kernel.sizes.shape(a.index, values), meta["shape"]))
            array = np.require(draw(shape, a.type), requirements="C")
            if perturb and np.issubdtype(array.dtype, np.floating):
                noise = np.random.default_rng(seed + 1).uniform(-1.0, 1.0, array.shape)
                array = np.require((array * (1.0 + perturb * noise)).astype(array.dtype), requirements="C")
            args.append(array)
        elif a.index in params:
            args.append((a.type, params[a.index]))
        else:
            args.append((a.type, draw((), a.type).item()))
    result = run_function(source.text, kernel.name, list(args), opt_level=2)
    written = {i: np.array(result.outputs[i]) for i in kernel.written}
    return args, written, [np.array(r) for r in result.results]


# the relative change of the inputs `tolerances` runs the original under: ~10^4 ulps of f64
PERTURB = 1e-12
# the most a kernel may amplify its inputs' rounding (relative to an output's magnitude)
# for the check still to tell rounding from a wrong program: beyond, the default tolerance
MAX_TOLERANCE = 1e-4


def tolerances(kernel, source, arguments: list[dict], static: bool, written: dict, returned: list,
               seed: int = 0) -> tuple[dict, list]:
    """How far rounding alone moves the original's outputs: the original run again on its
    inputs changed by a relative PERTURB; per output, 10 times its largest change relative
    to its largest magnitude, where that is at most MAX_TOLERANCE ({argument: rtol},
    [rtol per returned value]; None: the default). A recurrence that amplifies rounding
    (durbin's Levinson recursion on the check's random inputs: 2.3e-7 of y's magnitude,
    where a well-conditioned kernel stays near 1e-15) then accepts the reassociated sums of
    the raised code, and still refutes a wrong index or update (an error of the order of
    the output itself). An output that rounding moves by more than MAX_TOLERANCE (the
    columns of gramschmidt's Q past the rank of A are normalized rounding noise) keeps
    the default tolerance: the check cannot tell such an object from a wrong one."""
    _, moved, moved_returned = reference(kernel, source, arguments, static, seed, perturb=PERTURB)

    def rtol(expected, other) -> float | None:
        expected, other = np.asarray(expected), np.asarray(other)
        if not np.issubdtype(expected.dtype, np.floating) or expected.shape != other.shape:
            return None
        finite = np.isfinite(expected) & np.isfinite(other)
        if not finite.any():
            return None
        scale = max(float(np.abs(expected[finite]).max()), 1e-30)
        tol = 10.0 * float(np.abs(expected[finite] - other[finite]).max()) / scale
        return tol if tol <= MAX_TOLERANCE else None

    return ({i: rtol(a, moved[i]) for i, a in written.items()},
            [rtol(v, moved_returned[j]) for j, v in enumerate(returned)])


def differs(expected: np.ndarray, got: np.ndarray, rtol: float | None = None) -> bool:
    """Whether two outputs differ beyond the rounding of reassociated sums: by more than
    `rtol` (at least 1e-9 for f64, 1e-4 for f32; see `tolerances`) of the output's
    largest magnitude."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.shape != got.shape:
        return True
    if not np.issubdtype(expected.dtype, np.floating):
        return not np.array_equal(expected, got)
    both_nan = np.isnan(expected) & np.isnan(got)
    scale = float(np.nanmax(np.abs(expected))) if np.isfinite(expected).any() else 1.0
    rtol = max(rtol or 0.0, 1e-4 if expected.dtype == np.float32 else 1e-9)
    close = np.isclose(got, expected, rtol=rtol, atol=rtol * max(scale, 1e-30), equal_nan=True)
    return not bool(np.all(close | both_nan))


def run_object(obj: Path, entry: str, arguments: list[dict], results: list[str], args: list,
               runtime_c: str) -> tuple[list, list]:
    """Call `entry` of the object `obj` on `args` in a worker process: (the arguments after
    the call, the returned values). ExecutionError when it cannot be built or crashes."""
    with tempfile.TemporaryDirectory(prefix="synth-cc-check-") as tmp:
        tmp = Path(tmp)
        (tmp / "runtime.c").write_text(runtime_c)
        r = subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp / "lib.so"), str(obj), str(tmp / "runtime.c"),
                            "-lm"], capture_output=True, text=True)
        if r.returncode:
            raise ExecutionError(f"cannot link the object to check it: {r.stderr.strip()[-300:]}")
        with open(tmp / "request.pkl", "wb") as f:
            pickle.dump({"lib": str(tmp / "lib.so"), "entry": entry, "arguments": arguments,
                         "results": results, "args": args}, f)
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            r = subprocess.run([sys.executable, "-m", "synth.driver.check", str(tmp)], capture_output=True,
                               text=True, timeout=CHECK_TIMEOUT, env=env)
        except subprocess.TimeoutExpired:
            raise ExecutionError(f"the check call did not end within {CHECK_TIMEOUT:.0f} s") from None
        if r.returncode:
            raise ExecutionError(f"the check call failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
        with open(tmp / "outputs.pkl", "rb") as f:
            return pickle.load(f)


def _worker(directory: str) -> int:  # pragma: no cover - runs in the worker process
    import ctypes

    from mlir.runtime import get_ranked_memref_descriptor, make_zero_d_memref_descriptor, as_ctype

    d = Path(directory)
    with open(d / "request.pkl", "rb") as f:
        req = pickle.load(f)
    lib = ctypes.CDLL(req["lib"])
    fn = getattr(lib, req["entry"])
    call, arrays, keep = [], [], []
    for meta, a in zip(req["arguments"], req["args"]):
        if meta["kind"] == "scalar":
            value = a[1] if isinstance(a, tuple) else a
            call.append(getattr(ctypes, _CTYPES[meta["type"]])(value))
            arrays.append(None)
            continue
        array = np.array(a, copy=True, order="C")
        if array.ndim == 0:
            desc = make_zero_d_memref_descriptor(as_ctype(array.dtype))()
            desc.allocated = array.ctypes.data
            desc.aligned = ctypes.cast(array.ctypes.data, desc.aligned.__class__)
            desc.offset = ctypes.c_longlong(0)
        else:
            desc = get_ranked_memref_descriptor(array)
        keep.append(desc)
        call.append(ctypes.pointer(desc))
        arrays.append(array)
    fn.restype = getattr(ctypes, _CTYPES[req["results"][0]]) if req["results"] else None
    value = fn(*call)
    with open(d / "outputs.pkl", "wb") as f:
        pickle.dump((arrays, [] if value is None else [np.array(value)]), f)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1]))
