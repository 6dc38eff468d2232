"""synth-payload-cse: an op computed twice in a linalg.generic's payload is computed once.

synth-broadcasts-per-use gives each consumer its own copy of a cheap producer (durbin's
gather indices `clamp(k - 1 - iota)`); elementwise fusion then folds every copy into its
consumer, and a consumer that read two copies (the clamp and the gather of the same index
vector) computes `k - 1 - i` twice, from two `linalg.index 0`. The payload is the same
function, but the passes after fusion read its form (synth-hoist-flips takes a payload
that reads `linalg.index 0` once, as `c - i`). MLIR's cse would merge them, run on the
whole function it also merges slices and tensor.empty ops across the loop steps, and one-
shot bufferization then copied gramschmidt's 1200 x 1200 matrix at every step. Here only
the payloads: a pure op (arith, linalg.index) with the operands, attributes and result
type of one before it in the same payload is replaced by that one."""

from __future__ import annotations

from synth.backends.ir_toolkit import operation, ops_named


def _key(op):
    """What makes two payload ops the same computation; None for an op not merged (not
    arith or linalg.index, with regions, or several results)."""
    if not (op.name.startswith("arith.") or op.name == "linalg.index") or op.regions or len(op.results) != 1:
        return None
    attributes = []
    for key in op.attributes:
        key = key if isinstance(key, str) else key.name  # the bindings differ
        attributes.append((key, str(op.attributes[key])))
    return op.name, tuple(op.operands), tuple(sorted(attributes)), str(op.results[0].type)


def payload_cse(module) -> int:
    """In every linalg.generic's payload of `module`, replace each pure op that repeats an
    earlier one (module docstring) by it; the number of ops removed."""
    removed = 0
    for generic in ops_named(module, ("linalg.generic",)):
        seen: dict = {}
        for op in [operation(o) for o in generic.regions[0].blocks[0].operations]:
            key = _key(op)
            if key is None:
                continue
            if key in seen:
                op.results[0].replace_all_uses_with(seen[key].results[0])
                op.erase()
                removed += 1
            else:
                seen[key] = op
    return removed
