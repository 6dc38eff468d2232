"""Which numbers in a kernel are sizes, and of which symbols.

Kernels give their sizes in two ways: as parameters that bound the loops (`affine.for %i =
0 to %n` with `%n = arith.index_cast %arg0`), or as constants (PolyBench through
Polygeist: `affine.for %i = 0 to 2100`, `memref<1900x2100xf64>`, the `i32` size arguments
passed but never used). Either way synth works with *size symbols*:

- a size parameter used in a bound or an index is a symbol (`arg0`); its value is the
  extent of an array dimension its loops index, found structurally;
- every distinct array extent that a loop index runs over is a symbol (`n2100`: the
  constant 2100, shared by every dimension and loop bound of that value);
- a constant loop bound that is no extent is related to one (`n2100 - 1`, `n2100 floordiv
  2`) or becomes a symbol of its own (`n100`: a repeat count);
- a dynamic extent (`memref<?x2100xf64>`) is what its accesses reach (`n1900`), and a
  static extent that no loop bound equals may be a sum of others (a FIR's input of
  `n1000 + n32 - 1`);
- constant indices and large constant offsets near a size are expressions of it
  (`A[1199][1199]` is `n1200 - 1`); small ones (below SMALL_CONSTANT) stay literal, as do
  strides, tile sizes and every constant in data computations.

The result, a `SizeModel`, says for each array dimension, allocation and map constant
what expression of the symbols it is, and which inequalities (every access within its
array) any choice of symbol values must satisfy. Stand-in sizes and the size
configurations of tests and proofs are chosen from it; `synth.analysis.instantiate`
rewrites the kernel at any values. Size arguments that bound nothing are ignored (passed
through with any value).

The analysis that builds the model is synth.analysis.size_analysis (analyze_sizes);
this module holds the model and its constants.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from synth.errors import InputError
from synth.analysis.symbols import SizeExpr
from synth.frontend.size_extremes import operands_for


MAX_OFFSET = 2  # a constant within this of a size is that size plus an offset
# the textual re-instantiation of raised text (synth.semantics.raised_text) reads a number as
# a size from MIN_SIZE on (smaller ones are never sizes: synth.grammar.stablehlo keeps its
# own constants below it), and a number within NEAR of a size as that size plus an offset
MIN_SIZE = 8
NEAR = 2
COUNTER = "counter"  # the key of a loop counter's value among size values (SizeModel.counter)
COUNTER_ATTR = "synth.counter"  # the argument attribute that marks a loop counter
STANDIN_BASES = (5, 8, 12, 16, 24, 32, 48, 64)  # smallest stand-in size tried, then larger
TEST_VALUES = (64, 96, 48, 128, 80, 160, 32, 256)  # of a size known only at run time, where a value is needed

Key = tuple  # ("iv", loop id) for a loop index; a str for a symbol


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int  # at the function's own sizes
    kind: str  # "parameter", "extent" or "bound"
    origin: str  # where it comes from, for messages


@dataclass
class SizeModel:
    """Size symbols of one function (its normal form) and what each size is."""

    function: str
    location: str
    symbols: dict[str, Symbol]
    params: dict[int, str]  # size argument index -> its symbol
    unused_params: list[int]  # size arguments that bound nothing
    arg_dims: dict[int, tuple[SizeExpr, ...]]  # array argument -> expression per dim
    alloc_dims: dict[int, tuple[SizeExpr, ...]]  # op index of a local allocation -> dims
    sites: dict[tuple, SizeExpr]  # (op index, attribute, result) -> expression of its constant
    constraints: list[tuple[SizeExpr, SizeExpr, str]] = field(default_factory=list)  # a <= b
    nonempty: list[tuple[SizeExpr, SizeExpr]] = field(default_factory=list)  # lb < ub of loops
    # per statement (affine.store, pre-order): the trip counts of its loops, outermost
    # first, where they are sizes (loops with an index-dependent bound are left out)
    statement_nests: list[tuple[SizeExpr, ...]] = field(default_factory=list)
    repeat_loops: list[str] = field(default_factory=list)  # loops whose index nothing uses
    time_loops: list[str] = field(default_factory=list)  # ... that carry a dependence
    # symbols of the constraints that stand for a floordiv of sizes (a loop to n24 / 2)
    floordivs: dict[str, SizeExpr] = field(default_factory=dict)
    time_trips: list = field(default_factory=list)  # trip count (SizeExpr | None) of each time loop
    # (lower, upper) bound of each loop whose bounds are sizes, by location
    loop_ranges: dict[str, tuple[SizeExpr, SizeExpr]] = field(default_factory=dict)
    # the argument that is the counter of a loop kept as a loop (synth.synthesis.steps: an
    # index argument marked `synth.counter`): not a size; its value comes with the
    # values, under COUNTER, or is 0
    counter: int | None = None
    counter_range: tuple[SizeExpr, SizeExpr] | None = None  # [lower, upper) of its values
    # loops whose index nothing uses that update elements in place (`y[i] *= s` repeated):
    # (location, trip count); a closed form exists at a constant count only
    updates: list = field(default_factory=list)
    # (trip span, step, where): a loop with a step above 1 (unrolled by hand) runs whole
    # steps only where its span is a multiple of the step; sizes must keep it so
    congruences: list = field(default_factory=list)
    # (s, t): sizes tested with s below t (a loop to min(i, s), i < t: synth.analysis.reach.caps)
    caps: list = field(default_factory=list)
    # argument -> synth.frontend.size_extremes.Extreme: a loop bound min(k, n) of size
    # arguments that the normal form passes as an argument of its own
    extremes: dict = field(default_factory=dict)
    # symbols that stand for a product of sizes (the sw * sh elements of a flat image read at
    # an index computed by division): symbol -> ((symbols multiplied, coefficient), ...)
    products: dict[str, tuple] = field(default_factory=dict)

    def keep_runtime_repeats(self) -> list[str]:
        """Make each in-place repeat loop whose count is a size argument a time loop (a
        loop the raise keeps: at a count known only at run time no closed form serves).
        Returns their locations."""
        kept = []
        for location, trip in self.updates:
            if trip is not None and any(n in self.params.values() for n in trip.symbols) \
                    and location not in self.time_loops:
                self.time_loops.append(location)
                self.time_trips.append(trip)
                kept.append(location)
        return kept

    def renamed(self, mapping: Mapping[str, SizeExpr], symbols: Mapping[str, Symbol]) -> SizeModel:
        """The model with each symbol of `mapping` replaced by its expression over
        `symbols` (which join the model's): a step kernel's sizes in its kernel's terms."""
        def sub(v):
            if isinstance(v, SizeExpr):
                return v.substitute(mapping)
            if isinstance(v, tuple):
                return tuple(sub(x) for x in v)
            if isinstance(v, list):
                return [sub(x) for x in v]
            if isinstance(v, dict):
                return {k: sub(x) for k, x in v.items()}
            return v
        kept = {n: s for n, s in self.symbols.items() if n not in mapping}
        return replace(self, symbols={**kept, **symbols}, **{
            f: sub(getattr(self, f)) for f in (
                "arg_dims", "alloc_dims", "sites", "constraints", "nonempty", "statement_nests",
                "floordivs", "time_trips", "loop_ranges", "counter_range", "updates", "congruences")})

    # -- values ------------------------------------------------------------------------------
    def original(self) -> dict[str, int]:
        unknown = [n for n, s in self.symbols.items() if s.value < 0]
        if unknown:
            raise InputError(f"cannot tell the value of {', '.join(self.symbols[n].origin for n in unknown)} "
                             f"of @{self.function}: it bounds loops, but no loop over it indexes an "
                             f"array of static extent; a raise for every size (--shapes generic) "
                             f"takes it at run time", self.location)
        return self.with_quotients({n: s.value for n, s in self.symbols.items()})

    @property
    def derived(self) -> dict[str, tuple[str, ...]]:
        """The symbols whose values the others make (quotients, products) -> those symbols."""
        return {**{n: e.symbols for n, e in self.floordivs.items()},
                **{n: tuple(s for m, _ in monos for s in m) for n, monos in self.products.items()}}

    def with_quotients(self, values: Mapping[str, int]) -> dict[str, int]:
        """`values` of the symbols with the quotient symbols' (`floordivs`: q0 = n floordiv
        2, which extents may hold: a strided convolution's input of k + 2 * q0 elements)
        and the product symbols' (`products`) computed from them, never kept from an
        earlier call at other values."""
        from math import prod

        from synth.analysis.symbols import GenericValues, dynamic_symbols

        base = {n: v for n, v in values.items() if n not in self.floordivs and n not in self.products}
        out = {**base, **{n: e.at(base) for n, e in self.floordivs.items() if all(m in base for m in e.symbols)}}
        out.update({n: sum(c * prod(base[s] for s in m) for m, c in monos) for n, monos in self.products.items()
                    if all(s in base for m, _ in monos for s in m)})
        dynamic = dynamic_symbols(values)
        if not isinstance(values, GenericValues):
            return out
        return GenericValues(out, dynamic | {n for n, of in self.derived.items() if n in out
                                             and any(m in dynamic for m in of)})

    def unknown(self) -> list[str]:
        """The symbols whose value the kernel does not show (size arguments that bound
        loops but no array of static extent)."""
        return [n for n, s in self.symbols.items() if s.value < 0]

    def with_test_values(self) -> list[str]:
        """Give each unknown symbol a test value (a generic raise takes it at run time,
        so any valid value serves to test at): the first of TEST_VALUES under which
        every access stays within its array. Returns the symbols so assigned."""
        names = self.unknown()
        for s, t in self.caps:  # s first: the smaller value (the cap applies at these sizes)
            if s in names and t in names and names.index(s) > names.index(t):
                names.remove(s)
                names.insert(names.index(t), s)
        for n in names:
            known = {m: s.value for m, s in self.symbols.items() if s.value >= 0}
            # distinct from the others' (proofs tell sizes apart by their values)
            choices = [v for v in TEST_VALUES if v not in known.values()] or [max(known.values()) + 17]
            for v in choices:
                trial = {**known, **{m: v for m in self.unknown()}}
                if self.valid(trial):
                    break
            self.symbols[n] = replace(self.symbols[n], value=v,
                                      origin=f"{self.symbols[n].origin} (a test value: a run-time size)")
        return names

    def violations(self, values: Mapping[str, int]) -> list[str]:
        out = []
        values = self.with_quotients(values)
        for a, b, why in self.constraints:
            if a.at(values) > b.at(values):
                out.append(f"{why}: {a} = {a.at(values)} > {b} = {b.at(values)}")
        for span, step, why in self.congruences:
            if span.at(values) % step:
                out.append(f"{why}: its span {span} = {span.at(values)} is no multiple of its step {step}")
        return out

    def valid(self, values: Mapping[str, int], nonempty: bool = True) -> bool:
        if any(v < 1 for n, v in values.items() if n not in self.derived) or self.violations(values):
            return False
        values = self.with_quotients(values)
        return not nonempty or all(lb.at(values) < ub.at(values) for lb, ub in self.nonempty)

    def _assign(self, order: list[str], small: list[int]) -> dict[str, int]:
        values = {}
        for name, v in zip(order, small):
            known = self.symbols[name].value
            values[name] = v if known < 0 else min(v, known)
        for span, step, _ in self.congruences:  # whole steps of a stepped loop: the next multiple
            if len(span.terms) == 1 and span.terms[0][1] == 1 and span.div == 1:
                name = span.terms[0][0]
                if name in values:
                    values[name] += (-span.at(values)) % step
        return values

    def small_values(self, first: int, stride: int = 1, rotate: int = 0) -> dict[str, int]:
        """Small values for the symbols, in the order of their original values (the
        smallest gets `first`, the next `first + stride`...; `rotate` shifts who gets
        which); a symbol already smaller keeps its value. Larger values are tried until
        every access stays within its array and every loop runs."""
        order = sorted(self.symbols, key=lambda n: (self.symbols[n].value < 0, self.symbols[n].value, n))
        if not order:
            return {}
        for base in [first] + [b for b in STANDIN_BASES if b > first]:
            small = [base + stride * k for k in range(len(order))]
            if rotate:
                r = rotate % len(small)
                small = small[r:] + small[:r]
            values = self._assign(order, small)
            if self.valid(values):
                return self.with_quotients(values)
        raise InputError(f"@{self.function}: no small sizes keep every access of the kernel "
                         f"within its array ({'; '.join(self.violations(values)[:2])}); the "
                         f"sizes of the kernel could not be told apart", self.location)

    def standin(self) -> dict[str, int]:
        return self.small_values(STANDIN_BASES[0])

    # -- at given values ---------------------------------------------------------------------
    def shape(self, arg: int, values: Mapping[str, int]) -> tuple:
        from synth.analysis.symbols import size

        values = self.with_quotients(values) if self.floordivs or self.products else values
        return tuple(size(e, values) for e in self.arg_dims[arg])

    def param_values(self, values: Mapping[str, int]) -> dict[int, int]:
        """Size argument index -> value (unused size arguments get 0: they bound nothing;
        the counter its value under COUNTER, or 0)."""
        out = {k: values[s] for k, s in self.params.items()}
        out.update({k: 0 for k in self.unused_params})
        for k, e in self.extremes.items():  # the arguments it is the min of: so that it is its value
            if k in out:
                out.update(operands_for(e, out[k], {j: out[j] for j in e.arguments if j in self.params}))
        if self.counter is not None:
            out[self.counter] = values.get(COUNTER, 0)
        return out

    def counter_values(self, values: Mapping[str, int]) -> list[int]:
        """The counter's values at these sizes (none without a counter)."""
        if self.counter is None or self.counter_range is None:
            return []
        lo, hi = (e.at(values) for e in self.counter_range)
        return list(range(lo, hi))

    def describe(self, values: Mapping[str, int] | None = None) -> str:
        values = values or self.original()
        return ", ".join(f"{n}={values[n]}" for n in sorted(self.symbols, key=_symbol_order)) or "no sizes"

def _symbol_order(name: str):
    return (name[0] != "a", len(name), name)


# -------------------------------------------------------------------------------------------
# the model
