"""Time budgets are values (synth.budget, issue #55): a caller's deadline is handed down
to each Z3 query, which takes its own cap or what is left, and none once it has passed.
The callers' own terms for a spent budget are tested with them: the diagonals'
(test_diagonals.py), the all-size level's (test_allsizes.py, test_reproducible.py)."""

import time

import pytest
import z3

from synth.budget import ms_left
from synth.semantics import z3sem
from synth.validation.proofs import prove_equal


def test_a_query_takes_its_cap_or_what_is_left():
    now = time.monotonic()
    assert ms_left(None, 2000) == 2000
    assert ms_left(now + 3600, 2000) == 2000
    assert 1 <= ms_left(now + 0.5, 2000) <= 500
    assert 3_000_000 <= ms_left(now + 3600) <= 3_600_000
    assert ms_left(now - 1, 2000) is None and ms_left(now - 1) is None


def test_a_query_needs_a_cap_or_a_deadline():
    with pytest.raises(AssertionError):
        ms_left(None)


def test_a_staged_proof_still_decides_within_its_timeout():
    """prove_equal's stages share its timeout: sqrt(x)^2 == x for x >= 0 needs the sqrt
    facts stage, and is proven there within a generous one."""
    x = z3.Real("x")
    s = z3sem.SQRT(x)
    proof = prove_equal([("k", s * s, x)], 30.0, [x >= 0])
    assert proof.verdict == "proven"
