"""Reading flattened subscripts as multi-dimensional accesses (delinearization).

A pointer parameter `float *A` is one flat run of elements; the kernel indexes it with
polynomials such as `i * lda + k` or `(b * n + i) * size + j`. The strides of those
subscripts (the coefficients of the loop indices: `lda`, `n * size`, `size`, 1, or
constants such as 3 for RGB pixels) form a chain when each divides the previous one;
then every subscript is a sum of stride * index, and the array is read as one of shape
[rows][S0/S1]...[S(r-2)], with the indices as its subscripts. The reading is exact when
every inner index stays within its extent (`0 <= k < lda`): that is checked over the
loop nest (intervals of the indices, bounds of the loops and of enclosing affine
conditions), at the sizes given (`--size`), or, where it depends on sizes left free, it
is stated as an assumption (`k <= lda`) that the translated function records.

Arrays declared with their extents (`double A[n][m]`, `float (*A)[N]`) have their strides
from the declaration; a declared one-dimensional array of constant extent (`float m[16]`
read as `m[r * 4 + c]`) is split like a pointer when the strides divide its extent."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from synth.frontend.c.poly import Poly, bounds, sign, split_dims


@dataclass
class Access:
    """One subscript of a base array, flat, with the ranges of the loop indices (over
    symbols) where it was read, and the cursor it comes from (for messages)."""

    flat: Poly | None  # None: a subscripted access of a declared array ...
    ranges: dict
    cursor: object
    text: str = ""
    first: Poly | None = None  # ... with this first subscript
    guarded: bool = False  # read under an `if` (its condition does not bound the subscripts here)
    facts: dict = field(default_factory=dict)  # sizes an enclosing affine.if fixes (`incx == 1`): value
    guards: tuple = ()  # (Poly, is_equality) constraints of the affine.ifs around (`x >= 0`)


@dataclass
class Layout:
    strides: list  # Poly monomials, outermost first; the last is 1
    extents: list  # per dim: a Poly over symbols, or None (rows reached: unknown form)
    assumptions: list = field(default_factory=list)
    opaque: bool = False  # strides that are sums of sizes are index symbols (Access.opaque)
    # a view at run-time strides (strided_view): `strides` are those of its
    # dims, no one dividing another; a memref of `strided<[?, ...], offset: ?>` layout
    view: bool = False


class LayoutError(Exception):
    def __init__(self, access: Access | None, reason: str, nonaffine: bool = False):
        super().__init__(reason)
        self.access, self.reason, self.nonaffine = access, reason, nonaffine


def _mono(p: Poly):
    """(coefficient, symbols) of a monomial polynomial over symbols (a constant: ())."""
    if p.is_const:
        return p.const, ()
    if len(p.terms) != 1 or p.const:
        return None
    (m, c), = p.terms.items()
    return c, m


def _divides(s, t) -> bool:
    (cs, ms), (ct, mt) = s, t
    if cs == 0 or ct % cs:
        return False
    rest = list(mt)
    for v in ms:
        if v not in rest:
            return False
        rest.remove(v)
    return True


def _quotient(t, s) -> Poly:
    (ct, mt), (cs, ms) = t, s
    rest = list(mt)
    for v in ms:
        rest.remove(v)
    return Poly({tuple(rest): ct // cs}) if rest else Poly.number(ct // cs)


def _as_poly(m) -> Poly:
    c, syms = m
    return Poly({syms: c}) if syms else Poly.number(c)


def chain(accesses: list, relaxed: bool = False) -> list | None:
    """The strides of the accesses (monomials), outermost first, ending with 1; None when
    they do not form a chain of divisors (or a subscript multiplies two indices).
    `relaxed`: the sizes alone are strides (`2 * y * w + 2 * x` is [2y][2x] of a row of w,
    not a pair of elements)."""
    cands = {(1, ())}
    for a in accesses:
        parts = split_dims(a.flat)
        if parts is None:
            return None
        for coeff, _ in parts[0]:
            m = _mono(coeff)
            if m is None:
                return None
            if relaxed:
                m = (1, m[1])
            cands.add((abs(m[0]), m[1]))
    order = sorted(cands, key=lambda m: (len(m[1]), m[0]), reverse=True)
    for outer, inner in zip(order, order[1:]):
        if not _divides(inner, outer):
            return None
    return order


def _modes(monos: list) -> list:
    """The ways `split` may read a subscript, in the order tried: constants divided down
    constant strides first; a size term of the subscript to the outermost stride dividing
    it, then to the innermost (`j * nx + nx - 1` is [j][nx - 1], not [j + 1][-1])."""
    if all(not m[1] for m in monos):
        return [(True, False), (False, False)]
    return [(False, False), (False, True)]


def split(flat: Poly, strides: list, floor_constants: bool, inner_rest: bool = False) -> list | None:
    """The indices of `flat` for the strides (monomials): each term goes to the outermost
    stride that divides its coefficient (`inner_rest`: a term without loop indices to the
    innermost one). The integer constant goes to the innermost index, or, with
    `floor_constants` (all strides constant), is divided down the strides."""
    parts = split_dims(flat)
    if parts is None:
        return None
    terms, rest = parts
    idx = [Poly() for _ in strides]
    for coeff, dim in terms:
        m = _mono(coeff)
        if m is None:
            return None
        k = next(k for k, s in enumerate(strides) if _divides(s, (abs(m[0]), m[1])))
        idx[k] = idx[k] + _quotient(m, strides[k]) * Poly.var(*dim)
    for mono, c in rest.terms.items():
        ks = [k for k, s in enumerate(strides) if _divides(s, (abs(c), mono))]
        k = ks[-1] if inner_rest else ks[0]
        idx[k] = idx[k] + _quotient((c, mono), strides[k])
    c = rest.const
    if floor_constants:
        for k, (s, _) in enumerate(strides):
            q, c = divmod(c, s)
            idx[k] = idx[k].plus(q)
    else:
        idx[-1] = idx[-1].plus(c)
    return idx


def decide(accesses: list, values: dict, names: dict, *, declared_total: Poly | None = None,
           fixed: list | None = None, opaque: list | None = None) -> Layout:
    """The layout of one base array from all its accesses. `fixed`: strides of a declared
    shape (not searched); `declared_total`: the extent of a declared 1-d array; `opaque`:
    the accesses with coefficients that are sums of sizes as symbols, tried after them.
    Raises LayoutError naming an access that no layout reads exactly."""
    tries = [(accesses, False)] + ([(opaque, True)] if opaque and opaque != accesses else [])
    found = None  # the first layout that holds only under assumptions on free sizes
    for strides, acc, is_opaque in ([(fixed, accesses, False)] if fixed else [
            (chain(a, relaxed), a, o) for a, o in tries for relaxed in (False, True)]):
        if strides is not None and not fixed and len(strides) > 1 and declared_total is not None:
            total = _mono(declared_total)
            if total is None or not _divides(strides[0], total):
                strides = None  # keep a declared array whole when the strides do not divide it
        if strides is None:
            continue
        try:
            lay = _check(acc, [_as_poly(s) if isinstance(s, tuple) else s for s in strides],
                         values, names, declared_total)
            lay.opaque = is_opaque
        except LayoutError:
            if fixed:
                raise
            continue
        if fixed or declared_total is not None or not _over_reaches(lay, acc, values):
            if fixed or not lay.assumptions:
                return lay
            # another reading may need fewer (`2 * y * w + 2 * x`, x < w / 2: rows of 2 * w
            # of pairs need w <= 1 where the pixel src[2y][2x] of rows of w needs none)
            if found is None or len(lay.assumptions) < len(found.assumptions):
                found = lay
    if found is not None:
        return _exact_flat(found, accesses, values, names)
    flat = [replace(a, flat=a.flat.subst(values)) for a in accesses]
    try:
        return _check(flat, [Poly.number(1)], values, names, declared_total)
    except LayoutError:
        if fixed or declared_total is not None:
            raise
        view = strided_view(accesses, values)
        if view is None:
            raise
        return view


def _exact_flat(lay: Layout, accesses: list, values: dict, names: dict) -> Layout:
    """`lay`, or the flat reading where `lay` holds only under assumptions on free sizes
    that the flat one does without: `x[i * 2 + j]`, j < k, as rows of 2 needs k <= 2 (a
    strided convolution's window is wider than its stride), flat it is exact."""
    if not lay.assumptions or len(lay.strides) < 2 or not all(st.is_const for st in lay.strides):
        return lay
    try:
        flat = _check([replace(a, flat=a.flat.subst(values)) for a in accesses], [Poly.number(1)],
                      values, names, None)
    except LayoutError:
        return lay
    return lay if flat.assumptions else flat


def _over_reaches(lay: Layout, accesses: list, values: dict) -> bool:
    """Whether rows of constant strides read from a pointer make a box the accesses do not
    fill at its end: `*p++` unrolled by 4 with a tail over n = 19 elements reaches [4][0..2]
    in its last row, and the box [0..4][0..3] ends at element 19, past the array (the raise
    takes the box the loops reach; a flat reading is exact). Rows of a stride that is a
    size (`A[i * lda + j]`) are not checked, nor a box that ends where the reach does
    (`y[i * 8 + j]`, j < nc <= 8: the box ends at (nr - 1) * 8 + nc - 1)."""
    if len(lay.strides) < 2 or not all(st.is_const for st in lay.strides):
        return False
    highs: list = [[] for _ in lay.strides]
    flat_highs = []
    for a in accesses:
        for d, e in enumerate(indices(a, lay, values)):
            b = _bounds(e, a)
            highs[d].append(b[1] if b is not None else None)
        b = _bounds(a.flat.subst(values) if values else a.flat, a)
        flat_highs.append(b[1] if b is not None else None)
    tops = [_max(h, values) for h in highs]
    reach = _max(flat_highs, values)
    if reach is None or any(t is None for t in tops):
        return True
    box = Poly()
    for t, st in zip(tops, lay.strides):
        box = box + t.plus(-1).scale(st.const)
    return sign(box - reach.plus(-1), values) != 0


def _check(accesses, strides: list, values: dict, names: dict, declared_total) -> Layout:
    monos = [_mono(s) for s in strides]
    extents = [None] + [_quotient(monos[k - 1], monos[k])
                        for k in range(1, len(monos))]
    assumptions: list[str] = []
    highs = []
    for a in accesses:
        idx, problems, assumed = _read(a, monos, extents, values, names)
        if idx is None:
            raise LayoutError(a, "it multiplies loop indices, or a loop index by sizes in a way "
                                 "no array shape reads", nonaffine=True)
        if problems:
            raise LayoutError(a, problems[0], nonaffine="not affine" in problems[0])
        for x in assumed:
            text = f"{x} (where '{a.text}' is read as {_reading(idx, names)})"
            if not any(t.startswith(x + " (") for t in assumptions):
                assumptions.append(text)
        b = _bounds(idx[0], a)
        highs.append(b[1] if b is not None else None)
    total = _mono(declared_total) if declared_total is not None else None
    if declared_total is not None and monos[0] == (1, ()):  # one element per row: `int d[n + 1]`
        extents[0] = declared_total
    elif total is not None and _divides(monos[0], total):
        extents[0] = _quotient(total, monos[0])
    else:  # a declared size that is no multiple of the rows (`n + 1` of rows of n): reached
        extents[0] = _max(highs, values)
    return Layout(strides, extents, assumptions)


def _read(a: Access, monos: list, extents: list, values: dict, names: dict) -> tuple:
    """(indices, problems, assumptions) of the reading of `a` in the strides `monos`: the
    first of `_modes` without problems (else the first one's, to say why), or, where that
    needs assumptions (or has problems) and an enclosing condition fixes sizes, the reading
    with those sizes at their values when it needs fewer: under `incx == 1`, `x[i]` is x[i][0]
    of the rows of incx that `x[i * incx]` reads elsewhere (not x[0][i], which needs n <= incx)."""
    idx, first, problems, assumed = None, None, [], []
    for fl, inner in _modes(monos):
        idx = split(a.flat, monos, fl, inner)
        if idx is None:
            break
        problems, assumed = _in_range(a, idx, extents, values, names)
        if not problems:
            break
        first = first or (idx, problems, assumed)
    if idx is not None and problems:  # no reading: say why the first one is not
        idx, problems, assumed = first
    if not a.facts or (idx is not None and not problems and not assumed):
        return idx, problems, assumed
    fixed = [_fix(m, a.facts) for m in monos]
    if fixed == monos or any(m[0] == 0 for m in fixed):
        return idx, problems, assumed
    known = [e if e is None else e.subst(a.facts) for e in extents]
    for fl, inner in _modes(fixed):
        other = split(a.flat.subst(a.facts), fixed, fl, inner)
        if other is None:
            break
        p2, a2 = _in_range(a, other, known, values, names)
        if not p2 and (idx is None or problems or len(a2) < len(assumed)):
            return other, p2, a2
    return idx, problems, assumed


def _fix(m: tuple, facts: dict) -> tuple:
    """A monomial (coefficient, symbols) with the symbols `facts` fixes at their values."""
    c, syms = m
    for v in syms:
        if v in facts:
            c *= facts[v]
    return c, tuple(v for v in syms if v not in facts)


def indices(a: Access, lay: Layout, values: dict) -> list:
    """The subscripts of a flat access in a layout `decide` accepted."""
    if lay.view:
        return view_indices(a.flat, lay.strides)
    monos = [_mono(s) for s in lay.strides]
    if len(monos) == 1:
        a = replace(a, flat=a.flat.subst(values))
    return _read(a, monos, lay.extents, values, {})[0]


def _in_range(a: Access, idx: list, extents: list, values: dict, names: dict):
    problems, assumed = [], []
    for k, e in enumerate(idx):
        b = _bounds(e, a)
        if b is None:
            problems.append(f"index {render(e, names)} of its reading is not affine")
            continue
        lo, hi = b
        s = sign(lo, values)
        if k == 0:  # before the start of the array: C's own undefined behaviour, not a reading
            if s is not None and s < 0:
                problems.append(f"it reads before the start of the array ({render(e, names)} "
                                f"can be {render(lo, names)})")
            continue
        if s is not None and s < 0:
            problems.append(f"index {render(e, names)} can be {render(lo, names)} < 0")
        elif s is None:
            assumed.append(f"{render(lo, names)} >= 0")
        room = extents[k] - hi.plus(1)
        s = sign(room, values)
        if s is not None and s < 0:
            problems.append(f"index {render(e, names)} can reach {render(hi, names)}, past the "
                            f"extent {render(extents[k], names)} of that dimension")
        elif s is None:
            assumed.append(f"{render(hi.plus(1), names)} <= {render(extents[k], names)}")
    return problems, assumed


def _bounds(e: Poly, a: Access) -> tuple | None:
    """(lowest, highest) of `e` over the loops where `a` is read, narrowed by the affine
    conditions around it: a guard `g >= 0` bounds `e` below by `e - g` and above by `e + g`
    where those hold no loop index (`if (x < 0 || x >= w) continue;` before `in[x]`: 0 and
    w - 1, where the loops alone give -1 and w)."""
    b = bounds(e, a.ranges)
    if b is None or not a.guards:
        return b
    lo, hi = b
    for g, eq in a.guards:
        for h in ((g, g.scale(-1)) if eq else (g,)):
            below, above = e - h, e + h
            if not below.dims() and sign(below - lo, {}) == 1:
                lo = below
            if not above.dims() and sign(hi - above, {}) == 1:
                hi = above
    return lo, hi


def _max(highs: list, values: dict) -> Poly | None:
    """The rows reached: the greatest highest index + 1, where the highest indices differ by
    constants (or all are known at `values`); None otherwise."""
    if not highs or any(h is None for h in highs):
        return None
    best = highs[0]
    for h in highs[1:]:
        s = sign(h - best, values)
        if s is None:
            return None
        if s > 0:
            best = h
    return best.plus(1)


def _reading(idx: list, names: dict) -> str:
    return "[" + "][".join(render(e, names) for e in idx) + "]"


def rows(accesses: list, values: dict) -> Poly | None:
    """The extent of dimension 0 that the first subscripts reach."""
    highs = []
    for a in accesses:
        b = bounds(a.first, a.ranges)
        highs.append(b[1] if b is not None else None)
    return _max(highs, values)


def _factor(text: str) -> str:
    """`text` as a factor of a C product: a quotient `(h) / 2` parenthesized, so that
    `2 * ((h) / 2)` is not read as `(2 * (h)) / 2`."""
    return text if text.isidentifier() or text.isdigit() else f"({text})"


def render(p: Poly, names: dict) -> str:
    """A polynomial in C: `i * lda + k - 1`, variables by `names` (else their key)."""
    parts = []
    for m, c in sorted(p.terms.items(), key=lambda t: (-len(t[0]), str(t[0]))):
        mag = abs(c)
        alone = len(m) == 1 and mag == 1  # (a factor of nothing else keeps its text)
        body = " * ".join(names.get(v, str(v[1])) if alone else _factor(names.get(v, str(v[1]))) for v in m)
        term = body if mag == 1 else f"{mag} * {body}"
        parts.append(term if not parts and c > 0 else ("-" + term if not parts else
                                                        ("+ " if c > 0 else "- ") + term))
    if p.const or not parts:
        if not parts:
            return str(p.const)
        parts.append(("+ " if p.const > 0 else "- ") + str(abs(p.const)))
    return " ".join(parts)


# --- views at run-time strides ---------------------------------------------------------


def _view_terms(flat: Poly) -> list | None:
    """[(stride monomial, index term)] of a subscript that is a sum of loop indices times
    run-time or constant strides (`m * is1_m + n * is1_n`, `i1 * nb1 + i`), None where
    there is an offset without loop indices."""
    parts = split_dims(flat)
    if parts is None or parts[1].terms or parts[1].const:
        return None
    out = []
    for coeff, dim in parts[0]:
        m = _mono(coeff)
        if m is None:
            return None
        if not m[1]:  # a constant stride (ggml's contiguous rows: `i` of `+ i1 * nb1 + i`)
            out.append((Poly.number(abs(m[0])), Poly.var(*dim).scale(1 if m[0] > 0 else -1)))
        else:
            out.append((Poly({m[1]: 1}), Poly.var(*dim).scale(m[0])))
    return out


def view_indices(flat: Poly, strides: list) -> list:
    """The subscripts of `flat` in a view of `strides` (strided_view)."""
    idx = [Poly() for _ in strides]
    for st, term in _view_terms(flat) or ():
        idx[strides.index(st)] = idx[strides.index(st)] + term
    return idx


def strided_view(accesses: list, values: dict) -> Layout | None:
    """A pointer read at two or more run-time strides, no one dividing another (NumPy's
    matmul inner loop `ip1 + m * is1_m + n * is1_n`, a 2-d strided copy): a view whose
    dims are those strides' (in the order the first access's loops nest), each index the
    loop indices one stride multiplies, each extent what that index reaches (its lowest
    0 or above). The reading is exact as long as the strides are the caller's: the memref
    is `strided<[?, ?], offset: ?>` and the drop-in passes them (synth.c_strides). None
    where the accesses are not all of that form."""
    if values:
        accesses = [replace(a, flat=a.flat.subst(values)) for a in accesses]
    strides: list = []
    for a in accesses:
        terms = _view_terms(a.flat) if a.flat is not None else None
        if terms is None:
            return None
        for st, _ in sorted(terms, key=lambda t: sorted(t[1].terms)):
            if st not in strides:
                strides.append(st)
    if len(strides) < 2 or all(st.is_const for st in strides):
        return None
    highs: list = [[] for _ in strides]
    for a in accesses:
        for k, e in enumerate(view_indices(a.flat, strides)):
            b = _bounds(e, a)
            if b is None or sign(b[0], values) not in (0, 1):
                return None
            highs[k].append(b[1])
    extents = [_max(h, values) for h in highs]
    if any(e is None for e in extents):
        return None
    return Layout(strides, extents, [], view=True)
