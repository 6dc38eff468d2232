"""Inverse targets: most kernels end in a few elementwise ops with an input, a constant or
a one-op value (`old + delta`, `alpha * x`, `1 / sqrt(s / n + eps)`). Values equal to the
target with those ops undone solve the problem once the ops are put back; they are
registered by fingerprint, so a program k ops larger than the value found is found at
the value's size (inverse semantics, as in top-down deductive synthesis). A mixin of
the Enumerator."""

from __future__ import annotations


import numpy as np

from synth.synthesis.program import Expr


MAX_INVERSE_DEPTH = 3  # ops undone on the way from the target to a value
MAX_DERIVED = 20000  # inverse targets kept
INVERSE_OPERAND_SIZE = 1  # values up to this size are also the other operand of an undone op

# grammar op (name after the dialect) -> what undoing it means (see _invert)
_INVERTIBLE = {
    "add": "add", "subtract": "sub", "sub": "sub", "multiply": "mul", "mul": "mul",
    "divide": "div", "div": "div", "negate": "neg", "negf": "neg", "sqrt": "sqrt",
    "exponential": "exp", "exp": "exp",
}


def _invert(kind: str, side: int, target: tuple, other: tuple | None, cares) -> tuple | None:
    """The value X with op(X, other) == target (side 0) or op(other, X) == target (side 1),
    per example; None where no such value exists or it is not exact (division by zero,
    sqrt of a negative, integers that do not divide). `cares`: the positions that matter,
    one mask per example (None: all)."""
    out = []
    for e, t in enumerate(target):
        o = None if other is None else other[e]
        care = None if cares is None else cares[e]
        is_int = t.dtype.kind in "iu"
        with np.errstate(all="ignore"):
            if kind == "add":
                x = t - o
            elif kind == "sub":
                x = t + o if side == 0 else o - t
            elif kind == "neg":
                x = -t
            elif is_int:
                return None  # integer mul / div / sqrt / exp do not invert exactly
            elif kind == "mul":
                if np.any((o == 0)[care] if care is not None else o == 0):
                    return None
                x = t / o
            elif kind == "div":
                if side == 0:
                    x = t * o
                else:
                    if np.any((t == 0)[care] if care is not None else t == 0):
                        return None
                    x = o / t
            elif kind == "sqrt":
                if np.any((t < 0)[care] if care is not None else t < 0):
                    return None
                x = t * t
            elif kind == "exp":
                if np.any((t <= 0)[care] if care is not None else t <= 0):
                    return None
                x = np.log(t)
            else:
                return None
        x = np.asarray(x, dtype=t.dtype)
        check = x[care] if care is not None else x
        if x.dtype.kind == "f" and not np.all(np.isfinite(check)):
            return None
        out.append(x)
    return tuple(out)


class InverseTargets:
    """Enumerator methods: registering and using inverse targets."""

    def _evaluate(self, expr: Expr, memo: dict | None = None) -> tuple:
        """An expression's value on the examples (leaves from the inputs); the values
        kept in the pools are known already."""
        memo = self.values_of if memo is None else memo
        if expr in memo:
            return memo[expr]
        if expr.op is None:
            out = tuple(np.asarray(ex[expr.leaf]) for ex in self.problem.examples_in)
        else:
            args = [self._evaluate(a, memo) for a in expr.args]
            out = tuple(np.asarray(expr.op.evaluate([a[e] for a in args], expr.attrs),
                                   dtype=expr.type.numpy_dtype) for e in range(len(self.target)))
        memo[expr] = out
        return out

    def _invertible_ops(self) -> list:
        """(op, attrs, kind) of the elementwise ops of the output type that can be undone."""
        out = self.problem.output_type
        found = []
        for op in self.problem.ops:
            kind = _INVERTIBLE.get(op.name.split(".", 1)[1])
            if kind is None:
                continue
            types = (out,) * op.arity
            choices = [(a, rt) for a, rt in self._signature(op, types) if rt == out]
            if choices:
                found.append((op, choices[0][0], kind))
        return found

    def _derive(self, target: tuple, wrap, depth: int, operands: list) -> None:
        """Register the values that solve `target` after one more op (with one of
        `operands`, values of the output type, as the other operand), recursively."""
        if depth >= (MAX_INVERSE_DEPTH if self.splits else MAX_INVERSE_DEPTH - 1):
            return
        out = self.problem.output_type
        own = self._target_fingerprint(target)  # the same for every op and operand below
        for op, attrs, kind in self.inverse_ops:
            sides = [None] if op.arity == 1 else [(v, side) for v in operands for side in (0, 1)]
            for arg in sides:
                if self.derived_count >= MAX_DERIVED:
                    return
                leaf, side = arg if arg is not None else (None, 0)
                if kind in ("add", "mul") and side == 1:
                    continue  # commutative: the same target as side 0
                new = _invert(kind, side, target, None if leaf is None else leaf.data, self.care)
                if new is None:
                    continue  # impossible
                key = self._target_fingerprint(new)
                if key == own:
                    continue  # an identity (x + 0, x * 1): no progress
                if leaf is None:
                    inner = (lambda e, op=op, a=attrs, w=wrap: w(Expr(out, op, a, (e,))))
                elif side == 0:
                    inner = (lambda e, op=op, a=attrs, w=wrap, x=leaf.expr: w(Expr(out, op, a, (e, x))))
                else:
                    inner = (lambda e, op=op, a=attrs, w=wrap, x=leaf.expr: w(Expr(out, op, a, (x, e))))
                self.derived.setdefault(key, []).append(inner)
                self.derived_count += 1
                self._derive(new, inner, depth + 1, operands)

    def _inverse_targets(self, size: int) -> None:
        """Most kernels end in a few elementwise ops with an input, a constant or a small
        value (`old + delta`, `alpha * x`, `1 / sqrt(s / n + eps)`): values equal to the
        target with those ops undone solve the problem once the ops are put back. They are
        registered by fingerprint, so a solution k ops larger than the value found is found
        at the value's size (inverse semantics, as in top-down deductive synthesis)."""
        out = self.problem.output_type
        if out.dtype not in ("f64", "f32", "i32", "i64") or not self.settings.inverse_targets:
            return
        if self.inverse_ops is None:
            self.inverse_ops = self._invertible_ops()
        if not self.inverse_ops:
            return
        operands = [v for v in self.pools[size].get(out, [])]
        identity = lambda e: e  # noqa: E731
        self._derive(self.target, identity, 0 if size == 0 else MAX_INVERSE_DEPTH - 1, operands)

