"""Timing a call: warm-up calls, then timed samples, summarised by their median.

`measure` times a Python callable in this process (`time.perf_counter` around each call).
`measure_batched` is for callables timed elsewhere (the MLIR worker process): it asks for
batches of samples and discards the warm-up ones.

Every backend's timed call gets inputs copied just before it, untimed (`fresh_copies`): the
MLIR worker and the C baseline must copy them (the loops update their arrays in place),
and XLA and IREE are given fresh device copies too, so that no backend finds its inputs in
the cache from the call before when the others do not.

Both take `repeats` samples at least; with `min_total > 0` they keep sampling until the
timed samples add up to `min_total` seconds (so short calls get more samples), up to
`max_samples`. With a `limit` (seconds; `synth bench --call-timeout`), a call longer than
it raises CallTimeout once it returns (`check_limit`); a call in a worker process is
stopped by its worker's deadline (`worker_deadline`) as well.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from synth.errors import CallTimeout


def fresh_copies(inputs: list) -> list:
    """The inputs with every array copied (scalars as they are): what a timed call of a
    backend that does not copy them itself (XLA, IREE) is given, as described above."""
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in inputs]


@dataclass
class Timing:
    seconds: float  # median of the samples
    samples: list[float]  # one per timed call, in order
    warmup: int  # untimed calls before the samples
    repeats: int  # len(samples)

    @classmethod
    def from_samples(cls, samples: list[float], warmup: int) -> "Timing":
        if not samples:
            raise ValueError("a timing needs at least one sample")
        return cls(statistics.median(samples), list(samples), warmup, len(samples))

    def to_json(self) -> dict:
        return {"seconds": self.seconds, "samples": self.samples, "warmup": self.warmup,
                "repeats": self.repeats}


def check_limit(seconds: float, limit: float | None, what: str) -> None:
    """CallTimeout where `what` (a compile, a call) took `seconds`, longer than `limit`
    (None: no limit)."""
    if limit is not None and seconds > limit:
        raise CallTimeout(f"{what} took {seconds:.3g} s, over the limit of {limit:g} s (--call-timeout)", limit)


def worker_deadline(limit: float | None, calls: int, default: float | None) -> float | None:
    """Seconds a worker request of `calls` calls of a function, and perhaps its compile, may
    take before the worker is stopped: the limit for each call and one more for the compile
    (`default` without a limit)."""
    return default if limit is None else limit * (calls + 1)


def _check(warmup: int, repeats: int) -> None:
    if warmup < 0 or repeats < 1:
        raise ValueError(f"need warmup >= 0 and repeats >= 1 (got warmup={warmup}, repeats={repeats})")


def measure(run: Callable[..., object], warmup: int = 1, repeats: int = 5, min_total: float = 0.0,
            max_samples: int = 100_000, setup: Callable[[], object] | None = None,
            limit: float | None = None) -> Timing:
    """Call `run` `warmup` times untimed, then time each further call. With `setup`,
    each call is `run(setup())`, setup untimed (fresh copies of the inputs:
    `fresh_copies`). `limit`: a call longer than it raises CallTimeout (`check_limit`)."""
    _check(warmup, repeats)

    def once() -> float:
        if setup is None:
            t0 = time.perf_counter()
            run()
        else:
            args = setup()
            t0 = time.perf_counter()
            run(args)
        seconds = time.perf_counter() - t0
        check_limit(seconds, limit, "a call")
        return seconds

    for _ in range(warmup):
        once()
    samples: list[float] = []
    total = 0.0
    while len(samples) < repeats or (total < min_total and len(samples) < max_samples):
        samples.append(once())
        total += samples[-1]
    return Timing.from_samples(samples, warmup)


def measure_batched(run_batch: Callable[[int], list[float]], warmup: int = 1, repeats: int = 5,
                    min_total: float = 0.0, max_samples: int = 100_000, limit: float | None = None) -> Timing:
    """`run_batch(n)` makes n calls and returns their n times; the first `warmup` are dropped.
    `limit`: a batch with a call longer than it raises CallTimeout (`check_limit`)."""
    _check(warmup, repeats)

    def batch(n: int) -> list[float]:
        seconds = list(run_batch(n))
        check_limit(max(seconds, default=0.0), limit, "a call")
        return seconds

    samples = batch(warmup + repeats)[warmup:]
    while sum(samples) < min_total and len(samples) < max_samples:
        per_call = max(statistics.median(samples), 1e-9)
        more = min(max_samples - len(samples), math.ceil((min_total - sum(samples)) / per_call))
        samples += batch(max(more, 1))
    return Timing.from_samples(samples, warmup)
