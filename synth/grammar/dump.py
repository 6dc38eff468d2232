"""Print each grammar op's emitted MLIR at a sample signature (for the golden tests in
tests/lit/grammar_*.test): `python -m synth.grammar.dump stablehlo`.

For every op, the first operand types among a fixed list of samples that the op accepts,
and the first attribute choice of its domain, are emitted as `@op_<name>`."""

from __future__ import annotations

import itertools
import sys

from synth.grammar.op import emit_op_function, ops_for
from synth.grammar.types import SearchContext, TensorType

_SHAPES = [(3, 4), (4, 5), (4,), (3,), (), (2, 3, 4), (2, 4, 5)]
CONTEXT = SearchContext(frozenset({(3, 4), (4,), (3,), (4, 3)}), (0.0, 1.0), ("f64",))


def samples(arity: int):
    types = [TensorType(s, "f64") for s in _SHAPES] + [TensorType((3, 4), "i1")]
    yield from itertools.product(types, repeat=arity)


def dump(dialect: str) -> str:
    out = []
    for op in ops_for(dialect):
        for types in samples(op.arity):
            choices = list(op.attribute_domain(types, CONTEXT))
            if choices:
                name = "op_" + op.name.split(".", 1)[1]
                out.append(emit_op_function(op, types, choices[0], name=name))
                break
        else:
            out.append(f"// {op.name}: no sample signature\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(dump(sys.argv[1]))
