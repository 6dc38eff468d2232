"""Size configurations of testing and proving, and the raised function at each."""

from __future__ import annotations

import math
from dataclasses import replace


from synth.semantics import support as support
from synth.analysis.model import Kernel
from synth.analysis.sizes import COUNTER
from synth.analysis.work import statement_instances
from synth.errors import InputError
from synth.frontend.reader import SourceModule
from synth.semantics.raised import MIN_SIZE, RaisedFunction
from synth.validation.common import MAX_PROOF_ELEMENTS, MAX_PROOF_SIZE, Sizes, sizes_text


# sizes -------------------------------------------------------------------------------------

# a raise is tested at its own sizes only where the original runs at most this many
# statement instances there (~0.1 s) and the raise an estimated RAISE_WORK element
# operations (synth.validation.cost: seidel-2d's step, one copy of its array per
# hyperplane, runs 5.9e8 of them at n = 500 in 0.33 s on XLA, under load); above, at
# fewer time steps or (a raise for every size) smaller sizes
OWN_SIZE_WORK = 50_000_000
RAISE_WORK = 2_000_000_000


class SizePlan:
    """Original sizes, the small configurations for testing and proving, and the raised
    function at each.

    `raised_at(values) -> text`, when given (synth raise passes its program), builds the
    raised function at any sizes from the size symbols. Otherwise (a module written by
    hand or by another tool) the text is re-instantiated by mapping each original size
    value to its new one, which needs the original values distinct and >= MIN_SIZE."""

    def __init__(self, kernel: Kernel, raised: RaisedFunction, raised_at=None, edges: bool = False,
                 pinned: frozenset = frozenset(), own_sizes: bool = True, steps: dict | None = None):
        self.kernel = kernel
        # symbol -> its value at 2 steps, for the symbols that count the steps of a loop kept
        # as a loop whose step is proven on every input state (so for every step count by
        # induction): a test may run fewer steps, at least 2
        self.steps = dict(steps or {})
        # tested at the kernel's own sizes too (not for a part of a function raised nest by
        # nest: the whole function is tested there, the parts at the small sizes)
        self.own_sizes = own_sizes
        # a raise for every size (shape-generic) is tested at edge sizes too: each symbol at 1
        self.edges = edges
        # symbols held at their original values in every configuration: those a generic
        # raise keeps as constants (no argument exposes them: Polygeist's constant time-step
        # count beside dims the raise reads at run time)
        self.pinned = frozenset(pinned)
        self.model = kernel.sizes
        self.original = self.model.original()
        self.raised = raised
        self.raised_at = raised_at
        values = list(self.original.values())
        # why the raised text is not re-instantiated at other sizes (None: it is, or no
        # attempt failed yet)
        self.not_rewritable: str | None = None
        if raised_at is None and (len(set(values)) != len(values) or any(v < MIN_SIZE for v in values)):
            self.not_rewritable = (f"its sizes ({self.model.describe()}) cannot be told from other "
                                   f"numbers in the raised text (they must be distinct and at least "
                                   f"{MIN_SIZE})")
        self._checked = raised_at is not None
        self._cache: dict = {}
        self.large: Sizes | None = None  # the original sizes scaled down (largest_tested)
        self.scaled: str | None = None  # why they were ("": they were not; None: not looked at)
        # (statement instances of the original, estimated element operations of the raise) at
        # the largest sizes tested, where largest_tested counted them
        self.largest_costs: tuple | None = None

    @property
    def rewritable(self) -> bool:
        """Whether the raised function is built (raised_at) or re-instantiated at other sizes."""
        return self.not_rewritable is None

    def _check_rewritable(self) -> None:
        """Re-instantiate a text synth did not write at the small test and proof sizes
        once: where one fails (a number the textual mapping does not read as a size, such
        as an extent 4 below one), the text is used at its own sizes only."""
        if self._checked or not self.rewritable:
            return
        self._checked = True
        for values in self._configs(3, 2) + self._configs(2, 1):
            try:
                self.instances(values)
            except InputError as e:
                self.distrust(e.message)
                return

    def _configs(self, first: int, stride: int) -> list[Sizes]:
        """Two configurations: ascending from `first` in the order of the original values,
        then the values rotated (one symbol: `first + 1`)."""
        out = []
        single = len(self.original) == 1
        for rotate in (0, 1):
            try:
                c = self.model.small_values(first + (rotate if single else 0), stride, 0 if single else rotate)
            except InputError:
                continue
            if self.pinned:
                c = {**c, **{n: self.original[n] for n in self.pinned if n in self.original}}
                if not self.model.valid(c):
                    continue
            if c not in out and c != self.original:
                out.append(c)
        return out

    def is_original(self, values: Sizes) -> bool:
        """Whether `values` are the original sizes (with any counter value)."""
        return {k: v for k, v in values.items() if k != COUNTER} == self.original

    def with_counter(self, configs: list[Sizes], most: int | None = None) -> list[Sizes]:
        """A loop step's configurations (synth.synthesis.steps: the kernel takes a loop's
        counter): each with every value of the counter (at most `most`: the first, the
        last and evenly spaced ones between)."""
        if self.model.counter is None:
            return configs
        out = []
        for c in configs:
            values = self.model.counter_values(c)
            if most is not None and len(values) > most:
                values = sorted({values[round(k * (len(values) - 1) / (most - 1))] for k in range(most)})
            out += [{**c, COUNTER: v} for v in values]
        return out

    def test_configs(self) -> list[Sizes]:
        self._check_rewritable()
        if not self.rewritable:
            return self.with_counter([self.original], 3)
        small = self._configs(3, 2)
        return self.with_counter(small + (self._edge_configs(small) if self.edges else [])) + \
            (self.with_counter([self.largest_tested()], 3) if self.own_sizes or not small else [])

    def largest_tested(self) -> Sizes:
        """The original sizes, or, where a test there would take too long, smaller ones
        (`self.scaled` says which and why). Too long: the original runs more than
        OWN_SIZE_WORK statement instances, or the raise an estimated RAISE_WORK element
        operations (synth.validation.cost: a loop kept as a loop whose every trip works on
        whole arrays costs far more than the original's count).

        Smaller sizes are taken in this order, the first that fits: the time steps fewer
        (`self.steps`: symbols counting the steps of a loop whose step is proven on every
        input state, so every step count by induction; halved, at least 2 steps), the other
        sizes as they are; then, for a raise of one program at every size, the other sizes
        halved as well, again and again, each with the steps as many as fit. One program at
        every size: a raise for every size (its text the same at each), or a static text
        that is what the raise's program builds at its own sizes (`_rebuilt_is_emitted`:
        the text at other sizes is the same program with other size constants, the member
        of the family the proof and the small tests cover). A static text that is not (a
        text synth did not build) is what runs at its own sizes: tested there whatever it
        costs."""
        if self.scaled is not None:
            return self.large or self.original
        self.scaled = ""
        steps = [n for n in sorted(self.steps) if n in self.original and n not in self.pinned]
        least = {n: min(self.original[n], max(1, self.steps[n])) for n in steps}  # 2 steps
        if not self.edges and self.raised_at is None:  # a text synth did not build: its own sizes
            return self.original
        own, raised = self.work(self.original), self.raise_work(self.original)
        self.largest_costs = (own, raised)
        if self._fits(own, raised):
            return self.original
        family = self.edges or self._rebuilt_is_emitted()
        if not family:
            return self.original  # a smaller text would not be a sibling of the one written
        others = [n for n in self.original if n not in self.pinned and n not in steps]
        fewest = None  # the fewest steps at the other sizes as they are
        for shift in range(0, 12):
            base = {**self.original, **{n: max(1, self.original[n] >> shift) for n in others}}
            for step_shift in range(0, 12 if steps else 1):
                c = {**base, **{n: max(least[n], self.original[n] >> step_shift) for n in steps}}
                if (shift, step_shift) == (0, 0) or not self.model.valid(c):
                    continue
                w = self.work(c)
                r = self.raise_work(c) if w is not None and self._fits(w, None) else None
                if w is not None and self._fits(w, None) and self._fits(w, r):
                    self.largest_costs = (w, r)
                    return self._scale_to(c, own, raised, shift, step_shift)
                if all(c[n] == least[n] for n in steps):
                    fewest = c if steps and shift == 0 else fewest
                    break
        if fewest is not None and fewest != self.original:
            # a static text, too costly even at the fewest steps: those, at its own other sizes
            self.largest_costs = (self.work(fewest), self.raise_work(fewest))
            self._scale_to(fewest, own, raised, 0, 1)
            self.scaled += "; that is still over the bound: the fewest steps that test the loop"
            return fewest
        return self.original

    def _rebuilt_is_emitted(self) -> bool:
        """Whether the static text written is what `raised_at` builds at its own sizes: then
        the text built at other sizes (fewer steps, smaller arrays) differs from it in its
        size constants only (the program is the same), and running that one tests the
        program written."""
        if self.raised_at is None:
            return False
        try:
            rebuilt = self.raised_at(self.original)
        except InputError:
            return False
        return rebuilt.split() == self.raised.text.split()

    def _fits(self, work: int | None, raised: int | None) -> bool:
        return (work is None or work <= OWN_SIZE_WORK) and (raised is None or raised <= RAISE_WORK)

    def _scale_to(self, c: Sizes, own, raised, shift: int, step_shift: int) -> Sizes:
        self.large = c
        costs = [f"up to {own:.1e} statement instances of the original" if own is not None else "",
                 f"an estimated {raised:.1e} element operations of the raise" if raised is not None else ""]
        limits = [f"{OWN_SIZE_WORK:.0e}" if own is not None else "", f"{RAISE_WORK:.0e}" if raised is not None else ""]
        if not shift:
            what = "the raised function was"
        elif self.edges:
            what = "the text for every size was"
        else:  # a static text: its program built at other sizes (_rebuilt_is_emitted)
            what = ("the raise's program (the text written is what it builds at its own sizes, "
                    "the member of the family the proof and the small tests cover) was")
        fewer = ""
        if step_shift:
            counts = ", ".join(f"{c[n] - self.steps[n] + 2} of its {self.original[n] - self.steps[n] + 2} "
                               f"time steps ({n})" for n in sorted(self.steps) if c.get(n) != self.original.get(n))
            fewer = (f" ({counts}: every step count by induction on the step, proven on every input "
                     f"state at the sizes its proof names)")
        self.scaled = (f"not run at its own sizes ({sizes_text(self.original)}: "
                       f"{' and '.join(x for x in costs if x)}, a test takes at most "
                       f"{' and '.join(x for x in limits if x)}); {what} run at {sizes_text(c)} instead{fewer}")
        return c

    def raise_work(self, values: Sizes) -> int | None:
        """The raise's estimated element operations at `values` (synth.validation.cost);
        None where its text at those sizes is not built (a text synth did not write)."""
        if self.raised_at is None:
            return None
        from synth.validation.cost import raised_work

        try:
            text = self.raised.text if values == self.original else self.raised_at(values)
            return raised_work(text, self.raised.name, self.raised.dialect, self.model.param_values(values),
                               max(values.values(), default=1))
        except InputError:
            return None

    def is_largest(self, values: Sizes) -> bool:
        """Whether `values` are the largest sizes tested (the original's, or those scaled down)."""
        return self.is_original(values) or (
            self.large is not None and {k: v for k, v in values.items() if k != COUNTER} == self.large)

    def work(self, values: Sizes) -> int | None:
        """At most how many statement instances the original runs at `values`."""
        try:
            return statement_instances(self.kernel.at(values), self.kernel.name, self.model.param_values(values))
        except InputError:
            return None

    def _edge_configs(self, small: list[Sizes], most: int = 3) -> list[Sizes]:
        """Configurations with one symbol at 1 (a single row, a single step), where the
        kernel's accesses allow it; at most `most`."""
        if not small:
            return []
        out = []
        for name in sorted(set(self.original) - self.pinned):
            c = {**small[0], name: 1}
            if self.model.valid(c) and c not in small and c not in out:
                out.append(c)
        self.edge_sizes = [dict(c) for c in out[:most]]
        return out[:most]

    def is_edge(self, values: Sizes) -> bool:
        """Whether `values` are one of the edge configurations (a size at 1)."""
        return {k: v for k, v in values.items() if k != COUNTER} in getattr(self, "edge_sizes", [])

    def proof_configs(self) -> list[Sizes]:
        """The bounded proof's sizes; [] where none is possible (`why_no_proof` says why)."""
        self._check_rewritable()
        if not self.rewritable:
            return [self.original] if self.provable_as_is() else []
        configs = self._configs(2, 1)
        if configs or self.provable_as_is():
            return self.with_counter(configs or [self.original])
        return []  # no smaller sizes keep every access in bounds, and its own are too large

    def why_no_proof(self) -> str:
        """Why proof_configs is empty."""
        if self.elements() > MAX_PROOF_ELEMENTS:
            own = (f"at its own sizes it has {self.elements()} array elements, more than the bounded "
                   f"proof takes ({MAX_PROOF_ELEMENTS})")
        else:
            own = (f"its own sizes ({sizes_text(self.original)}) exceed the bounded proof's "
                   f"largest ({MAX_PROOF_SIZE})")
        if self.not_rewritable:
            return f"the raised function is not re-instantiated at smaller sizes ({self.not_rewritable}), and {own}"
        return (f"no sizes smaller than the kernel's own ({self.model.describe()}) keep every access "
                f"within its array, and {own}")

    def distrust(self, why: str) -> None:
        """Stop using the text re-instantiated at other sizes (`why`): the text at its own
        sizes only, from now on."""
        self.not_rewritable = why
        self._checked = True
        self._cache.clear()

    def provable_as_is(self) -> bool:
        """Whether the bounded proof may run at the original sizes: few elements, small sizes."""
        return self.elements() <= MAX_PROOF_ELEMENTS and max(self.original.values(), default=0) <= MAX_PROOF_SIZE

    def elements(self) -> int:
        """Array elements of the arguments at the original sizes."""
        return sum(math.prod(int(d) for d in self.model.shape(i, self.original)) for i in self.model.arg_dims)

    def instances(self, values: Sizes) -> tuple[SourceModule, RaisedFunction]:
        """Original (normal form) and raised at `values` (the raised one verified by MLIR)."""
        key = tuple(sorted(values.items()))
        if key in self._cache:
            return self._cache[key]
        if values == self.original:
            out = (self.kernel.at(values) if self.kernel.sizes.arg_dims else self.kernel.normal, self.raised)
        else:
            original = self.kernel.at(values)
            if self.raised_at is not None:
                small = replace(self.raised, text=self.raised_at(values))
            else:
                small = self.raised.resized({self.original[n]: values[n] for n in self.original})
            try:
                small.signature()
            except InputError as e:
                raise InputError(f"cannot re-instantiate @{self.raised.name} at sizes "
                                 f"{sizes_text(values)}: {e.message}", e.location) from None
            out = (original, small)
        self._cache[key] = out
        return out


def step_symbols(kernel: Kernel, loop, step) -> dict:
    """{the size symbol that counts the time loop's steps: its value at 2 steps}, where the
    step is proven on every input state (so every step count is covered by induction) and
    the symbol sizes no array (fewer steps leave every array as it is): the whole loop's
    largest test may run fewer steps (SizePlan.largest_tested). Empty otherwise."""
    if step.verdict != "equivalent" or step.level not in ("z3", "all"):
        return {}
    trip = loop.trip
    if len(trip.terms) != 1 or trip.terms[0][1] != 1 or trip.div != 1:
        return {}
    name = trip.terms[0][0]
    if any(name in e.symbols for dims in kernel.sizes.arg_dims.values() for e in dims):
        return {}
    return {name: 2 - trip.const}
