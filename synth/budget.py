"""Time budgets passed as values, not clocks hidden in a module: a caller's budget is a
`deadline`, a time.monotonic() value, handed down to whatever asks Z3 on its behalf; each
query takes its own cap or what is left of the deadline, whichever is less, and nothing
once the deadline has passed (the caller then gives up in its own terms: the diagonals
refuse the nest, the all-size level leaves the verdict to the bounded proof, a proof
stage says Z3 gave up). Used by every layer, like synth.numerics."""

from __future__ import annotations

import time


def ms_left(deadline: float | None, cap_ms: int | None = None) -> int | None:
    """Z3's time for one more query, in ms (at least 1): `cap_ms`, or what is left before
    `deadline` where that is less (one of the two given); None when the deadline has
    passed."""
    if deadline is None:
        assert cap_ms is not None, "a query needs a cap or a deadline"
        return cap_ms
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    ms = max(1, int(left * 1000))
    return ms if cap_ms is None else min(cap_ms, ms)
