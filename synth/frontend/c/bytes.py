"""Byte views: pointers to bytes (`char *`, `unsigned char *`) that a function reads as
numbers of another type through casts. Rows reached through byte offsets of a typed array
(ggml, OpenCV: `(float *)((char *)dst + i1 * nb1)`) are offsets in its elements; a
`char *` parameter read only as one type (NumPy's loops: `*(double *)ip1`, walked by
`ip1 += is1` bytes) is *retyped*: its memref holds that type, the pointer values into it
count bytes (`View.unit`: the size of what a pointer points to), and each access divides
its byte offset into elements. A byte offset a size multiplies that is not known to be a
multiple of the element size is taken to be one, which synth.assumptions says; a constant
one is refused, and so is one byte array read as two types or as bytes and numbers.
A mixin of the access layer (synth.frontend.c.access)."""

from __future__ import annotations

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c import layout
from synth.frontend.c.affine import AffineTranslator
from synth.frontend.c.libclang import binary_operator
from synth.frontend.c.model import Binding, c_text, expr_children, Refuse, strip_casts, View
from synth.frontend.c.poly import Poly, split_dims
from synth.frontend.c.scalars import SCALARS, WIDTH

BYTES = ("i8", "u8")  # char, signed and unsigned: the bytes of an object

ARRAYS = (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY)


class ByteViews(AffineTranslator):
    """Pointer casts between bytes and numbers (for AccessTranslator: `pval`, `pointer_dims`)."""

    def _from_bytes(self, s, inner) -> View:
        """`(float *)((char *)src + i1 * nb1)` (ggml, OpenCV: rows `nb1` bytes apart): the
        byte offset in elements of the array the bytes belong to. A part of it that is not
        a multiple of the element size in C terms (`nb1`) is taken to be one, which
        synth.assumptions says."""
        v, off = self._bytes(inner)
        t = self._elem_kind(s.type)
        if v.in_bytes:  # `(float *)(op + i * os)` of `char *op = (char *)out`: back to its elements
            if v.base.type != t or self.pointer_dims(s.type, s):
                raise Refuse(s, f"pointer cast '{c_text(s)}' reads the bytes of "
                                 f"'{v.base.name}' ({v.base.type}) as another type")
            return View(v.base, self.elements(v.offset + off, t, v.base, s), ())
        if self._retypable(v) and not self.pointer_dims(s.type, s):
            self._retype(v.base, t, s)
        if v.base.retyped:  # the bytes of a `char *` parameter: the offset stays in bytes
            return self.retarget(View(v.base, v.offset + off, (), v.unit), s.type, s)
        if v.base.type != t or v.dims or self.pointer_dims(s.type, s):
            raise Refuse(s, f"pointer cast '{c_text(s)}' reads the bytes of "
                             f"'{v.base.name}' ({v.base.type}) as another type")
        return View(v.base, v.offset + self.elements(off, t, v.base, s), ())

    def elements(self, off: Poly, t: str, base: Binding, s) -> Poly:
        """A byte offset `off` into `base` in elements of type `t`: each part that a size
        multiplies and is not known to be a multiple of the element size (`i * nb1`) is
        taken to be one (synth.assumptions says so), a constant that is not is refused."""
        size = WIDTH[t] // 8
        parts = split_dims(off)
        if parts is None:
            raise Refuse(s, f"byte offset in '{c_text(s)}' multiplies loop indices")
        groups = {}
        for coeff, dim in parts[0]:
            groups[dim] = groups.get(dim, Poly()) + coeff
        elems = Poly()
        names = self.symbol_names()
        for dim, coeff in [*groups.items(), (None, parts[1])]:
            coeff = coeff.subst(self.values) if self.values else coeff
            if coeff.is_const and coeff.const % size:
                raise Refuse(s, f"'{c_text(s)}' moves '{base.name}' by {coeff.const} bytes: not "
                                 f"a multiple of the size of its {t} elements ({size} bytes)")
            if coeff.content() % size:
                self.assume(f"{layout.render(coeff, names)} is a multiple of {size} (the bytes "
                            f"'{c_text(s)}' reads as elements of '{base.name}')")
                need = f"({layout.render(coeff, names)}) % {size} == 0"  # the drop-in's check
                if need not in self.c_requires.setdefault(base.key, []):
                    self.c_requires[base.key].append(need)
                q = self.derived_symbol(s, coeff, "/", size)
            else:
                q = Poly({m: c // size for m, c in coeff.terms.items()}, coeff.const // size)
            elems = elems + (q if dim is None else q * Poly.var(*dim))
        return elems

    @staticmethod
    def _retypable(v: View) -> bool:
        """A `char *` parameter (NumPy's `char *ip1`), whose bytes may be read as one type."""
        b = v.base
        return (not b.retyped and b.type in BYTES and b.pointer and b.flat and b.param_index is not None
                and not v.dims)

    def _retype(self, b: Binding, t: str, s) -> None:
        """`b`, a `char *` parameter, is read as elements of `t` (`*(double *)ip1`): its
        memref holds `t`. Reading it as another type, or as bytes, is refused."""
        if b.key in self.plan.as_bytes:
            raise Refuse(s, f"'{c_text(s)}' reads the bytes of '{b.name}' as {t}, and "
                            f"'{self.plan.as_bytes[b.key]}' reads them as bytes: a byte array is read "
                            f"as elements of one type only")
        b.type, b.retyped = t, True
        self.plan.retyped[b.key] = t

    def retarget(self, v: View, ctype, c) -> View:
        """`v` as a pointer of C type `ctype` (a cast, a pointer local's declaration): into a
        retyped base, its unit is the size of what `ctype` points to (1 for a `char *`);
        elsewhere what it points to is `ctype`'s rows."""
        if not v.base.retyped:
            return View(v.base, v.offset, self.pointer_dims(ctype, c), v.unit, v.in_bytes)
        t = self._elem_kind(ctype)
        if self.pointer_dims(ctype, c):
            raise Refuse(c, f"'{c_text(c)}' reads the bytes of '{v.base.name}' as rows: only as "
                            f"single {v.base.type} elements")
        if t in BYTES:
            return View(v.base, v.offset, (), 1)
        if t != v.base.type:
            raise Refuse(c, f"'{c_text(c)}' reads the bytes of '{v.base.name}' as {t}, and the function "
                            f"reads them as {v.base.type} elsewhere: a byte array is read as elements of "
                            f"one type only")
        return View(v.base, v.offset, (), WIDTH[t] // 8)

    def _bytes(self, c) -> tuple:
        """(pointer to the elements, byte offset) of a byte pointer: `(char *) p`, `b + n`."""
        s = strip_casts(c)
        if s.kind == CK.CSTYLE_CAST_EXPR:
            inner = expr_children(s)[-1]
            if self._elem_kind(inner.type) in BYTES:
                return self._bytes(inner)
            return self.pval(inner), Poly()
        if s.kind == CK.BINARY_OPERATOR and binary_operator(s) in ("+", "-"):
            a, b = expr_children(s)
            ptr, num = (a, b) if a.type.get_canonical().kind in (TK.POINTER, *ARRAYS) else (b, a)
            v, off = self._bytes(ptr)
            d = self.subscript(num, s)
            return v, off + (d if binary_operator(s) == "+" else d.scale(-1))
        return self.pval(s), Poly()

    @staticmethod
    def _elem_kind(t):
        cur = t.get_canonical()
        while cur.kind in (TK.POINTER, *ARRAYS):
            cur = cur.get_pointee().get_canonical() if cur.kind == TK.POINTER else \
                cur.element_type.get_canonical()
        return SCALARS.get(cur.kind)

    def _typed(self, v: View, k: Poly, s) -> Poly:
        """The element offset of `v[k]` into a retyped base (`*(double *)op1`); a `char *`
        parameter read as bytes (`ip[k]`) is noted, so that reading it as another type
        is refused."""
        if not v.base.retyped:
            self.plan.as_bytes.setdefault(v.base.key, c_text(s))
            return v.offset + k
        if v.unit != WIDTH[v.base.type] // 8:
            raise Refuse(s, f"'{c_text(s)}' reads the bytes of '{v.base.name}' as bytes, and the function "
                            f"reads them as {v.base.type} elsewhere: a byte array is read as elements of "
                            f"one type only")
        return self.elements(v.offset + k.scale(v.unit), v.base.type, v.base, s)

    def view_conditions(self, b: Binding) -> tuple[list, list]:
        """(strides in C, conditions in C) of a base read as a view at run-time strides
        (layout.strided_view), for its synth.c_strides and synth.c_shape_requires: each
        stride at least 1 (a step of 0 broadcasts: no view), and, where the function writes
        it, distinct subscripts at distinct elements (2-d: one stride at least the other
        times its dim's extent); those are in synth.assumptions too. ([], []) otherwise."""
        lay = self.plan.layouts.get(b.key) if b.flat else None
        if lay is None or not lay.view:
            return [], []
        names = self.symbol_names()
        st = [layout.render(s, names) for s in lay.strides]
        ex = [layout.render(e, names) for e in lay.extents]
        needs = [f"({s}) >= 1" for s, p in zip(st, lay.strides) if not p.is_const]
        if b.key in self.written:  # nested one way or the other: each stride at least the
            # next one's times its extent (C's row-major order, or column-major)
            def nested(order):
                return " && ".join(f"({st[j]}) >= ({ex[k]}) * ({st[k]})" for j, k in zip(order, order[1:]))
            dims = list(range(len(st)))
            needs.append(f"({nested(dims)}) || ({nested(dims[::-1])})")
        self.assume(f"'{b.name}' is read as a view [{']['.join(ex)}] at strides {', '.join(st)} elements "
                    f"(the caller's), each at least 1" + (", its elements distinct (" + needs[-1] + ")"
                                                         if b.key in self.written else ""))
        return st, needs
