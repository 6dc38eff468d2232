"""Indices that C computes from loop indices and sizes with integer division: a
nearest-neighbour resize reads `src[(y * sh / dh) * sw + (x * sw / dw)]` (stb_image_resize,
OpenCV), a row and a column picked by truncating division. Such a subscript is not affine,
but it reads no data: it is read as a table lookup is (a `memref.load` at the index C
computes, which the raise reads as a gather), and its range is found here, so that the
array's extent is what the index reaches and no assumption is needed.

The range is an interval of polynomials over the sizes, by the rules of C's integer
arithmetic on values that are not negative: a loop index over its bounds, a size times a
range, sums and differences, `a % d` in [0, d - 1], and `a / d` where a <= (d - 1) * A
(`y * sh` over y < dh, with d = dh and A = sh) in [0, A - 1] (floor((d - 1) * A / d) <=
A - 1 for A >= 1). Sizes are not negative (the loops run over them); a divisor is a size
or a positive constant. Anything else is refused with the reason. A mixin of the access
layer (synth.frontend.c.access)."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c import extremes
from synth.frontend.c.affine import AffineTranslator
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.model import c_text, expr_children, NotAffine, Refuse, strip_casts
from synth.frontend.c.poly import Poly
from synth.frontend.c.scalars import SCALARS, is_int


_STEPS = ("post++", "post--", "pre++", "pre--")


def nonnegative(p: Poly) -> bool:
    """Every coefficient and the constant >= 0: not negative for sizes >= 0."""
    return p.const >= 0 and all(c > 0 for c in p.terms.values())


class ComputedIndex(AffineTranslator):
    """`computed` (is a subscript such an index) and `computed_range` (its interval)."""

    def computed(self, index) -> bool:
        """A subscript that is not affine, reads no data and is an integer expression of
        loop indices and sizes (`y * sh / dh`)."""
        if not is_int(SCALARS.get(index.type.get_canonical().kind, "")):
            return False
        try:
            self.affine(index, pure=True)
            return False
        except (NotAffine, Refuse):
            pass
        for k in index.walk_preorder():
            if k.kind == CK.ARRAY_SUBSCRIPT_EXPR or (k.kind == CK.UNARY_OPERATOR and unary_operator(k) == "*"):
                return False  # (reads memory: data)
            if k.kind in (CK.CALL_EXPR, CK.COMPOUND_ASSIGNMENT_OPERATOR) or (
                    k.kind == CK.UNARY_OPERATOR and unary_operator(k) in _STEPS) or (
                    k.kind == CK.BINARY_OPERATOR and binary_operator(k) == "="):
                return False  # (a side effect: `a[k++]` is a walk, read as such)
            if k.kind == CK.DECL_REF_EXPR and k.referenced is not None:
                b = self.env.get(k.referenced.hash)
                if b is None or b.kind not in ("loopvar", "index", "arg") and self._set_by_division(k) is None:
                    return False
        return True

    def _set_by_division(self, ref):
        """The initialiser of the integer local `ref` names, kept in memory because it is
        no affine value (`int sy = y * sh / dh;` before the loop over x), where it still
        holds that value at this read (synth.frontend.c.extremes: never assigned after its
        declaration, its initialiser's names unchanged since) and is itself an index
        computed from loop indices and sizes; None otherwise."""
        b = self.env.get(ref.referenced.hash) if ref.referenced is not None else None
        if b is None or b.kind != "mem" or not is_int(b.type):
            return None
        init = extremes.fixed_local(self, ref)
        if init is None or not is_int(SCALARS.get(init.type.get_canonical().kind, "")):
            return None
        try:
            self.affine(init, pure=True)
            return init
        except (NotAffine, Refuse):
            return init if self.computed(init) else None

    def forwarded_read(self, ix):
        """A subscript that is an integer local set once from a read-only array where it
        still holds that value (ggml's get_rows: `int r = ids[i];` of `const int *ids`, then
        `table[r][j]`): the read itself, of the local's type (the lookup then reads `ids[i]`
        as `emb[tok[i]][j]` does); `ix` otherwise. Read-only: the array a parameter whose
        elements are `const` (the translation takes parameters not to overlap, and says so)."""
        s = strip_casts(ix)
        b = self.env.get(s.referenced.hash) if s.kind == CK.DECL_REF_EXPR and s.referenced is not None else None
        if b is None or b.kind != "mem" or not is_int(b.type):
            return ix
        init = extremes.fixed_local(self, s)
        r = strip_casts(init) if init is not None else None
        if r is None or r.kind != CK.ARRAY_SUBSCRIPT_EXPR or SCALARS.get(r.type.get_canonical().kind) != b.type:
            return ix
        base, index = self._subscript_parts(r)
        base = strip_casts(base)
        if base.kind != CK.DECL_REF_EXPR or base.referenced is None or base.referenced.kind != CK.PARM_DECL \
                or self._reads_memory(index):
            return ix
        t = base.referenced.type.get_canonical()
        pointee = t.get_pointee() if t.kind == TK.POINTER else t.get_array_element_type()
        return r if pointee.is_const_qualified() else ix

    def computed_range(self, e) -> tuple[Poly, Poly]:
        """(lowest, highest) of the integer expression `e` over the loop nest, as
        polynomials over the sizes; Refuse where the rules above do not bound it."""
        s = strip_casts(e)
        if s.kind == CK.DECL_REF_EXPR and (init := self._set_by_division(s)) is not None:
            return self.computed_range(init)  # a local set once by division: its initialiser's
        if s.kind == CK.CSTYLE_CAST_EXPR and is_int(SCALARS.get(s.type.get_canonical().kind, "")):
            return self.computed_range(expr_children(s)[-1])
        try:
            p = self.affine(s, pure=True)
        except (NotAffine, Refuse):
            p = None
        if p is not None:
            return self._poly_range(p, s)
        if s.kind != CK.BINARY_OPERATOR or binary_operator(s) not in ("+", "-", "*", "/", "%"):
            raise Refuse(s, f"cannot bound the index '{c_text(s)}' (only sums, products by sizes, "
                            f"divisions and remainders by sizes of loop indices are bounded)")
        op = binary_operator(s)
        a, b = expr_children(s)
        if op in ("+", "-"):
            (la, ha), (lb, hb) = self.computed_range(a), self.computed_range(b)
            return (la + lb, ha + hb) if op == "+" else (la - hb, ha - lb)
        if op == "*":
            for x, k in ((a, b), (b, a)):
                size = self._size(k)
                if size is not None:
                    lo, hi = self.computed_range(x)
                    return lo * size, hi * size
            raise Refuse(s, f"'{c_text(s)}' multiplies two values that depend on loop indices")
        d = self._size(b)
        if d is None or (d.is_const and d.const <= 0):
            raise Refuse(s, f"'{c_text(s)}' divides by something other than a size or a positive constant")
        lo, hi = self.computed_range(a)
        if not nonnegative(lo):
            raise Refuse(s, f"'{c_text(s)}' divides a value that may be negative (C truncates toward 0)")
        if op == "%":
            return Poly(), d.plus(-1)
        return Poly(), self._quotient_bound(hi, d, s)

    def _size(self, c) -> Poly | None:
        """The polynomial of `c` where it is sizes only (no loop index), not negative."""
        try:
            p = self.affine(c, pure=True)
        except (NotAffine, Refuse):
            return None
        return p if not p.dims() and nonnegative(p) else None

    def _poly_range(self, p: Poly, c) -> tuple[Poly, Poly]:
        """The interval of a polynomial over loop indices (each at most once in a term,
        with bounds over sizes only) and sizes."""
        lo, hi = Poly.number(p.const), Poly.number(p.const)
        for mono, coeff in p.terms.items():
            dims = [v for v in mono if v[0] == "d"]
            rest = Poly({tuple(v for v in mono if v[0] != "d"): coeff}) if len(mono) > len(dims) \
                else Poly.number(coeff)
            if not dims:
                if not rest.is_const and coeff < 0:
                    raise Refuse(c, f"cannot bound '{c_text(c)}': a size with a negative coefficient")
                lo, hi = lo + rest, hi + rest
                continue
            if len(dims) > 1 or dims[0] not in self.ranges:
                raise Refuse(c, f"cannot bound '{c_text(c)}': a product of loop indices")
            dlo, dhi, _ = self.ranges[dims[0]]
            if dlo is None or dhi is None or dlo.dims() or dhi.dims():
                raise Refuse(c, f"cannot bound '{c_text(c)}': a loop whose bounds depend on another loop")
            a, b = dlo * rest, dhi * rest
            lo, hi = (lo + a, hi + b) if coeff > 0 else (lo + b, hi + a)
        return lo, hi

    @staticmethod
    def _quotient_bound(hi: Poly, d: Poly, c) -> Poly:
        """An upper bound of `x / d` for 0 <= x <= hi: hi // d for constants, else A - 1
        where hi = d * A - R with R >= 1 (`(dh - 1) * sh` = dh * sh - sh over y < dh;
        `2 * n - 1` by 2), or, d a constant k, where hi = (k - 1) * A."""
        if hi.is_const and d.is_const:
            return Poly.number(hi.const // d.const)
        if d.is_const:
            dm, dc = (), d.const
        elif len(d.terms) == 1 and d.const == 0:
            (dm, dc), = d.terms.items()
        else:
            dm, dc = None, None
        if dm is not None:
            a = Poly()
            for m, v in hi.terms.items():
                rest = list(m)
                if all(x in rest for x in dm) and v % dc == 0:
                    for x in dm:
                        rest.remove(x)
                    a = a + (Poly({tuple(rest): v // dc}) if rest else Poly.number(v // dc))
            short = a * d - hi  # R: the bound is below d * A by at least 1
            if not (a.is_const and a.const == 0) and nonnegative(short) and not (short.is_const and short.const == 0):
                return a.plus(-1)
        if d.is_const and d.const > 1:
            k = d.const - 1
            if hi.content() % k == 0 and hi.const % k == 0:
                return Poly({m: v // k for m, v in hi.terms.items()}, hi.const // k).plus(-1)
        raise Refuse(c, f"cannot bound '{c_text(c)}': its dividend is not below the divisor times a "
                        f"size (as 'y * sh / dh' is, over y < dh)")
