"""First layer of the function translator: per-function state (the scope of C declarations,
the entry prologue, the body being emitted, what the pass before found), SSA names, ops
and constants with their C locations, the types of C types and conversions between them
(C's rules: synth.frontend.c.scalars), bindings, and integer parameters as affine symbols
(or as the constants `--size` gives them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from clang.cindex import CursorKind as CK
from clang.cindex import TypeKind as TK

from synth.frontend.c.libclang import same_file
from synth.frontend.c.model import float_literal, Refuse, c_text
from synth.frontend.c.scalars import FLOATS, SCALARS, WIDTH, is_int, mlir, unsigned, wrap

_LONG_DOUBLE = ("C's long double is an extended precision (80-bit x87 on x86-64, 128-bit "
                "on others) that has no tensor element type in the targets (linalg, "
                "stablehlo: f64 at most); declare it double to translate it in f64")


@dataclass
class Plan:
    """What earlier passes over the function found: the layouts of its arrays (by their
    stable key) and the integer locals to keep in memory."""

    layouts: dict = field(default_factory=dict)
    demoted: dict = field(default_factory=dict)  # decl hash -> why it is data
    c_shapes: dict = field(default_factory=dict)  # array key -> its extents in C ("?": unknown)
    indexed: set = field(default_factory=set)  # keys of the arrays read or written
    looked_up: set = field(default_factory=set)  # ... read at computed or data indices (memref.load)
    retyped: dict = field(default_factory=dict)  # key of a `char *` parameter -> the type read
    as_bytes: dict = field(default_factory=dict)
    derived: dict = field(default_factory=dict)  # the first pass's symbols derived from sizes (`(is1) / 8`)  # key of a `char *` parameter -> a read as char


class Emitter:
    """State and emission of one function's translation; types, conversions, bindings."""

    def __init__(self, path: str, func, *, sizes: dict | None = None, plan: Plan | None = None,
                 collect: bool = False):
        self.path = path
        self.func = func
        self.sizes = dict(sizes or {})  # C name of an integer parameter -> its value
        self.plan = plan or Plan()
        self.collect = collect  # the first pass: accesses are recorded, not emitted
        self.prologue: list[str] = []
        self.body: list[str] = []
        self.indent = 2
        self.counter = 0
        self.keys = 0  # stable keys of arrays (the same in every pass)
        self.consts: dict = {}
        self.symbols: dict = {}  # monomial of parameters -> index SSA
        self.params: dict = {}  # "%argN" -> binding of an integer parameter
        self.derived: dict = {}  # key -> (poly, "/" "%" or "poly", divisor, cursor): `n / 2` at the entry
        self.c_requires: dict = {}  # array key -> C conditions the drop-in checks (`(is1) % 8 == 0`)
        self.expand: dict = {}  # symbol var of a "poly" derived symbol -> its polynomial
        self.values: dict = {}  # ("s", "%argN") -> the value --size gives it
        self.env: dict = {}  # decl hash -> _Binding
        self.ivals: dict = {}  # key of an "index" / "pointer" binding -> _Poly / _View / None
        self.ranges: dict = {}  # dim var -> (lowest, highest) over symbols, inside its loop
        self.facts: list = []  # (poly over symbols, is_equality): affine.if conditions around
        self.guard_facts: list = []  # (poly, is_equality): every constraint of the affine.ifs around
        self.accesses: dict = {}  # array key -> [layout.Access]
        self.assumptions: list[str] = []
        self.loop_vars: set = set()
        self.open_loops: dict = {}  # decl hash of a loop index -> its `for`, while translated
        self.after_notes: dict = {}  # loop index -> what reading its value after the loop assumes
        self.assigned: set = set()
        self.pred = None  # i1 SSA: the data condition the statements run under (if-conversion)
        self.guards = 0  # how many `if`s (affine or on data) enclose the statement read now
        self.exit_pred = None  # the predicate of statements after which the function ends
        self.free_locals = False  # under `exit_pred` in the function's last path: locals as they are
        self.bases: list = []  # every array ("array" bindings), in declaration order
        self.written: set = set()  # keys of the arrays stored to
        self.not_index: set = set()  # integer locals assigned something that is not affine
        self.inlining: set = set()  # functions being inlined (no recursion)
        self.dim_names: dict = {}  # dim var -> the C name of its loop index (for messages)
        self.merged: dict = {}  # key -> why its value is unknown after a branch (`merge`)

    # --- emission -----------------------------------------------------------------------

    def loc(self, c) -> str:
        loc = c.location
        fname = self.path
        if loc.file is not None and not same_file(loc.file.name, self.path):
            fname = loc.file.name
        esc = fname.replace("\\", "\\\\").replace('"', '\\"')
        return f'loc("{esc}":{loc.line}:{loc.column})'

    def where(self, c) -> str:
        loc = c.location
        if loc.file is None:
            return self.path
        fname = self.path if same_file(loc.file.name, self.path) else loc.file.name
        return f"{fname}:{loc.line}:{loc.column}"

    def fresh(self, stem: str = "v") -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def emit(self, text: str, c) -> None:
        self.body.append("  " * self.indent + text + " " + self.loc(c))

    def op(self, text: str, c, stem: str = "v") -> str:
        r = self.fresh(stem)
        self.emit(f"{r} = {text}", c)
        return r

    def const(self, value, t: str, c) -> str:
        if t in FLOATS:
            lit = float_literal(float(value), t)
        elif t == "i1":
            lit = "true" if value else "false"
        else:
            lit = str(wrap(int(value), t))
        key = (lit, mlir(t))
        if key not in self.consts:
            r = self.fresh("c")
            suffix = "" if t == "i1" else f" : {mlir(t)}"
            self.prologue.append(f"    {r} = arith.constant {lit}{suffix} {self.loc(c)}")
            self.consts[key] = r
        return self.consts[key]

    def branches(self, c, *runs) -> None:
        """Run each of `runs` (the branches of an `if`) from the integer locals' and
        pointers' values here; after them, each keeps its value where every branch leaves
        it the same, and is unknown otherwise (a later read of it is refused, or demotes
        an integer local to memory: it is data)."""
        entry = dict(self.ivals)
        outs = []
        for run in runs:
            self.ivals.clear()
            self.ivals.update(entry)
            run()
            outs.append(dict(self.ivals))
        self.ivals.clear()
        for key in set().union(*outs):
            vals = [o.get(key) for o in outs]
            same = all(v == vals[0] for v in vals)
            self.ivals[key] = vals[0] if same else None
            if not same:
                self.merged[key] = (f"it changes under the condition at line {c.location.line}, "
                                    f"not the same way in both branches")

    def assume(self, text: str) -> None:
        if text not in self.assumptions:
            self.assumptions.append(text)

    def note_key(self) -> int:
        self.keys += 1
        return self.keys

    # --- types --------------------------------------------------------------------------

    def scalar_type(self, t, c, what: str) -> str:
        canon = t.get_canonical()
        if canon.kind in SCALARS:
            return SCALARS[canon.kind]
        if canon.kind == TK.POINTER:
            raise Refuse(c, f"{what} has pointer type '{t.spelling}' where a number is expected")
        if canon.kind == TK.RECORD:
            raise Refuse(c, f"{what} has struct type '{t.spelling}': structs are not supported")
        if canon.kind == TK.LONGDOUBLE:
            raise Refuse(c, f"{what}: type '{t.spelling}' is not supported: {_LONG_DOUBLE}")
        raise Refuse(c, f"{what}: type '{t.spelling}' is not supported (only the integer types, "
                         f"char ... long, signed or unsigned, float and double)")

    @staticmethod
    def memref(shape, elem) -> str:
        return "memref<" + "".join(f"{'?' if d is None else d}x" for d in shape) + mlir(elem) + ">"

    def ctype(self, c) -> str:
        """The type of an expression's C type."""
        canon = c.type.get_canonical()
        if canon.kind in SCALARS:
            return SCALARS[canon.kind]
        if canon.kind == TK.BOOL:
            return "i32"
        if canon.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY):
            raise Refuse(c, f"pointer value '{c_text(c)}' used as a number")
        why = f": {_LONG_DOUBLE}" if canon.kind == TK.LONGDOUBLE else ""
        raise Refuse(c, f"expression '{c_text(c)}' has unsupported type '{c.type.spelling}'{why}")

    def convert(self, v: str, frm: str, to: str, c) -> str:
        """C's conversion of a value of type `frm` to `to`."""
        if frm == to or (is_int(frm) and is_int(to) and WIDTH[frm] == WIDTH[to]):
            return v
        if frm == "i1":
            if to in FLOATS:
                return self.op(f"arith.uitofp {v} : i1 to {to}", c)
            return self.op(f"arith.extui {v} : i1 to {mlir(to)}", c)
        if to == "i1":
            if frm in FLOATS:
                zero = self.const(0.0, frm, c)
                return self.op(f"arith.cmpf une, {v}, {zero} : {frm}", c)
            if frm == "index":
                v, frm = self.op(f"arith.index_cast {v} : index to i64", c), "i64"
            zero = self.const(0, frm, c)
            return self.op(f"arith.cmpi ne, {v}, {zero} : {mlir(frm)}", c)
        if frm == "index":
            if to in FLOATS:
                v = self.op(f"arith.index_cast {v} : index to i64", c)
                return self.op(f"arith.sitofp {v} : i64 to {to}", c)
            return self.op(f"arith.index_cast {v} : index to {mlir(to)}", c)
        if to == "index":
            if frm in FLOATS:
                v, frm = self.op(f"arith.fptosi {v} : {frm} to i64", c), "i64"
            cast = "arith.index_castui" if unsigned(frm) else "arith.index_cast"
            return self.op(f"{cast} {v} : {mlir(frm)} to index", c)
        if frm in FLOATS and to in FLOATS:
            opname = "arith.extf" if WIDTH[to] > WIDTH[frm] else "arith.truncf"
            return self.op(f"{opname} {v} : {frm} to {to}", c)
        if frm in FLOATS:
            opname = "arith.fptoui" if unsigned(to) else "arith.fptosi"
            return self.op(f"{opname} {v} : {frm} to {mlir(to)}", c)
        if to in FLOATS:
            opname = "arith.uitofp" if unsigned(frm) else "arith.sitofp"
            return self.op(f"{opname} {v} : {mlir(frm)} to {to}", c)
        if WIDTH[to] > WIDTH[frm]:
            opname = "arith.extui" if unsigned(frm) else "arith.extsi"
        else:
            opname = "arith.trunci"
        return self.op(f"{opname} {v} : {mlir(frm)} to {mlir(to)}", c)

    # --- bindings -----------------------------------------------------------------------

    def binding(self, ref):
        decl = ref.referenced
        if decl is None:
            raise Refuse(ref, f"cannot resolve '{ref.spelling}'")
        b = self.env.get(decl.hash)
        if b is None:
            if decl.kind == CK.ENUM_CONSTANT_DECL:
                return None
            if decl.kind == CK.VAR_DECL:
                raise Refuse(ref, f"global variable '{ref.spelling}' is not supported (pass it as "
                                   f"a parameter, or make it a macro)")
            if decl.kind == CK.FUNCTION_DECL:
                raise Refuse(ref, f"function '{ref.spelling}' used as a value")
            raise Refuse(ref, f"unsupported reference to '{ref.spelling}'")
        return b

    def name_iteration(self, iv: str, form: str, start) -> None:
        """Name the counter of a loop whose C index is not its dim (a loop run down, or
        counted in steps) for messages: `form` with `{}` for the index's start, in C
        (`(output_h - output_rows)`), not the dim's own name."""
        from synth.frontend.c.layout import render

        self.dim_names[("d", iv)] = form.format(render(start, self.symbol_names()))

    def symbol_names(self) -> dict:
        """Symbol var -> its C name (for messages and assumptions)."""
        from synth.frontend.c.layout import render

        names = {("s", ssa): b.name for ssa, b in self.params.items()}
        names.update(self.dim_names)
        for key, (x, op, d, _) in self.derived.items():
            names[("s", key)] = f"({render(x, names)})" + (f" {op} {d}" if op != "poly" else "")
        return names
