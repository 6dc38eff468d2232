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


def test_cores_is_at_least_one_and_free_cores_at_most_those(monkeypatch):
    assert background.cores() >= 1
    assert 1 <= background.free_cores() <= background.cores()
    monkeypatch.setattr(background, "cores", lambda: 4)
    monkeypatch.setattr(background.os, "getloadavg", lambda: (1.7, 0.0, 0.0))
    assert background.free_cores() == 3  # 4 cores, one busy on average
    monkeypatch.setattr(background.os, "getloadavg", lambda: (9.0, 0.0, 0.0))
    assert background.free_cores() == 1
