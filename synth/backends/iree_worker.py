"""IREE invocations in a worker process under a memory ceiling.

A call can need far more memory than its tensors: PolyBench adi's static raise at LARGE
(inner scf.for loops carrying 1000x1000 f64 tensors) is compiled by IREE 3.13 into loops
that copy the carried tensors into a fresh 8-16 MB buffer every iteration, and the old
buffers are not given back until the call ends (measured: resident memory grows steadily
at ~600 MB/s, > 5 GB within 10 s of one time step; the kernel's OOM killer took the whole
bench at 18-22 GB). So the compiled
module is loaded and called in a child process (`python -m synth.backends.iree_worker`)
whose resident memory the parent watches while it waits for an answer: above the ceiling
the child is killed and the call raises `ExecutionError` naming memory; the bench records
that as the backend's error row and goes on.

The ceiling: `memory_limit` bytes, else `$SYNTH_IREE_MEMORY_GB`, else a quarter of the
machine's memory, at most 8 GB (`default_memory_limit`).

A call can also run for minutes (deriche's static linalg raise at LARGE: 260 s, IREE
copying the 4096 x 2160 tensor its loop carries in each iteration). With a `deadline`
(seconds), a request still running past it has its child killed and raises CallTimeout;
the child itself reports a call longer than the request's `limit` once it returns.

Protocol: pickled (request, reply) pairs over the child's stdin and a private copy of its
stdout (fd 1 itself is pointed at stderr, so the runtime's prints cannot corrupt it).
Requests: ("load", vmfb, function, driver, threads), ("run", arrays, limit),
("time", arrays, warmup, repeats, min_total, limit), ("faults",) (the child's minor page faults
so far: tests/test_iree_transients.py); replies ("ok", value), ("error", text)
or ("timeout", (text, limit)).
"""

from __future__ import annotations

import os
import pickle
import select
import subprocess
import sys
import tempfile
import time

from synth.errors import CallTimeout, ExecutionError

POLL_SECONDS = 0.02
# drivers whose device gets IREE's caching allocator: on local-sync (a generic raise's,
# synth.backends.iree) each queue allocation is a fresh heap block, which glibc maps and
# unmaps for a large one: a loop kept in the raise allocates its carried array's next
# value every iteration (floyd-warshall at n = 500: 1 MB, 500 times per call), whose page
# faults made such a call several times slower (with the broadcasts read as the static
# compile's, iree_extents: 0.81 s per call, 0.097 s with the cache; per input shapes on
# local-task 0.12 s); and a dynamic program's transients are one block per call, the sum
# of their sizes (3mm at LARGE: 67.6 MB, mapped and faulted in each call). Bounded: at
# most 16 free buffers kept, 1 GiB in all
# (unbounded, IREE keeps every size ever freed: a loop over shrinking blocks would hold
# them all)
CACHING_DRIVERS = {"local-sync": "caching:*=*;1gib;16"}


def default_memory_limit() -> int:
    env = os.environ.get("SYNTH_IREE_MEMORY_GB")
    if env:
        try:
            return int(float(env) * 2**30)
        except ValueError:
            raise ExecutionError(f"SYNTH_IREE_MEMORY_GB={env!r} is not a number of GB") from None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        total = 16 * 2**30
    return min(8 * 2**30, total // 4)  # room for the bench itself and a second job


def _resident(pid: int) -> int:
    """Resident bytes of process `pid` (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class IreeWorker:
    """One child process holding one loaded module; calls are checked against the ceiling."""

    def __init__(self, memory_limit: int | None = None):
        self.memory_limit = memory_limit if memory_limit is not None else default_memory_limit()
        self.peak = 0  # the largest resident size seen, bytes
        self._stderr = tempfile.TemporaryFile()  # a file: a full pipe would block the child
        self.proc = subprocess.Popen([sys.executable, "-m", "synth.backends.iree_worker"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr)

    def call(self, request: tuple, what: str, deadline: float | None = None):
        """The child's answer to `request`; `deadline`: seconds it may take (None: no limit)."""
        if self.proc.poll() is not None:
            raise ExecutionError(f"IREE worker is gone (exit code {self.proc.returncode})")
        try:
            pickle.dump(request, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except OSError as e:
            raise ExecutionError(f"IREE worker: {what}: {e}") from None
        out = self.proc.stdout
        start = time.perf_counter()
        while True:
            ready, _, _ = select.select([out], [], [], POLL_SECONDS)
            resident = _resident(self.proc.pid)
            self.peak = max(self.peak, resident)
            if resident > self.memory_limit:
                self.close()
                raise ExecutionError(
                    f"IREE {what} exceeded the memory ceiling: {resident / 2**30:.2f} GB resident > "
                    f"{self.memory_limit / 2**30:.2f} GB (SYNTH_IREE_MEMORY_GB); worker killed")
            if ready:
                break
            if deadline is not None and time.perf_counter() - start > deadline:
                self.close()
                raise CallTimeout(f"IREE {what} still ran after {deadline:.3g} s (--call-timeout); worker killed",
                                  deadline)
        try:
            status, value = pickle.load(out)
        except (EOFError, pickle.UnpicklingError):
            self.proc.wait()
            raise ExecutionError(f"IREE worker died during {what} (exit code {self.proc.returncode}): "
                                 f"{self._tail()}") from None
        if status == "timeout":
            raise CallTimeout(f"IREE {what}: {value[0]}", value[1])
        if status != "ok":
            raise ExecutionError(f"IREE {what}: {value}")
        return value

    def _tail(self) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            text = ""
        lines = text.strip().splitlines()
        return " | ".join(lines[-3:]) or "(no output)"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self._stderr):
            try:
                stream.close()
            except OSError:
                pass

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


# ---- the child --------------------------------------------------------------------------

class _Loaded:
    def __init__(self, vmfb: str, function: str, driver: str, threads: int | None):
        import iree.runtime as rt

        self.rt = rt
        if driver == "local-task":
            rt.flags.parse_flags(f"--task_topology_group_count={threads or os.cpu_count() or 1}")
        if driver in CACHING_DRIVERS:
            device = rt.get_driver(driver).create_default_device(allocators=[CACHING_DRIVERS[driver]])
            config = rt.Config(device=device)
        else:
            config = rt.Config(driver)
        self.context = rt.SystemContext(config=config)
        with open(vmfb, "rb") as f:
            module = rt.VmModule.copy_buffer(self.context.instance, f.read())
        self.context.add_vm_module(module)
        self.entry = self.context.modules[module.name][function]
        self.device = config.device

    def device_inputs(self, arrays: list) -> list:
        import numpy as np

        return [self.rt.asdevicearray(self.device, np.copy(a)) for a in arrays]

    def run(self, arrays: list, limit: float | None = None) -> list:
        import numpy as np

        from synth.backends.timing import check_limit

        args = self.device_inputs(arrays)
        t0 = time.perf_counter()
        results = self.entry(*args)
        check_limit(time.perf_counter() - t0, limit, "a call")
        if not isinstance(results, (tuple, list)):
            results = [results]
        return [np.array(r.to_host()) for r in results]

    def time(self, arrays: list, warmup: int, repeats: int, min_total: float, limit: float | None = None):
        from synth.backends.timing import measure

        # fresh device copies before each call, untimed, as every backend (synth.backends.timing)
        return measure(lambda args: self.entry(*args), warmup, repeats, min_total,
                       setup=lambda: self.device_inputs(arrays), limit=limit)


def main() -> None:
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints go to stderr
    requests = sys.stdin.buffer
    loaded = None
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:
            return
        try:
            kind, args = request[0], request[1:]
            if kind == "load":
                loaded, value = _Loaded(*args), None
            elif kind == "run":
                value = loaded.run(*args)
            elif kind == "time":
                value = loaded.time(*args)
            elif kind == "faults":  # the page faults the worker took so far (minor: memory it touched anew)
                import resource

                value = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            else:
                raise ValueError(f"unknown request {kind!r}")
            reply = ("ok", value)
        except CallTimeout as e:
            reply = ("timeout", (str(e), e.limit))
        except Exception as e:  # reported to the parent, which raises ExecutionError
            reply = ("error", f"{type(e).__name__}: {e}"[:1000])
        pickle.dump(reply, replies, protocol=pickle.HIGHEST_PROTOCOL)
        replies.flush()


if __name__ == "__main__":
    main()
