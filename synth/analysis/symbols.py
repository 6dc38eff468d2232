"""Size symbols and sizes that remember them.

A `SizeExpr` is an affine expression of named size symbols, `(c + a*n + b*m) floordiv d`.
A `Size` is an int (a concrete dimension, used by NumPy and the shape rules as it is) that
also carries the `SizeExpr` it was computed from. Tensor types built from sizes keep
their symbols through every shape rule (which copy dimensions), so a program found at
stand-in sizes is re-instantiated at any other sizes by evaluating each expression, never
by guessing from integers.

Equality: two `Size`s are equal when their expressions are (a 5 that is `n` differs from
a 5 that is `m`: the search cannot mix them up); a `Size` with a constant expression
equals the plain int of its value.

Shape-generic emission (`--shapes generic`) instantiates a program at `GenericValues`:
values of the symbols that also name the symbols whose values are known only at run
time. A `Size` over such a symbol is *dynamic*: it prints as `?` (so a tensor type's text
is `tensor<?x5xf64>`), and an emitter that needs its value asks the emitter for it as an
SSA value (synth.grammar.dims). Printing a dynamic Size anywhere but in a type gives text
MLIR refuses, never a number that holds at one size only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class SizeExpr:
    """`(const + sum(coeff * symbol)) floordiv div`; `terms` sorted by symbol name."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0
    div: int = 1

    @staticmethod
    def symbol(name: str) -> SizeExpr:
        return SizeExpr(((name, 1),))

    @staticmethod
    def constant(value: int) -> SizeExpr:
        return SizeExpr((), int(value))

    @staticmethod
    def of(value) -> SizeExpr:
        """The expression of a dimension: a Size's own, or a constant."""
        if isinstance(value, Size):
            return value.expr
        return SizeExpr.constant(int(value))

    @property
    def is_constant(self) -> bool:
        return not self.terms

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.terms)

    def at(self, values: Mapping[str, int]) -> int:
        try:
            total = self.const + sum(c * values[n] for n, c in self.terms)
        except KeyError as e:
            raise KeyError(f"no value for size symbol {e.args[0]} in {self}") from None
        return total // self.div

    def _linear(self, other) -> SizeExpr:
        if self.div != 1 or (isinstance(other, SizeExpr) and other.div != 1):
            raise ValueError(f"cannot combine {self} and {other}: floordiv is not linear")
        return self

    def __add__(self, other) -> SizeExpr:
        if isinstance(other, int):
            if self.div != 1:
                raise ValueError(f"cannot add to {self}")
            return SizeExpr(self.terms, self.const + other)
        self._linear(other)
        coeffs = dict(self.terms)
        for n, c in other.terms:
            coeffs[n] = coeffs.get(n, 0) + c
        return SizeExpr(tuple(sorted((n, c) for n, c in coeffs.items() if c)), self.const + other.const)

    __radd__ = __add__

    def __neg__(self) -> SizeExpr:
        if self.div != 1:
            raise ValueError(f"cannot negate {self}")
        return SizeExpr(tuple((n, -c) for n, c in self.terms), -self.const)

    def __sub__(self, other) -> SizeExpr:
        return self + (-other)

    def __rsub__(self, other) -> SizeExpr:
        return (-self) + other

    def __mul__(self, k: int) -> SizeExpr:
        if self.div != 1:
            raise ValueError(f"cannot scale {self}")
        return SizeExpr(tuple((n, c * k) for n, c in self.terms if c * k), self.const * k)

    __rmul__ = __mul__

    def floordiv(self, k: int) -> SizeExpr:
        if self.div != 1:
            raise ValueError(f"cannot divide {self} twice")
        return SizeExpr(self.terms, self.const, k) if self.terms else SizeExpr((), self.const // k)

    def substitute(self, mapping: Mapping[str, SizeExpr]) -> SizeExpr:
        """The expression with each symbol of `mapping` replaced by its expression."""
        if not any(n in mapping for n, _ in self.terms):
            return self
        total = SizeExpr.constant(self.const)
        for n, c in self.terms:
            total = total + (mapping[n] if n in mapping else SizeExpr.symbol(n)) * c
        return total.floordiv(self.div) if self.div != 1 else total

    def __str__(self) -> str:
        parts = []
        for n, c in self.terms:
            sign = "-" if c < 0 else "+"
            mag = "" if abs(c) == 1 else f"{abs(c)}*"
            parts.append(f"{sign} {mag}{n}")
        if self.const or not parts:
            parts.append(f"{'-' if self.const < 0 else '+'} {abs(self.const)}")
        text = " ".join(parts)
        text = text[2:] if text.startswith("+ ") else "-" + text[2:]
        return f"({text}) floordiv {self.div}" if self.div != 1 else text


class Size(int):
    """A dimension: its value now, and the expression of size symbols it stands for;
    `dynamic`: the symbols known only at run time where it is emitted (see above)."""

    def __new__(cls, value: int, expr: SizeExpr, dynamic: frozenset = frozenset()):
        obj = super().__new__(cls, value)
        obj.expr = expr
        obj.dynamic = frozenset(dynamic)
        return obj

    @property
    def is_dynamic(self) -> bool:
        """Whether its value is known only at run time (its expression has such a symbol)."""
        return any(n in self.dynamic for n in self.expr.symbols)

    def offset(self, by: int):
        """This size plus `by` (a plain int if that is constant); ValueError for a floordiv."""
        expr = self.expr + by
        return int(self) + by if expr.is_constant else Size(int(self) + by, expr, self.dynamic)

    def __eq__(self, other):
        if isinstance(other, Size):
            return int(self) == int(other) and self.expr == other.expr
        if isinstance(other, int):
            return self.expr.is_constant and int(self) == other
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        # kept once computed (a search hashes its types' shapes hundreds of thousands of
        # times); __reduce__ leaves it out, so no other process sees this one's hash
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash(int(self)) if self.expr.is_constant else hash((int(self), self.expr))
        return h

    def __repr__(self) -> str:
        return f"Size({int(self)}, {self.expr}{', dynamic' if self.is_dynamic else ''})"

    def __str__(self) -> str:
        return "?" if self.is_dynamic else str(int(self))

    def __format__(self, spec: str) -> str:
        return "?" if self.is_dynamic else format(int(self), spec)

    def __reduce__(self):
        return (Size, (int(self), self.expr, self.dynamic))

    # ordering stays the ints' (sorted shapes, comparisons with bounds)


class GenericValues(dict):
    """Values of the size symbols (a dict) that also say which of them are known only at
    run time (`dynamic`): the sizes built from it print as `?` where they depend on one."""

    def __init__(self, values: Mapping[str, int], dynamic=()):
        super().__init__(values)
        self.dynamic = frozenset(dynamic)


def dynamic_symbols(values: Mapping[str, int]) -> frozenset:
    """The symbols `values` marks as known only at run time (none for a plain mapping)."""
    return getattr(values, "dynamic", frozenset())


def size(expr: SizeExpr, values: Mapping[str, int]) -> int:
    """The dimension `expr` at `values`: a plain int for a constant, else a Size."""
    if expr.is_constant:
        return expr.const // expr.div
    return Size(expr.at(values), expr, dynamic_symbols(values))


def reinstantiate(dim, values: Mapping[str, int]):
    """A dimension (Size or int) at other values of the symbols."""
    if isinstance(dim, Size):
        return size(dim.expr, values)
    return dim


def reinstantiate_value(v, values: Mapping[str, int]):
    """Sizes inside an attribute value (ints, tuples of them) at other symbol values."""
    if isinstance(v, Size):
        return size(v.expr, values)
    if isinstance(v, tuple):
        return tuple(reinstantiate_value(x, values) for x in v)
    return v


def element_count(shape) -> tuple:
    """The number of elements of `shape` as a polynomial in the size symbols, canonical
    (sorted (monomial, coefficient) pairs, a monomial a sorted tuple of symbols; a
    floordiv dim a symbol of its own): two shapes hold as many elements at every size
    where these are equal, not only where their values coincide (6 x 5 and 3 x 10 at
    n6 = 6, n5 = 5, n3 = 3, n10 = 10)."""
    poly: dict[tuple, int] = {(): 1}
    for dim in shape:
        e = SizeExpr.of(dim)
        if e.div != 1:
            factor = {(str(e),): 1}
        else:
            factor = {(n,): c for n, c in e.terms}
            if e.const:
                factor[()] = e.const
        out: dict[tuple, int] = {}
        for m1, c1 in poly.items():
            for m2, c2 in factor.items():
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        poly = {m: c for m, c in out.items() if c}
    return tuple(sorted(poly.items()))
