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

from synth.errors import ExecutionError, SynthError
from synth.frontend.size_extremes import consistent

CHECK_TIMEOUT = 120.0
CTYPES = {"f64": "c_double", "f32": "c_float", "i64": "c_int64", "i32": "c_int32", "i16": "c_int16",
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


def reference(kernel, source, arguments: list[dict], static: bool, seed: int = 0) -> tuple[list, dict, list]:
    """(the call's arguments as written, {argument: final array} of the written ones, the
    returned values) of the original on seeded inputs at `check_sizes`. An array of static
    type is passed whole (the loops bounded by the sizes reach a part of it)."""
    args = inputs(kernel, arguments, static, seed)
    return (args, *_run(kernel, source, args))


def inputs(kernel, arguments: list[dict], static: bool, seed: int = 0) -> list:
    """The seeded inputs of the check (`reference`) at `check_sizes`: arrays as ndarrays,
    scalars as (type, value)."""
    from synth.synthesis.spec import random_draw

    values = check_sizes(kernel, static)
    draw = random_draw(np.random.default_rng(seed))
    params = kernel.sizes.param_values(values)
    if not consistent(kernel.sizes.extremes, params):  # the C would run to other bounds
        raise SynthError(f"no size arguments of @{kernel.name} give its loop bounds min/max of sizes "
                         f"the values {dict(values)}")
    args = []
    for a, meta in zip(kernel.function.arguments[:kernel.n_arguments], arguments):
        if a.is_array:
            static = meta["kind"] == "memref" and all(d is not None for d in meta["shape"])
            # a dim of static extent keeps it (blas2's gemv_rows: A is double (*)[24], its
            # 24 columns a size the scaling would otherwise make 15, and the original then
            # read past the array it was given)
            shape = tuple(meta["shape"]) if static else tuple(
                int(d) if m is None else int(m) for d, m in zip(kernel.sizes.shape(a.index, values), meta["shape"]))
            args.append(np.require(draw(shape, a.type), requirements="C"))
        elif a.index in params:
            args.append((a.type, params[a.index]))
        else:
            args.append((a.type, draw((), a.type).item()))
    return args


def _run(kernel, source, args: list) -> tuple[dict, list]:
    from synth.execution import run_function

    result = run_function(source.text, kernel.name, list(args), opt_level=2)
    return {i: np.array(result.outputs[i]) for i in kernel.written}, [np.array(r) for r in result.results]


def conditioned(kernel, source, call: list, written: dict, returned: list, seed: int = 0):
    """Where the object's outputs differ from the original's on the check's draw: the draw
    the comparison is fair on, as synth bench and validation's testing choose it (one
    concept, synth.numerics / synth.synthesis.spec): made diagonally dominant where the
    original's outputs are not finite or grow (LU without pivoting), divided by the largest
    extent where the original amplifies a 1e-12 relative move of its inputs more than
    ILL_CONDITIONED times (durbin's recursion on random r) and not on the scaled draw; and
    per output the elements rounding alone decides (they move under that perturbation:
    gramschmidt's columns of Q past the rank of A), which are not compared. (call,
    {argument: array}, [returned], {argument: mask or None}, [mask or None])."""
    from synth.numerics import amplification, perturbed, undetermined
    from synth.synthesis.spec import diagonally_dominant, finite_outputs, grown, scaled_down
    from synth.validation.testing import ILL_CONDITIONED

    def outputs(w, r) -> list:
        return [w[i] for i in sorted(w)] + list(r)

    inputs = [a for a in call if isinstance(a, np.ndarray)]
    if not finite_outputs(outputs(written, returned)) or grown(inputs, outputs(written, returned)):
        call = diagonally_dominant(call)
        written, returned = _run(kernel, source, call)
    rng = np.random.default_rng(seed + 2026)
    again = _run(kernel, source, perturbed(call, rng))
    if amplification(outputs(written, returned), outputs(*again)) > ILL_CONDITIONED:
        calmer = scaled_down(call)
        calm = _run(kernel, source, calmer)
        if finite_outputs(outputs(*calm)):
            calm_again = _run(kernel, source, perturbed(calmer, rng))
            if amplification(outputs(*calm), outputs(*calm_again)) <= ILL_CONDITIONED and not any(
                    m is not None and m.any() for m in undetermined(outputs(*calm), outputs(*calm_again))):
                call, (written, returned), again = calmer, calm, calm_again
    masks = undetermined(outputs(written, returned), outputs(*again))
    keys = sorted(written)
    return (call, written, returned, dict(zip(keys, masks[:len(keys)])), masks[len(keys):])


def differs(expected: np.ndarray, got: np.ndarray, ignore: np.ndarray | None = None) -> bool:
    """Whether two outputs differ beyond the rounding of reassociated sums (1e-9 of the
    output's largest magnitude for f64, 1e-4 for f32); `ignore`: a mask of elements not
    compared (`conditioned`)."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.shape != got.shape:
        return True
    if ignore is not None and np.shape(ignore) == expected.shape:
        expected, got = np.where(ignore, 0, expected), np.where(ignore, 0, got)
    if not np.issubdtype(expected.dtype, np.floating):
        return not np.array_equal(expected, got)
    both_nan = np.isnan(expected) & np.isnan(got)
    scale = float(np.nanmax(np.abs(expected))) if np.isfinite(expected).any() else 1.0
    rtol = 1e-4 if expected.dtype == np.float32 else 1e-9
    close = np.isclose(got, expected, rtol=rtol, atol=rtol * max(scale, 1e-30), equal_nan=True)
    return not bool(np.all(close | both_nan))


def run_object(obj: Path, entry: str, arguments: list[dict], results: list[str], args: list,
               runtime_c: str) -> tuple[list, list]:
    """Call `entry` of the object `obj` on `args` in a worker process: (the arguments after
    the call, the returned values). ExecutionError when it cannot be built or crashes."""
    with tempfile.TemporaryDirectory(prefix="synth-cc-check-") as tmp:
        tmp = Path(tmp)
        (tmp / "runtime.c").write_text(runtime_c)
        r = subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(tmp / "lib.so"), str(obj), str(tmp / "runtime.c"),
                            "-lm"], capture_output=True, text=True)
        if r.returncode:
            raise ExecutionError(f"cannot link the object to check it: {r.stderr.strip()[-300:]}")
        return run_worker("synth.driver.check", tmp, {"lib": str(tmp / "lib.so"), "entry": entry,
                                                      "arguments": arguments, "results": results, "args": args},
                          "outputs.pkl", CHECK_TIMEOUT, "the check call")


def run_worker(module: str, directory: Path, request: dict, reply: str, timeout: float, what: str):
    """Run `python -m module directory` on `request` (pickled to directory/request.pkl) and
    return what it pickled to directory/`reply`; ExecutionError (naming `what`) when it
    crashes, fails or runs past `timeout` seconds."""
    with open(directory / "request.pkl", "wb") as f:
        pickle.dump(request, f)
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        r = subprocess.run([sys.executable, "-m", module, str(directory)], capture_output=True,
                           text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise ExecutionError(f"{what} did not end within {timeout:.0f} s") from None
    if r.returncode:
        raise ExecutionError(f"{what} failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    with open(directory / reply, "rb") as f:
        return pickle.load(f)


def _worker(directory: str) -> int:  # pragma: no cover - runs in the worker process
    import ctypes

    from synth.execution import memref_descriptor

    d = Path(directory)
    with open(d / "request.pkl", "rb") as f:
        req = pickle.load(f)
    lib = ctypes.CDLL(req["lib"])
    fn = getattr(lib, req["entry"])
    call, arrays, keep = [], [], []
    for meta, a in zip(req["arguments"], req["args"]):
        if meta["kind"] == "scalar":
            value = a[1] if isinstance(a, tuple) else a
            call.append(getattr(ctypes, CTYPES[meta["type"]])(value))
            arrays.append(None)
            continue
        array = np.array(a, copy=True, order="C")
        desc = memref_descriptor(array)
        keep.append(desc)
        call.append(ctypes.pointer(desc))
        arrays.append(array)
    fn.restype = getattr(ctypes, CTYPES[req["results"][0]]) if req["results"] else None
    value = fn(*call)
    with open(d / "outputs.pkl", "wb") as f:
        pickle.dump((arrays, [] if value is None else [np.array(value)]), f)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1]))
