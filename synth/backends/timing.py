"""Timing a call: warm-up calls, then timed samples, summarised by their median.

`measure` times a Python callable in this process (`time.perf_counter` around each call).
`measure_batched` is for callables timed elsewhere (the MLIR worker process): it asks for
batches of samples and discards the warm-up ones.

Every backend's timed call gets inputs copied just before it, untimed (`fresh_copies`): the
MLIR worker and the C baseline must copy them (the loops update their arrays in place),
and XLA and IREE are given fresh device copies too, so that no backend finds its inputs in
the cache from the call before when the others do not.

Each sample has its CPU time beside it where the backend can tell (`Timing.cpu_samples`: the
process's CPU time during the call, `time.process_time` where the call runs, in this process
or in the worker): on a host shared with other work a call's wall time grows with the load
while its CPU time mostly does not, so ratios of CPU times are the steadier comparison there.

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
from dataclasses import dataclass, field
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
    cpu_samples: list[float] = field(default_factory=list)  # CPU time of each sample's call(s); [] unknown

    @classmethod
    def from_samples(cls, samples: list[float], warmup: int, cpu_samples: list[float] | None = None) -> "Timing":
        if not samples:
            raise ValueError("a timing needs at least one sample")
        cpu = list(cpu_samples or [])
        if cpu and len(cpu) != len(samples):
            raise ValueError(f"{len(cpu)} CPU times for {len(samples)} samples")
        return cls(statistics.median(samples), list(samples), warmup, len(samples), cpu)

    @property
    def cpu_seconds(self) -> float | None:
        """The median of the samples' CPU times, None where the backend does not tell them."""
        return statistics.median(self.cpu_samples) if self.cpu_samples else None

    def to_json(self) -> dict:
        return {"seconds": self.seconds, "samples": self.samples, "warmup": self.warmup,
                "repeats": self.repeats, "cpu_samples": self.cpu_samples}


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

    def once() -> tuple[float, float]:
        args = None if setup is None else setup()
        t0, c0 = time.perf_counter(), time.process_time()
        run() if setup is None else run(args)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        check_limit(seconds, limit, "a call")
        return seconds, cpu

    for _ in range(warmup):
        once()
    samples: list[float] = []
    cpu: list[float] = []
    while len(samples) < repeats or (sum(samples) < min_total and len(samples) < max_samples):
        seconds, used = once()
        samples.append(seconds)
        cpu.append(used)
    return Timing.from_samples(samples, warmup, cpu)


def measure_batched(run_batch: Callable[[int], list[float]], warmup: int = 1, repeats: int = 5,
                    min_total: float = 0.0, max_samples: int = 100_000, limit: float | None = None) -> Timing:
    """`run_batch(n)` makes n calls and returns their n times, or a pair (the n times, their n
    CPU times); the first `warmup` are dropped. `limit`: a batch with a call longer than it
    raises CallTimeout (`check_limit`)."""
    _check(warmup, repeats)

    def batch(n: int) -> tuple[list[float], list[float]]:
        got = run_batch(n)
        seconds, cpu = (list(got[0]), list(got[1])) if isinstance(got, tuple) else (list(got), [])
        check_limit(max(seconds, default=0.0), limit, "a call")
        return seconds, cpu if len(cpu) == len(seconds) else []

    samples, cpu = batch(warmup + repeats)
    samples, cpu = samples[warmup:], cpu[warmup:]
    while sum(samples) < min_total and len(samples) < max_samples:
        per_call = max(statistics.median(samples), 1e-9)
        more = min(max_samples - len(samples), math.ceil((min_total - sum(samples)) / per_call))
        seconds, used = batch(max(more, 1))
        cpu = cpu + used if cpu and used else []
        samples += seconds
    return Timing.from_samples(samples, warmup, cpu)
