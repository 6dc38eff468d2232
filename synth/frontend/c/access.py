"""Third layer of the function translator: arrays and pointers.

Every array the function reads or writes is a *base* (`Binding` of kind "array"): a
parameter (`T *p`, `T p[]`, `T p[N]`, `T p[][N]`, `T (*p)[N]`, `T p[n][m]`) or a local
array. A pointer value is a `View`: a base and a flat offset in its elements (a
polynomial), so `&A[i * Y]`, `key_cache + t * kv_dim`, `p++` and `A[i]` (a row) are
offsets. An element access is `A[i][j]` on a declared array (its subscripts), or a flat
offset into a base: the first pass records those (`layout.Access`, with the ranges of the
loop indices there); `layout.decide` reads them as multi-dimensional subscripts, and the
second pass emits them as such (`affine.load` / `affine.store`). Under a condition on data
(`self.pred`), a store writes `select(cond, new, old)`."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c import layout
from synth.frontend.c.libclang import binary_operator, unary_operator
from synth.frontend.c.model import (
    Binding,
    expr_children,
    inline,
    NotAffine,
    only_child,
    Refuse,
    strip_casts,
    c_text,
    View,
)
from synth.frontend.c.poly import Poly, split_dims
from synth.frontend.c.scalars import SCALARS, WIDTH, is_int, mlir, unsigned

from synth.frontend.c.bytes import ARRAYS, BYTES, ByteViews
from synth.frontend.c.computed import ComputedIndex, nonnegative


def stride(dims) -> Poly:
    """The product of `dims` (the element stride of a row of those extents)."""
    out = Poly.number(1)
    for d in dims:
        out = out * d
    return out


class AccessTranslator(ByteViews, ComputedIndex):
    """Bases, pointer values and element accesses of one function."""

    # --- bases --------------------------------------------------------------------------

    def declare_base(self, decl, name: str, ssa: str, t, param_index: int | None) -> Binding:
        """The base of an array or pointer parameter / local array `decl` of C type `t`."""
        canon = t.get_canonical()
        dims, cur = [], canon
        flat = False
        if canon.kind == TK.POINTER:
            cur = canon.get_pointee().get_canonical()
            dims.append(None)
            flat = cur.kind not in ARRAYS
        sizes = [k for k in decl.get_children() if k.kind.is_expression()][::-1]
        while cur.kind in ARRAYS:
            if cur.kind == TK.CONSTANTARRAY:
                dims.append(Poly.number(cur.element_count))
            elif cur.kind == TK.INCOMPLETEARRAY:
                dims.append(None)
            else:
                dims.append(self._extent(decl, sizes, len(dims), name))
            cur = cur.element_type.get_canonical()
        if cur.kind == TK.POINTER and SCALARS.get(cur.get_pointee().get_canonical().kind) in BYTES:
            raise Refuse(decl, f"'{name}' is an array of byte pointers ('{t.spelling}', NumPy's ufunc "
                                f"loops' `char **args` read as `args[k]`): not supported; pass each "
                                f"pointer and its byte stride as parameters of their own (`char *ip1, "
                                f"npy_intp is1, ...`), which synth reads as strided arrays")
        if cur.kind == TK.POINTER:
            raise Refuse(decl, f"'{name}' is an array of pointers or a pointer to pointers "
                                f"('{t.spelling}'): only arrays of numbers are supported")
        elem = self.scalar_type(cur, decl, f"the elements of '{name}'")
        if len(dims) == 1 and param_index is not None:
            flat = True  # a 1-d parameter: laid out from its subscripts
        restrict = canon.kind == TK.POINTER and t.is_restrict_qualified()
        key = self.note_key()
        b = Binding("array", ssa, self.plan.retyped.get(key, elem), tuple(dims), name=name,
                    param_index=param_index, key=key, flat=flat, restrict=restrict,
                    pointer=canon.kind == TK.POINTER, retyped=key in self.plan.retyped)
        self.bases.append(b)
        if b.retyped:
            self.assume(f"'{name}' points to {b.type} elements (the function reads its bytes only as "
                        f"{b.type}, at byte offsets that are multiples of {WIDTH[b.type] // 8})")
        return b

    def _extent(self, decl, sizes: list, k: int, name: str) -> Poly:
        if k >= len(sizes):
            raise Refuse(decl, f"cannot read the extent of dimension {k + 1} of '{name}'")
        try:
            return self.affine(sizes[k], pure=True)
        except NotAffine as e:
            raise Refuse(sizes[k], f"extent '{c_text(sizes[k])}' of '{name}' is not an affine "
                                    f"expression of the integer parameters: {e.reason}") from None

    def base_shape(self, b: Binding) -> list:
        """Static extents (int) or None (dynamic) of a base's memref."""
        if b.flat:
            lay = self.plan.layouts.get(b.key)
            extents = lay.extents if lay is not None else [None]
        else:
            extents = list(b.shape)
            if extents and extents[0] is None:
                lay = self.plan.layouts.get(b.key)
                extents[0] = lay.extents[0] if lay is not None else None
        out = []
        for e in extents:
            e = e.subst(self.values) if e is not None and self.values else e
            out.append(e.const if e is not None and e.is_const else None)
        return out

    def base_type(self, b: Binding) -> str:
        t = self.memref(self.base_shape(b), b.type)
        lay = self.plan.layouts.get(b.key) if b.flat else None
        if lay is not None and lay.view:  # at the caller's strides (layout.strided_view)
            dims = ", ".join("?" for _ in lay.strides)
            t = f"{t[:-1]}, strided<[{dims}], offset: ?>>"
        return t

    # --- pointer values -----------------------------------------------------------------

    def pointer_dims(self, t, c) -> tuple:
        """The extents of what a pointer of C type `t` points to (() for numbers)."""
        cur = t.get_canonical()
        if cur.kind == TK.POINTER:
            cur = cur.get_pointee().get_canonical()
        elif cur.kind in ARRAYS:
            cur = cur.element_type.get_canonical()
        dims = []
        while cur.kind in ARRAYS:
            if cur.kind != TK.CONSTANTARRAY:
                raise Refuse(c, f"a pointer to arrays of run-time extent ('{t.spelling}') is not "
                                 f"supported")
            dims.append(Poly.number(cur.element_count))
            cur = cur.element_type.get_canonical()
        return tuple(dims)

    def pval(self, c) -> View:
        """The pointer value of a pointer- or array-typed expression."""
        s = strip_casts(c)
        k = s.kind
        if k == CK.CSTYLE_CAST_EXPR:
            inner = expr_children(s)[-1]
            if self._elem_kind(inner.type) in BYTES and self._elem_kind(s.type) not in BYTES:
                return self._from_bytes(s, inner)
            v = self.pval(inner)
            if v.base.retyped:  # `(char *) dp` of a pointer into the bytes read as doubles
                return self.retarget(v, s.type, s)
            if self._elem_kind(s.type) in BYTES and not v.dims and not v.in_bytes \
                    and self._elem_kind(inner.type) == v.base.type and v.base.type not in BYTES:
                # `(char *)out` of a `float *`: its bytes, until a cast back reads them as floats
                return View(v.base, v.offset.scale(WIDTH[v.base.type] // 8), (), 1, True)
            if self.pointer_dims(s.type, s) != v.dims or self._elem_kind(s.type) != self._elem_kind(inner.type):
                raise Refuse(s, f"pointer cast '{c_text(s)}' changes the type pointed to")
            return v
        if k == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is not None and b.kind == "array":
                return View(b, Poly(), tuple(b.shape[1:]))
            if b is not None and b.kind == "pointer":
                v = self.ivals.get(b.key)
                if v is None and b.key in self.merged:
                    raise Refuse(s, f"pointer '{b.name}' is read where it points to a place that "
                                     f"depends on a condition: {self.merged[b.key]}")
                if v is None:
                    raise Refuse(s, f"pointer '{b.name}' is read where it points to an unknown "
                                     f"place (not set, or set under a condition or in an earlier "
                                     f"iteration in a way that is not an affine walk)")
                return v
            raise Refuse(s, f"'{s.spelling}' is not an array or pointer")
        if k == CK.ARRAY_SUBSCRIPT_EXPR:  # a row of a multi-dimensional array
            base, index = self._subscript_parts(s)
            v = self.pval(base)
            if not v.dims:
                raise Refuse(s, f"'{c_text(s)}' is not an array")
            off = v.offset + self.subscript(index, s) * stride(v.dims)
            return View(v.base, off, v.dims[1:])
        if k == CK.UNARY_OPERATOR and unary_operator(s) == "&":
            b, acc = self.element(only_child(s))
            if b.retyped:
                raise Refuse(s, f"'{c_text(s)}' takes the address of an element of '{b.name}', whose "
                                f"bytes are read as {b.type}: walk the byte pointer instead")
            if acc[0] == "idx":
                off = Poly()
                for i, e in enumerate(acc[1]):
                    off = off + e * stride([d or Poly.number(0) for d in b.shape[i + 1:]])
                if any(d is None for d in b.shape[1:]):
                    raise Refuse(s, f"'{c_text(s)}' takes the address of an element of an array "
                                     f"with an unknown inner extent")
                return View(b, off, ())
            return View(b, acc[1], ())
        if k == CK.UNARY_OPERATOR and unary_operator(s) == "*":  # a row through a pointer to rows
            v = self.pval(only_child(s))
            if not v.dims:
                raise Refuse(s, f"'{c_text(s)}' is not an array")
            return View(v.base, v.offset, v.dims[1:])
        if k == CK.BINARY_OPERATOR:
            return self._pointer_sum(s)
        if k == CK.UNARY_OPERATOR and unary_operator(s) in ("post++", "post--", "pre++", "pre--"):
            return self.step_pointer(s, unary_operator(s))
        raise Refuse(s, f"pointer expression '{c_text(s)}' is not supported (pointers must be "
                         f"arrays, parameters or locals set to an array plus an affine offset)")

    def _pointer_sum(self, s) -> View:
        op = binary_operator(s)
        a, b = expr_children(s)
        if op not in ("+", "-"):
            raise Refuse(s, f"pointer arithmetic '{c_text(s)}' is not supported")
        ptr, num = (a, b) if a.type.get_canonical().kind in (TK.POINTER, *ARRAYS) else (b, a)
        if num.type.get_canonical().kind in (TK.POINTER, *ARRAYS):
            raise Refuse(s, f"difference of pointers '{c_text(s)}' is not supported")
        v = self.pval(ptr)
        d = self.subscript(num, s) * stride(v.dims).scale(v.unit)
        return View(v.base, v.offset + (d if op == "+" else d.scale(-1)), v.dims, v.unit, v.in_bytes)

    def step_pointer(self, s, op: str) -> View:
        inner = strip_casts(only_child(s))
        b = self.binding(inner) if inner.kind == CK.DECL_REF_EXPR else None
        if b is None or b.kind != "pointer":
            raise Refuse(s, f"'{c_text(s)}' steps something other than a pointer variable")
        old = self.pval(inner)
        delta = stride(old.dims).scale(old.unit if op.endswith("++") else -old.unit)
        new = View(old.base, old.offset + delta, old.dims, old.unit, old.in_bytes)
        self.ivals[b.key] = new
        return old if op.startswith("post") else new

    def subscript(self, index, c) -> Poly:
        try:
            return self.affine(index)
        except NotAffine as err:
            dep = "data-dependent" if self._reads_memory(index) else "non-affine"
            raise Refuse(index, f"{dep} array subscript '{c_text(index)}' in '{c_text(c)}': "
                                 f"{err.reason} (subscripts must be affine in loop indices and "
                                 f"integer parameters)") from None

    @staticmethod
    def _subscript_parts(s):
        """(array, index) of `a[i]`, also for the C-legal `i[a]`."""
        a, b = expr_children(s)
        if b.type.get_canonical().kind in (TK.POINTER, *ARRAYS):
            a, b = b, a
        return a, b

    def _reads_memory(self, c) -> bool:
        for k in c.walk_preorder():
            if k.kind == CK.ARRAY_SUBSCRIPT_EXPR or (k.kind == CK.UNARY_OPERATOR and unary_operator(k) == "*"):
                return True
            if k.kind == CK.DECL_REF_EXPR:
                b = self.env.get(k.referenced.hash) if k.referenced is not None else None
                if b is not None and b.kind == "mem":
                    return True
        return False

    # --- elements -----------------------------------------------------------------------

    def element(self, c, lookup: bool = False) -> tuple:
        """(base, ("idx", subscripts) or ("flat", offset)) of a number-typed lvalue;
        `lookup` (a read): ("lookup", subscripts) or ("flat lookup", (offset, index)) where
        a subscript reads data (a table lookup)."""
        s = strip_casts(c)
        if s.kind == CK.ARRAY_SUBSCRIPT_EXPR:
            subs, e = [], s
            while e.kind == CK.ARRAY_SUBSCRIPT_EXPR:
                base, index = self._subscript_parts(e)
                subs.insert(0, index)
                e = strip_casts(base)
            if e.kind == CK.DECL_REF_EXPR:
                b = self.binding(e)
                if b is not None and b.kind == "array" and not b.flat and len(subs) == len(b.shape):
                    if lookup and any(self._reads_memory(ix) or self.computed(ix) for ix in subs):  # a table lookup
                        return b, ("lookup", subs)
                    return b, ("idx", [self.subscript(ix, s) for ix in subs])
                if b is None or b.kind not in ("array", "pointer"):
                    raise Refuse(e, f"'{e.spelling}' is not an array or pointer")
            elif e.kind == CK.MEMBER_REF_EXPR:
                raise Refuse(e, f"struct member access '{c_text(e)}' is not supported")
            base, index = self._subscript_parts(s)
            v = self.pval(base)
            if v.dims:
                raise Refuse(s, f"'{c_text(s)}' is an array, not a number")
            if v.in_bytes:
                raise Refuse(s, f"'{c_text(s)}' reads the bytes of '{v.base.name}' ({v.base.type}) as bytes: "
                                f"only a cast back to {v.base.type} reads them")
            if lookup and (self._reads_memory(index) or self.computed(index)):  # `lut[in[i]]`, `src[y * sh / dh]`
                if v.base.retyped:
                    raise Refuse(s, f"'{c_text(s)}' reads '{v.base.name}', whose bytes are read as "
                                    f"{v.base.type}, at an index that is not affine")
                if self._retypable(v):  # a `const uchar *lut` read as bytes
                    self.plan.as_bytes.setdefault(v.base.key, c_text(s))
                return v.base, ("flat lookup", (v.offset, index))
            if v.base.retyped or self._retypable(v):
                return v.base, ("flat", self._typed(v, self.subscript(index, s), s))
            return v.base, ("flat", v.offset + self.subscript(index, s))
        if s.kind == CK.UNARY_OPERATOR and unary_operator(s) == "*":
            v = self.pval(only_child(s))
            if v.dims:
                raise Refuse(s, f"'{c_text(s)}' is an array, not a number")
            if v.in_bytes:
                raise Refuse(s, f"'{c_text(s)}' reads the bytes of '{v.base.name}' ({v.base.type}) as bytes: "
                                f"only a cast back to {v.base.type} reads them")
            if v.base.retyped or self._retypable(v):
                return v.base, ("flat", self._typed(v, Poly(), s))
            return v.base, ("flat", v.offset)
        if s.kind == CK.MEMBER_REF_EXPR:
            raise Refuse(s, f"struct member access '{c_text(s)}' is not supported")
        raise Refuse(s, f"'{c_text(s)}' is not an element of an array")

    def fixed_sizes(self) -> dict:
        """The sizes the enclosing affine conditions fix (`incx == 1`): symbol -> value."""
        out = {}
        for e, eq in self.facts:
            if eq and len(e.terms) == 1:
                (mono, coeff), = e.terms.items()
                if len(mono) == 1 and coeff in (1, -1):
                    out[mono[0]] = -e.const * coeff
        return self.with_derived(out)

    def with_derived(self, facts: dict) -> dict:
        """`facts` with the symbols derived from sizes that they fix: `(is1) / 8` is 1 where
        `is1 == 8` (after the first pass: a symbol derived later in it too)."""
        out = dict(facts)
        forms = {**self.plan.derived, **{k: v[:3] for k, v in self.derived.items()}}
        for key, (x, op, d) in (forms.items() if facts else ()):
            known = x.subst(facts)
            if known.is_const and op in ("/", "%", "poly"):
                q = abs(known.const) // d * (1 if known.const >= 0 else -1)  # C truncates
                out[("s", key)] = q if op == "/" else known.const - q * d if op == "%" else known.const
        return out

    def place(self, b: Binding, acc: tuple, c) -> str:
        """`%A[subscripts] : memref<...>` of an access (first pass: recorded only)."""
        kind, value = acc
        if self.collect:
            self.plan.indexed.add(b.key)
        if kind == "flat":
            if self.collect:
                self.accesses.setdefault(b.key, []).append(
                    layout.Access(value, dict(self.ranges), c, c_text(c), guarded=self.guards > 0,
                                  facts=self.fixed_sizes(), guards=tuple(self.guard_facts)))
                return f"{b.ssa}[] : memref<{b.type}>"
            lay = self.plan.layouts[b.key] if b.flat else self.fixed_layout(b)
            if lay.opaque:
                value = self.opaque(value, c)
            subs = layout.indices(layout.Access(value, dict(self.ranges), c, facts=self.fixed_sizes(),
                                                guards=tuple(self.guard_facts)), lay,
                                  {**self.values, **self.expand})
        else:
            if self.collect:
                if b.shape and b.shape[0] is None:  # rows reached: the extent of dimension 0
                    self.accesses.setdefault(b.key, []).append(
                        layout.Access(None, dict(self.ranges), c, c_text(c), value[0]))
                return f"{b.ssa}[] : memref<{b.type}>"
            subs = value
        try:
            lowered = [self.lower(e, c) for e in subs]
        except NotAffine as err:
            raise Refuse(c, f"subscript of '{c_text(c)}' is not affine: {err.reason}") from None
        return f"{b.ssa}[{', '.join(inline(e) for e in lowered)}] : {self.base_type(b)}"

    def opaque(self, flat: Poly, c) -> Poly:
        """`flat` with each loop index's coefficient that is a sum of sizes (`y * (w - k + 1)`:
        the rows of a convolution's output) as one index symbol, so that it can be a stride."""
        parts = split_dims(flat)
        if parts is None:
            return flat
        coeffs: dict = {}
        for coeff, dim in parts[0]:
            coeffs[dim] = coeffs.get(dim, Poly()) + coeff
        out, rest = Poly(), parts[1]
        for dim, coeff in coeffs.items():
            if len(coeff.terms) + bool(coeff.const) <= 1:
                out = out + coeff * Poly.var(*dim)
                continue
            g = coeff.content()
            lead = next(iter(sorted(coeff.terms.items())))[1]
            g = g if lead > 0 else -g
            base = Poly({m: v // g for m, v in coeff.terms.items()}, coeff.const // g)
            sym = self.derived_symbol(c, base, "poly", 1)
            known = base.subst(self.values) if self.values else base
            if known.is_const:
                self.values[next(iter(sym.symbols()))] = known.const
            self.expand[next(iter(sym.symbols()))] = base
            out = out + sym.scale(g) * Poly.var(*dim)
            m0, c0 = next(iter(sorted(base.terms.items())))
            r = rest.terms.get(m0, 0) // c0 if rest.terms.get(m0, 0) % c0 == 0 else 0
            if r and all(rest.terms.get(m, 0) == v * r for m, v in base.terms.items()):
                rest = rest - base.scale(r) + sym.scale(r)
        return out + rest

    def fixed_layout(self, b: Binding) -> layout.Layout:
        lay = self.plan.layouts.get(b.key)
        if lay is None:
            raise Refuse(self.func, f"internal: no layout for '{b.name}'")
        return lay

    def load(self, c) -> tuple[str, str]:
        b, acc = self.element(c, lookup=True)
        if acc[0] == "lookup":
            return self.lookup(b, acc[1], c), b.type
        if acc[0] == "flat lookup":
            return self.flat_lookup(b, *acc[1], c), b.type
        return self.op(f"affine.load {self.place(b, acc, c)}", c), b.type

    def flat_lookup(self, b: Binding, offset: Poly, index, c) -> str:
        """`lut[in[i]]` of a pointer parameter declared with its extent (`const uchar
        lut[256]`) that the function reads as one dimension: memref.load at the offset plus
        the data, converted to an index."""
        index = self.forwarded_read(index)
        computed = self.computed(index)
        if self.collect:  # (the index's own reads recorded; a computed one's range, for the extent)
            self.plan.indexed.add(b.key)
            self.plan.looked_up.add(b.key)
            self._data_index(index)
            if computed and b.flat and b.shape[0] is None:  # the highest element it reads
                self.accesses.setdefault(b.key, []).append(layout.Access(
                    offset + self.computed_range(index)[1], {}, c, c_text(c), guarded=self.guards > 0))
            return self.op(f"memref.load {b.ssa}[] : memref<{b.type}>", c)
        lay = self.plan.layouts[b.key] if b.flat else None
        extent = b.shape[0] if b.shape else None
        if computed and extent is None and lay is not None and len(lay.strides) == 1:
            extent = lay.extents[0]  # what the index reaches
        if computed and (lay is None or len(lay.strides) != 1 or extent is None):
            raise Refuse(c, f"'{c_text(c)}' reads '{b.name}' at an index computed by integer division: "
                            f"its reach and that of the other accesses of '{b.name}' make no one extent "
                            f"(only a one-dimensional array whose highest element read is known is read so)")
        if lay is None or len(lay.strides) != 1 or extent is None:
            try:  # the subscript's own reason (a local changed under a condition ...), first
                self.subscript(index, c)
            except Refuse as e:
                raise Refuse(c, f"{e.message}; read as a table lookup, '{b.name}' would need to be a "
                                f"one-dimensional array of declared extent (as in 'const T lut[256]')") from None
            raise Refuse(c, f"'{c_text(c)}' reads '{b.name}' at a data-dependent index: a table must be "
                            f"a one-dimensional array of declared extent (as in 'const T lut[256]')")
        k = self._data_index(index)
        if not (offset.is_const and offset.const == 0):
            k = self.op(f"arith.addi {self.value_of_aff(offset, c)}, {k} : index", c)
        self._index_range(index, extent, b, c, offset)
        return self.op(f"memref.load {b.ssa}[{k}] : {self.base_type(b)}", c)
    def lookup(self, b: Binding, subs: list, c) -> str:
        """`lut[in[i]]`, `emb[tok[i]][j]`: a declared array read at subscripts some of which
        read data, as memref.load at index values (the data converted as C's signedness
        says). Each extent must be declared; the subscript's range is the C's to keep
        (reading outside is undefined behaviour in C): where its type does not keep it
        within the extent, the translation says so in synth.assumptions."""
        if any(n is None for n in b.shape):
            raise Refuse(c, f"'{c_text(c)}' reads '{b.name}' at a data-dependent index: its extents "
                            f"must be declared (as in 'const T lut[256]')")
        idx = []
        for ix, n in zip(subs, b.shape):
            ix = self.forwarded_read(ix)
            if not self._reads_memory(ix):
                idx.append(self.value_of_aff(self.subscript(ix, c), c))
                continue
            idx.append(self._data_index(ix))
            self._index_range(ix, n, b, c, Poly())
        if self.collect:
            self.plan.indexed.add(b.key)
            self.plan.looked_up.add(b.key)
        return self.op(f"memref.load {b.ssa}[{', '.join(idx)}] : {self.base_type(b)}", c)

    def _data_index(self, ix) -> str:
        """An index value of a subscript read from data: the integer as C's promotions make
        it (char and short to int, zero- or sign-extended), then converted to an index."""
        v, t = self.value(ix)
        if not is_int(t):
            raise Refuse(ix, f"array subscript '{c_text(ix)}' is not an integer")
        if WIDTH[t] < 32:
            v = self.op(f"arith.{'extui' if unsigned(t) else 'extsi'} {v} : {mlir(t)} to i32", ix)
            t = "i32"
        cast = "arith.index_castui" if unsigned(t) else "arith.index_cast"
        return self.op(f"{cast} {v} : {mlir(t)} to index", ix)

    def _index_range(self, ix, n, b: Binding, c, offset: Poly) -> None:
        """Records the assumption that a subscript read from data is within the extent n,
        unless its C type's values all are (an unsigned char into 256 entries) or it is an
        index computed from loop indices whose range is inside (`y * sh / dh`)."""
        if self.computed(ix) and isinstance(n, Poly):
            lo, hi = self.computed_range(ix)
            if nonnegative(offset + lo) and nonnegative(n.plus(-1) - (offset + hi)):
                return
        inner = strip_casts(ix)
        width = {TK.UCHAR: 8, TK.CHAR_U: 8, TK.USHORT: 16}.get(inner.type.get_canonical().kind)
        extent = n.const if isinstance(n, Poly) and n.is_const else (n if isinstance(n, int) else None)
        if width is not None and extent is not None and extent >= 1 << width:
            return
        self.assume(f"0 <= {c_text(ix)} < {layout.render(n, self.symbol_names()) if isinstance(n, Poly) else n} "
                    f"(the subscript of '{c_text(c)}' reads data; C reads outside '{b.name}' only "
                    f"with undefined behaviour)")

    def lvalue(self, c):
        """(load thunk, store function, element type) of an assignable expression."""
        s = strip_casts(c)
        if s.kind == CK.DECL_REF_EXPR:
            b = self.binding(s)
            if b is None:
                raise Refuse(s, f"cannot assign to '{s.spelling}'")
            if b.kind == "loopvar":
                raise Refuse(s, f"loop index '{b.name}' is modified outside its 'for' header "
                                 f"(not static control)")
            if b.kind != "mem":
                raise Refuse(s, f"cannot assign to '{b.name}'")
            where, t = f"{b.ssa}[] : memref<{mlir(b.type)}>", b.type
        else:
            b, acc = self.element(s)
            where, t = self.place(b, acc, s), b.type
            self.written.add(b.key)

        def load():
            return self.op(f"affine.load {where}", c)

        local = s.kind == CK.DECL_REF_EXPR and self.free_locals and self.pred == self.exit_pred

        def store(v):
            if self.pred is not None and not local:
                v = self.op(f"arith.select {self.pred}, {v}, {load()} : {mlir(t)}", c)
            self.emit(f"affine.store {v}, {where}", c)

        return load, store, t
