"""Printing a kernel as MLIR: `Emitter` turns the tree into one module (affine maps and
sets first, then `func.func @fuzz_<k>` with its constants, size casts and local buffers
at the entry), `corrupt` makes the deliberate syntax errors, `emit` is the whole step;
`size_arg` / `size_values` name and value the i32 size arguments, and `parses` asks
MLIR whether a text parses and verifies."""

from __future__ import annotations

import re

from .kernel import (Access, Accumulate, Array, Binary, Call, Const, Dim, For, If, IvValue,
                     Kernel, Load, ReturnArg, Scalar, ScalarReduce, Select, Store, Unary,
                     Undef, Undefined, used_arrays, used_dims, used_scalars)

FLOAT_OPS = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf", "div": "arith.divf",
             "max": "arith.maximumf", "min": "arith.minimumf"}
INT_OPS = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "max": "arith.maxsi",
           "min": "arith.minsi"}
FLOAT_PRED = {"gt": "ogt", "lt": "olt", "ge": "oge", "le": "ole"}
INT_PRED = {"gt": "sgt", "lt": "slt", "ge": "sge", "le": "sle"}
NEG_INF = {"f64": "0xFFF0000000000000", "f32": "0xFF800000"}
POS_INF = {"f64": "0x7FF0000000000000", "f32": "0x7F800000"}


class Emitter:
    """Prints a Kernel as an MLIR module (maps and sets first, then the function)."""

    def __init__(self, kernel: Kernel):
        self.kn = kernel
        self.elem = kernel.elem
        self.lines: list[str] = []
        self.head: list[str] = []  # constants, index casts, allocations (function entry)
        self.aliases: dict[str, str] = {}  # affine_map / affine_set text -> #alias
        self.consts: dict[tuple, str] = {}
        self.n = 0
        self.indent = 1
        self.size_index: dict[str, str] = {}  # dim name -> %index value of its size argument
        self.results: list[tuple[str, str]] = []  # (value, type) returned
        self.decls: list[str] = []

    # names -------------------------------------------------------------------------------

    def fresh(self) -> str:
        self.n += 1
        return f"%{self.n - 1}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def alias(self, text: str, kind: str) -> str:
        """`#map`, `#map1`, ... / `#set`, ... for an affine map or set, one per distinct text."""
        if text not in self.aliases:
            count = sum(1 for t in self.aliases if t.startswith(f"affine_{kind}"))
            self.aliases[text] = f"#{kind}{count or ''}"
        return self.aliases[text]

    def const(self, value, elem: str | None = None) -> str:
        """An `arith.constant` at the function entry (one per value and type)."""
        elem = elem or self.elem
        key = (repr(value), elem)
        if key not in self.consts:
            if elem == "index":
                name, lit = f"%c{value}", str(value)
            elif elem == "i32":
                name, lit = f"%c{int(value)}_i32".replace("-", "m"), str(int(value))
            else:
                lit = (POS_INF[elem] if value == float("inf") else NEG_INF[elem] if value == float("-inf")
                       else f"{float(value):.6e}")
                count = sum(1 for k in self.consts if k[1] == elem)
                name = f"%cst{'' if elem == 'f64' else '_' + elem}{'' if not count else '_' + str(count - 1)}"
            self.consts[key] = name
            self.head.append(f"{name} = arith.constant {lit} : {elem}")
        return self.consts[key]

    def memref_type(self, a: Array) -> str:
        shape = "x".join(str(self.kn.dim(d).value * f) for d, f in a.axes)
        return f"memref<{shape}x{self.elem}>" if shape else f"memref<{self.elem}>"

    # module ------------------------------------------------------------------------------

    def module(self) -> str:
        kn = self.kn
        used = used_arrays(kn)
        params = [d for d in kn.dims if d.param and d.name in used_dims(kn)]
        for d in params:
            idx = self.fresh()
            self.size_index[d.name] = idx
            self.head.append(f"{idx} = arith.index_cast %{size_arg(d)} : i32 to index")
        for a in kn.arrays:
            if a.local and a.name in used:
                op = "memref.alloca" if not a.axes else "memref.alloc"
                self.head.append(f"%{a.name} = {op}() : {self.memref_type(a)}")
        self.block(kn.body, {})
        for a in kn.arrays:  # a local array is returned
            if a.local and a.axes and a.name in used:
                self.results.append((f"%{a.name}", self.memref_type(a)))
        args = [f"%{size_arg(d)}: i32" for d in params]
        args += [f"%{a.name}: {self.memref_type(a)}" for a in kn.arrays if not a.local and a.name in used]
        args += [f"%{s}: {self.elem}" for s in kn.scalars if s in used_scalars(kn)]
        ret = ""
        if self.results:
            types = [t for _, t in self.results]
            ret = f" -> {types[0]}" if len(types) == 1 else f" -> ({', '.join(types)})"
        out = [f"{a} = {t}" for t, a in sorted(self.aliases.items(), key=lambda kv: kv[1])]
        out += self.decls
        out.append(f"func.func @{kn.name}({', '.join(args)}){ret} {{")
        out += ["  " + h for h in self.head]
        out += self.lines
        if self.results:
            out.append(f"  return {', '.join(v for v, _ in self.results)} : {', '.join(t for _, t in self.results)}")
        else:
            out.append("  return")
        out.append("}")
        text = "\n".join(out) + "\n"
        return corrupt(text, kn.malformed) if kn.malformed and kn.malformed.startswith("syntax") else text

    def block(self, body: list, env: dict) -> None:
        for node in body:
            getattr(self, f"node_{type(node).__name__}")(node, env)

    # statements --------------------------------------------------------------------------

    def bounds(self, node: For) -> tuple[str, str]:
        d = self.kn.dim(node.dim)
        size = self.size_index.get(d.name)
        lower = str(node.lo)
        if size is None:
            upper = str(d.value - node.hi)
        elif node.hi:
            upper = f"{self.alias(f'affine_map<()[s0] -> (s0 - {node.hi})>', 'map')}()[{size}]"
        else:
            upper = size
        if node.tri:
            kind, outer = node.tri
            if kind == "upper":
                upper = f"{self.alias('affine_map<(d0) -> (d0 + 1)>', 'map')}(%{outer})"
            else:
                lower = f"{self.alias('affine_map<(d0) -> (d0)>', 'map')}(%{outer})"
        return lower, upper

    def node_For(self, node: For, env: dict) -> None:
        lower, upper = self.bounds(node)
        if node.scf:
            lo = self.const(node.lo, "index")
            d = self.kn.dim(node.dim)
            hi = self.size_index.get(d.name) or self.const(d.value - node.hi, "index")
            self.emit(f"scf.for %{node.iv} = {lo} to {hi} step {self.const(1, 'index')} {{")
        else:
            step = f" step {node.step}" if node.step != 1 else ""
            self.emit(f"affine.for %{node.iv} = {lower} to {upper}{step} {{")
        self.indent += 1
        self.block(node.body, env)
        self.indent -= 1
        self.emit("}")

    def node_ReturnArg(self, node: ReturnArg, env: dict) -> None:
        self.results.append((f"%{node.array.name}", self.memref_type(node.array)))

    def node_If(self, node: If, env: dict) -> None:
        cond = "d0 - d1 >= 0" if not node.strict else f"d0 - d1 - {node.strict} >= 0"
        s = self.alias(f"affine_set<(d0, d1) : ({cond})>", "set")
        self.emit(f"affine.if {s}(%{node.a}, %{node.b}) {{")
        self.indent += 1
        self.block(node.then, env)
        self.indent -= 1
        if node.orelse:
            self.emit("} else {")
            self.indent += 1
            self.block(node.orelse, env)
            self.indent -= 1
        self.emit("}")

    def node_Store(self, node: Store, env: dict) -> None:
        value = self.expr(node.expr, env)
        if node.reduce:
            old = self.load(node.target)
            value = self.binary(node.reduce, old, value)
        self.store(value, node.target)

    def node_ScalarReduce(self, node: ScalarReduce, env: dict) -> None:
        t = self.elem
        init = self.const(node.init)
        results = []
        acc = init
        for depth, lp in enumerate(node.loops):
            r, a = self.fresh(), f"%acc{'' if depth == 0 else depth}"
            lower, upper = self.bounds(lp)
            self.emit(f"{r} = affine.for %{lp.iv} = {lower} to {upper} iter_args({a} = {acc}) -> ({t}) {{")
            self.indent += 1
            results.append(r)
            acc = a
        value = self.binary(node.op, acc, self.expr(node.expr, env))
        for r in reversed(results):
            self.emit(f"affine.yield {value} : {t}")
            self.indent -= 1
            self.emit("}")
            value = r
        if node.sink is None:
            self.results.append((results[0], t))
        else:
            self.store(results[0], node.sink)

    def node_Accumulate(self, node: Accumulate, env: dict) -> None:
        self.store(self.const(node.init), Access(node.acc, ()))
        self.block(node.nest, env)
        if node.result == "memref":
            self.results.append((f"%{node.acc.name}", self.memref_type(node.acc)))
        elif node.result == "scalar":
            self.results.append((self.load(Access(node.acc, ())), self.elem))

    # memory ------------------------------------------------------------------------------

    def subscripts(self, access: Access) -> str:
        parts = []
        for s in access.index:
            if s.iv is None:
                parts.append(str(s.offset))
                continue
            t = f"%{s.iv}" if s.coef == 1 else f"%{s.iv} * {s.coef}"
            if s.offset:
                t += f" + {s.offset}" if s.offset > 0 else f" - {-s.offset}"
            parts.append(t)
        return ", ".join(parts)

    def plain(self, access: Access) -> bool:
        return self.kn.memref_style and access.index and all(
            s.coef == 1 and not s.offset for s in access.index)

    def load(self, access: Access) -> str:
        v = self.fresh()
        op = "memref.load" if self.plain(access) or self._in_scf(access) else "affine.load"
        self.emit(f"{v} = {op} %{access.array.name}[{self.subscripts(access)}] : "
                  f"{self.memref_type(access.array)}")
        return v

    def store(self, value: str, access: Access) -> None:
        op = "memref.store" if self.plain(access) or self._in_scf(access) else "affine.store"
        self.emit(f"{op} {value}, %{access.array.name}[{self.subscripts(access)}] : "
                  f"{self.memref_type(access.array)}")

    def _in_scf(self, access: Access) -> bool:
        return self.kn.malformed == "scf" and bool(access.index)

    # expressions -------------------------------------------------------------------------

    def binary(self, op: str, a: str, b: str) -> str:
        v = self.fresh()
        name = (INT_OPS if self.elem == "i32" else FLOAT_OPS)[op]
        self.emit(f"{v} = {name} {a}, {b} : {self.elem}")
        return v

    def expr(self, e, env: dict) -> str:
        return getattr(self, f"expr_{type(e).__name__}")(e, env)

    def expr_Load(self, e: Load, env) -> str:
        return self.load(e.access)

    def expr_Scalar(self, e: Scalar, env) -> str:
        return f"%{e.name}"

    def expr_Const(self, e: Const, env) -> str:
        return self.const(e.value)

    def expr_IvValue(self, e: IvValue, env) -> str:
        v = self.fresh()
        self.emit(f"{v} = arith.index_cast %{e.iv} : index to i32")
        if self.elem == "i32":
            return v
        w = self.fresh()
        self.emit(f"{w} = arith.sitofp {v} : i32 to {self.elem}")
        return w

    def expr_Binary(self, e: Binary, env) -> str:
        return self.binary(e.op, self.expr(e.lhs, env), self.expr(e.rhs, env))

    def expr_Unary(self, e: Unary, env) -> str:
        a = self.expr(e.arg, env)
        v = self.fresh()
        t = self.elem
        if e.op == "neg":
            self.emit(f"{v} = arith.negf {a} : {t}" if t != "i32" else
                      f"{v} = arith.subi {self.const(0)}, {a} : {t}")
        else:
            self.emit(f"{v} = math.{ {'sqrt': 'sqrt', 'abs': 'absf', 'exp': 'exp'}[e.op]} {a} : {t}")
        return v

    def expr_Select(self, e: Select, env) -> str:
        a, b = self.expr(e.a, env), self.expr(e.b, env)
        t, f = self.expr(e.then, env), self.expr(e.orelse, env)
        c, v = self.fresh(), self.fresh()
        if self.elem == "i32":
            self.emit(f"{c} = arith.cmpi {INT_PRED[e.pred]}, {a}, {b} : {self.elem}")
        else:
            self.emit(f"{c} = arith.cmpf {FLOAT_PRED[e.pred]}, {a}, {b} : {self.elem}")
        self.emit(f"{v} = arith.select {c}, {t}, {f} : {self.elem}")
        return v

    def expr_Call(self, e: Call, env) -> str:
        a = self.expr(e.arg, env)
        v = self.fresh()
        t = self.elem
        decl = f"func.func private @ext_fn({t}) -> {t}"
        if decl not in self.decls:
            self.decls.append(decl)
        self.emit(f"{v} = func.call @ext_fn({a}) : ({t}) -> {t}")
        return v

    def expr_Undefined(self, e: Undefined, env) -> str:
        return "%undefined_value"

    def expr_Undef(self, e: Undef, env) -> str:
        v = self.fresh()
        self.emit(f"{v} = llvm.mlir.undef : {self.elem}")
        return v


def size_arg(d: Dim) -> str:
    return f"size_{d.name}"


def corrupt(text: str, kind: str) -> str:
    """A syntax error, deterministically: a misspelt op, a missing brace, a missing type."""
    if kind == "syntax-op":
        return re.sub(r"\baffine\.(load|store)\b", lambda m: f"affine.{m.group(1)[:-1]}", text, count=1)
    if kind == "syntax-brace":
        cut = text.rstrip().rfind("}")
        inner = text.rfind("}", 0, cut)
        return text[:inner] + text[inner + 1:]
    # syntax-type: drop the type of the first load
    return re.sub(r"(= affine\.load [^\n]*?) : memref<[^>]*>", r"\1", text, count=1)


def emit(kernel: Kernel) -> str:
    return Emitter(kernel).module()


def size_values(kernel: Kernel) -> dict[int, int]:
    """Argument position -> value of each i32 size argument."""
    params = [d for d in kernel.dims if d.param and d.name in used_dims(kernel)]
    return {i: d.value for i, d in enumerate(params)}


def parses(text: str) -> str | None:
    """None if MLIR parses and verifies `text`, else the error."""
    from mlir import ir

    with ir.Context():
        try:
            ir.Module.parse(text)
            return None
        except ir.MLIRError as e:
            return str(e).splitlines()[0] if str(e) else "parse error"
