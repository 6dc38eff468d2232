"""synth.background: a call on a thread of its own, its value or exception collected later."""

import threading
import time

import pytest

from synth import background


def test_start_returns_the_value_and_runs_beside_the_caller():
    gate = threading.Event()
    job = background.start(lambda x: (gate.wait(5), x * 2)[1], 21)
    assert not job.done()  # waiting for the caller: running beside it
    gate.set()
    assert job.result(timeout=5) == 42


def test_start_hands_the_exception_to_the_collector():
    def fails():
        time.sleep(0.01)
        raise KeyError("k")

    job = background.start(fails)
    with pytest.raises(KeyError):
        job.result(timeout=5)


def test_cores_is_at_least_one():
    assert background.cores() >= 1
