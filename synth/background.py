"""Work that runs beside the caller's: a function started on a thread of its own, its result
(or its exception) collected later from the Future it returns. For calls that spend their
time outside Python's lock (an XLA compile, waiting for the execution worker), so that on a
host with two or more cores they overlap what the caller does meanwhile. Nothing a result
depends on changes: the function is the same call, made earlier. Used by every layer, like
synth.numerics.

The threads are not daemons: a process that exits before collecting one waits for it (a
compile started ahead and never needed costs its time, not its correctness)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future


def start(fn, *args, **kwargs) -> Future:
    """`fn(*args, **kwargs)` on a new thread; its Future (`.result()` waits for it and
    returns its value or raises its exception)."""
    future: Future = Future()
    future.set_running_or_notify_cancel()

    def run():
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as e:  # handed to whoever collects the result, as the call would raise it
            future.set_exception(e)

    threading.Thread(target=run, name=f"synth-{getattr(fn, '__name__', 'work')}").start()
    return future


def cores() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no sched_getaffinity (macOS): every core
        return max(1, os.cpu_count() or 1)


def free_cores() -> int:
    """The cores this process may run on less the host's load (the runnable processes
    averaged over the last minute, this one's included), at least 1: how many pieces of
    work split to run at once can gain time. Splitting costs CPU time of its own (XLA: two
    executables take 10-20% more than one), which only cores with nothing else to do pay
    back; on a host whose cores are all busy the work stays in one piece."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average to read: every core counted free
        load = 0.0
    return max(1, cores() - int(load))
