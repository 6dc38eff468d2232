"""Op handler tables of the two executors (the symbolic executor of the original,
synth.semantics.affine, and the interpreter of raised programs,
synth.semantics.interpreter): `@handles("op.name", ...)` marks a function as the handler
of those ops without registering it anywhere; each module then lists its handlers in one
immutable table (`table(...)`), which its executor is given as a value."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType


def handles(*names: str):
    """Mark a function as the handler of the ops `names`."""
    def mark(fn: Callable) -> Callable:
        fn.handles = names
        return fn
    return mark


def table(*fns: Callable, base: Mapping[str, Callable] | None = None) -> Mapping[str, Callable]:
    """Op name -> handler for the marked `fns`, on top of `base`; an op handled twice is a
    bug and raises."""
    out = dict(base or {})
    for fn in fns:
        for name in fn.handles:
            if name in out and out[name] is not fn and name not in (base or {}):
                raise ValueError(f"two handlers for '{name}': {out[name].__name__} and {fn.__name__}")
            out[name] = fn
    return MappingProxyType(out)
