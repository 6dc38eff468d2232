"""The generator's primitives (step 1 of the overview, first half): `Drawer` holds the
random state of one kernel being drawn (its element type, sizes, arrays, scalars,
features, statement budget) and draws its parts: loop nests over the sizes, triangular
bounds, read and write accesses (broadcast, transposed, offset, strided), and
expressions kept within the budget of ops synth searches. Every random choice is
made in the same order as before the split, so a seed gives the same kernels."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass

from .kernel import (IVS, Access, Array, Binary, Const, Dim, For, Index, IvValue, Load,
                     Scalar, Select, Unary, expr_cost)

SIZE_POOL = (16, 24, 32, 40, 48, 56, 64)  # distinct, >= 8 and 8 apart (synth verify's resizing)
SMALL_POOL = (16, 24, 32)  # for 4-deep nests
FLOAT_CONSTS = (0.5, 1.0, 2.0, 3.0, 0.25)
INT_CONSTS = (1, 2, 3, 5)
ARRAY_NAMES_2D = ("A", "B", "C", "D", "E", "F", "G", "H")
ARRAY_NAMES_1D = ("x", "y", "z", "u", "v", "w", "p", "q")
SCALAR_NAMES = ("alpha", "beta", "gamma")


@dataclass
class Loop:
    """What an expression sees of an enclosing loop."""

    iv: str
    dim: str
    lo: int
    hi: int
    tri: bool


class Drawer:
    """The random parts of one kernel: sizes, names, loops, accesses, expressions,
    reductions. `Gen` (generate.py) assembles them into constructs."""

    def __init__(self, rng: random.Random, k: int, seed: int):
        self.rng = rng
        self.k = k
        self.seed = seed
        self.elem = rng.choices(("f64", "f32", "i32"), (6, 2, 2))[0]
        self.deep = rng.random() < 0.12  # a 4-deep nest (small sizes)
        self.dims = self._draw_dims()
        self.arrays: list[Array] = []
        self.scalars: list[str] = []
        self.body: list = []
        self.features: set[str] = set()
        self.returns = 0
        self.memref_style = rng.random() < 0.15
        # estimated ops per statement (synth searches up to 6): mostly within reach
        self.budget = rng.choice((3, 4, 5, 6, 6, 10))

    # sizes and names ---------------------------------------------------------------------

    def _draw_dims(self) -> list[Dim]:
        pool = SMALL_POOL if self.deep else SIZE_POOL
        n = self.rng.choice((1, 2, 2, 3))
        values = self.rng.sample(pool, n)
        param = self.rng.random() < 0.3
        return [Dim(f"n{v}", v, param=param) for v in values]

    def _array_name(self, rank: int) -> str:
        names = ARRAY_NAMES_1D if rank == 1 else ARRAY_NAMES_2D
        used = {a.name for a in self.arrays}
        for n in names:
            if n not in used:
                return n
        return f"{names[0]}{len(self.arrays)}"

    def new_array(self, axes: tuple, local: bool = False) -> Array:
        name = "res" if not axes else self._array_name(len(axes))
        if name in {a.name for a in self.arrays}:
            name = f"{name}{len(self.arrays)}"
        a = Array(name, tuple(axes), local)
        self.arrays.append(a)
        return a

    def scalar(self) -> Scalar:
        if self.scalars and self.rng.random() < 0.6:
            return Scalar(self.rng.choice(self.scalars))
        if len(self.scalars) < len(SCALAR_NAMES):
            self.scalars.append(SCALAR_NAMES[len(self.scalars)])
            self.features.add("scalar-arg")
        return Scalar(self.scalars[-1])

    def stride_ok(self, dim: str) -> bool:
        """x[2 * i] on a 2n array: 2n <= 64 and at least 5 from every other size."""
        v = 2 * next(d.value for d in self.dims if d.name == dim)
        return v <= 64 and all(abs(v - d.value) > 4 for d in self.dims)

    # loops -------------------------------------------------------------------------------

    def loops(self, depth: int, shifted: bool = True) -> list[Loop]:
        """`depth` loops over the kernel's sizes; some with offset bounds (1 to n-1)."""
        out = []
        for level in range(depth):
            d = self.rng.choice([d for d in self.dims if not d.steps])
            dim = d.name
            lo = hi = 0
            r = self.rng.random()
            if shifted and r < 0.2:
                lo, hi = self.rng.choice(((1, 1), (1, 0), (0, 1), (2, 2), (0, 2)))
                self.features.add("offset-bounds")
            elif shifted and r < 0.27 and not d.param:  # to n/2, or to 10: a bound of its own
                hi = d.value - self.rng.choice((d.value // 2, 10))
                self.features.add("partial-bounds")
            out.append(Loop(IVS[level], dim, lo, hi, False))
        return out

    def triangular(self, loops: list[Loop]) -> tuple | None:
        """Make the innermost loop triangular on an outer one over the same size."""
        inner = loops[-1]
        for outer in loops[:-1]:
            if outer.dim == inner.dim and not inner.lo and not inner.hi:
                kind = self.rng.choice(("upper", "lower"))
                inner.tri = True
                self.features.add(f"triangular-{kind}")
                return (kind, outer.iv)
        return None

    def nest(self, loops: list[Loop], inner: list, tri: tuple | None = None) -> list:
        """Wrap `inner` in For nodes for `loops` (outermost first)."""
        body = inner
        for pos, lp in reversed(list(enumerate(loops))):
            body = [For(lp.iv, lp.dim, body, lp.lo, lp.hi,
                        tri if pos == len(loops) - 1 else None)]
        return body

    # accesses ----------------------------------------------------------------------------

    def subscript(self, lp: Loop, stride: bool) -> tuple[Index, tuple]:
        if stride:
            return Index(lp.iv, 2, self.rng.choice((0, 0, 1))), (lp.dim, 2)
        offset = 0
        if not lp.tri and (lp.lo or lp.hi) and self.rng.random() < 0.7:
            offset = self.rng.randint(-lp.lo, lp.hi)
        return Index(lp.iv, 1, offset), (lp.dim, 1)

    def read_access(self, loops: list[Loop], avoid: set, rank: int | None = None) -> Access:
        """A load in `loops`: a subset of the indices (broadcast), in any order
        (transpose), with offsets within the loop bounds or a stride of 2."""
        if rank is None:
            rank = self.rng.choice([r for r in (1, 1, 2, 2, 3) if r <= len(loops)] or [1])
        chosen = self.rng.sample(loops, rank)
        if self.rng.random() < 0.7:  # mostly in nest order
            chosen.sort(key=loops.index)
        if chosen != sorted(chosen, key=loops.index):
            self.features.add("transpose")
        if rank < len(loops):
            self.features.add("broadcast")
        stride = rank == 1 and not chosen[0].tri and self.stride_ok(chosen[0].dim) and self.rng.random() < 0.15
        subs = [self.subscript(lp, stride) for lp in chosen]
        if stride:
            self.features.add("stride")
        if any(s.offset and s.coef == 1 for s, _ in subs):
            self.features.add("offset-access")
        if rank < 3 and self.rng.random() < 0.08:  # A[i, 0], x[n - 1]: a constant subscript
            d = self.rng.choice([d for d in self.dims if not d.steps])
            c = self.rng.choice((0, 1, d.value - 1))
            subs.insert(self.rng.randint(0, len(subs)), (Index(None, 0, c), (d.name, 1)))
        axes = tuple(a for _, a in subs)
        return Access(self.array_for(axes, avoid), tuple(s for s, _ in subs))

    def array_for(self, axes: tuple, avoid: set) -> Array:
        """An existing argument array of that shape (not in `avoid`), or a new one."""
        fits = [a for a in self.arrays if a.axes == axes and not a.local and a.name not in avoid]
        if fits and self.rng.random() < 0.5:
            return self.rng.choice(fits)
        return self.new_array(axes)

    def write_access(self, loops: list[Loop], avoid: set, keep: list[Loop] | None = None) -> Access:
        """A store indexed by every loop in `keep` (default: all), maybe transposed."""
        keep = list(loops if keep is None else keep)
        if len(keep) > 1 and self.rng.random() < 0.2:
            self.rng.shuffle(keep)
            self.features.add("transposed-store")
        subs = []
        for lp in keep:
            off = 0
            if not lp.tri and (lp.lo or lp.hi) and self.rng.random() < 0.3:
                off = self.rng.randint(-lp.lo, lp.hi)
            subs.append((Index(lp.iv, 1, off), (lp.dim, 1)))
        axes = tuple(a for _, a in subs)
        fits = [a for a in self.arrays if a.axes == axes and not a.local and a.name not in avoid]
        array = self.rng.choice(fits) if fits and self.rng.random() < 0.3 else self.new_array(axes)
        return Access(array, tuple(s for s, _ in subs))

    # expressions -------------------------------------------------------------------------

    def leaf(self, loops: list[Loop], avoid: set):
        r = self.rng.random()
        if r < 0.72 and loops:
            return Load(self.read_access(loops, avoid))
        if r < 0.84:
            return self.scalar()
        if r < 0.96 or not loops:
            return Const(self.const())
        self.features.add("iv-value")
        return IvValue(self.rng.choice(loops).iv)

    def const(self):
        return self.rng.choice(INT_CONSTS if self.elem == "i32" else FLOAT_CONSTS)

    def expr(self, loops: list[Loop], avoid: set, depth: int = 2):
        """A random expression of at most `depth` levels of ops, redrawn (up to a few
        times) while its estimated tensor-program size exceeds the kernel's budget, so
        that most kernels are within the reach of synth's search (and some are not)."""
        e = self.draw_expr(loops, avoid, depth)
        for _ in range(6):
            if expr_cost(e, len(loops)) <= self.budget:
                break
            depth = max(1, depth - 1) if self.rng.random() < 0.5 else depth
            e = self.draw_expr(loops, avoid, depth)
        return e

    def draw_expr(self, loops: list[Loop], avoid: set, depth: int = 2):
        """A random expression tree of at most `depth` levels of ops."""
        if depth == 0 or self.rng.random() < 0.3:
            return self.leaf(loops, avoid)
        float_ops = self.elem != "i32"
        kinds = ["binary"] * 6 + ["neg", "select"] + (["sqrt", "exp", "div"] if float_ops else [])
        kind = self.rng.choice(kinds)
        sub = lambda: self.draw_expr(loops, avoid, depth - 1)  # noqa: E731
        if kind == "binary":
            op = self.rng.choice(("add", "add", "sub", "mul", "mul", "max", "min"))
            self.features.add(op)
            return Binary(op, sub(), sub())
        self.features.add(kind)
        if kind == "neg":
            return Unary("neg", sub())
        if kind == "select":  # compare two leaves, pick one of two values
            leaf = lambda: self.leaf(loops, avoid)  # noqa: E731
            a, b = leaf(), leaf()
            while b == a:
                b = leaf()
            return Select(self.rng.choice(("gt", "lt", "ge", "le")), a, b, sub(), leaf())
        if kind == "sqrt":  # of a square or an absolute value: always defined
            x = sub()
            return Unary("sqrt", Binary("mul", x, copy.deepcopy(x)) if self.rng.random() < 0.5
                         else Unary("abs", x))
        if kind == "exp":  # of small values: a load or a scaled one
            x = Load(self.read_access(loops, avoid)) if loops else Const(0.5)
            return Unary("exp", x if self.rng.random() < 0.6 else Binary("mul", x, Const(0.5)))
        # div: by a positive scalar, a constant, or 1 + x*x (never near zero)
        den = self.rng.choice(("scalar", "const", "square"))
        if den == "scalar":
            d = self.scalar()
        elif den == "const":
            d = Const(self.rng.choice((2.0, 3.0, 0.5)))
        else:
            x = sub()
            d = Binary("add", Const(1.0), Binary("mul", x, copy.deepcopy(x)))
        return Binary("div", sub(), d)

    def reduce_op(self) -> str:
        op = self.rng.choice(("add", "add", "add", "max", "min"))
        self.features.add(f"reduce-{op}")
        return op

    def reduce_init(self, op: str) -> float:
        if op == "add":
            return 0
        if self.elem != "i32" and self.rng.random() < 0.4:
            return float("-inf") if op == "max" else float("inf")
        return 0
