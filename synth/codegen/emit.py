"""The output module: `@NAME_raised` (target dialect only, printed by MLIR) and the
drop-in `@NAME` with the original signature, which converts its arguments to tensors,
calls `@NAME_raised` and writes the results back into the output memrefs.

The raised stablehlo function is parsed, verified and printed in a jaxlib context (which
has stablehlo); the drop-in wrapper, which needs bufferization, in the upstream MLIR
context against a declaration of `@NAME_raised`. A linalg module is verified whole.
"""

from __future__ import annotations

from synth.analysis.model import Kernel
from synth.errors import SynthError
from synth.grammar.verifier import stablehlo_context


def print_verified(text: str, dialect: str) -> str:
    """Parse + verify with the dialect's real MLIR, return MLIR's printed form."""
    if dialect == "stablehlo":
        ir, ctx = stablehlo_context()
    else:
        from mlir import ir

        ctx = ir.Context()
    with ctx:
        try:
            module = ir.Module.parse(text)
            module.operation.verify()
        except ir.MLIRError as e:  # a bug in synth's emitter, not bad input
            raise SynthError(f"emitted {dialect} does not verify: {e}") from None
        printed = str(module)
        if any(ln.startswith("#") for ln in printed.splitlines()):
            # attribute aliases (`#map = affine_map<...>`, the original loops of a guarded
            # drop-in) would be module-level lines that clash when modules are combined:
            # each function printed on its own, its attributes inline
            body = "\n".join(_indent(str(op)) for op in module.body.operations)
            printed = "module {\n" + body + "\n}\n"
        return printed


def _func_body(printed_module: str) -> str:
    """The functions of a printed `module { ... }` without the module wrapper."""
    lines = printed_module.strip().splitlines()
    if lines and lines[0].startswith("module") and lines[-1] == "}":
        lines = [ln[2:] if ln.startswith("  ") else ln for ln in lines[1:-1]]
    return "\n".join(lines)


def _tensor_of(memref_type: str) -> str:
    """The tensor type `bufferization.to_tensor` gives a memref type (its layout dropped)."""
    inner = memref_type[len("memref<"):-1]
    depth, cut = 0, len(inner)
    for k, ch in enumerate(inner):
        depth += ch in "<[("
        depth -= ch in ">])"
        if ch == "," and depth == 0:
            cut = k
            break
    return f"tensor<{inner[:cut].strip()}>"


def wrapper_text(kernel: Kernel, raised_types: dict[int, str] | None = None,
                 guard: bool = False) -> tuple[str, str]:
    """(declaration of `@NAME_raised`, the drop-in `@NAME` with the original signature).

    Array arguments become tensors (a dynamic one through a `memref.cast` to its extent),
    scalars rank-0 tensors; the written arrays are materialized back into the arguments;
    returned arrays into fresh buffers, returned scalars extracted.

    `raised_types` (argument -> tensor type text) for a shape-generic `@NAME_raised`: each
    array is the part of the argument the kernel reaches, its extents computed from the
    size arguments and the memrefs' own dims (`memref.subview` where that part may be
    smaller than the buffer), so the drop-in serves every size. `guard`: a static raise
    of a kernel that takes its sizes at run time: the drop-in compares them with the
    values the raise fixed and calls `@NAME_loops` (the original, kept in the module)
    where they differ."""
    values = kernel.sizes.original()
    lines, operands, in_types = [], [], []
    memrefs: dict[int, tuple[str, str]] = {}  # argument -> (SSA name, memref type it is viewed as)
    generic = raised_types is not None
    size_lines: list[str] = []  # the sizes, before the domain check of a generic drop-in
    symbols, sources = _symbol_values(kernel, size_lines) if generic else ({}, {})
    for a in kernel.function.arguments[: kernel.n_arguments]:
        t = kernel.tensor_type(a.index, values)
        if a.is_array and generic:
            name, view = _array_view(kernel, a, symbols, sources, lines)
            memrefs[a.index] = (name, view)
            ttype, vtype = raised_types[a.index], _tensor_of(view)
            if vtype == ttype:
                lines.append(f"  %t{a.index} = bufferization.to_tensor {name} restrict : {view} to {ttype}")
            else:  # a static buffer into a dynamic parameter (a static kernel raised generic)
                lines.append(f"  %tv{a.index} = bufferization.to_tensor {name} restrict : {view} to {vtype}")
                lines.append(f"  %t{a.index} = tensor.cast %tv{a.index} : {vtype} to {ttype}")
            in_types.append(ttype)
        elif a.is_array:
            in_types.append(t.mlir())
            static = f"memref<{''.join(f'{d}x' for d in t.shape)}{a.type}{a.layout}>"
            name = f"%arg{a.index}"
            if static != a.mlir_type:
                lines.append(f"  %m{a.index} = memref.cast %arg{a.index} : {a.mlir_type} to {static}")
                name = f"%m{a.index}"
            memrefs[a.index] = (name, static)
            lines.append(f"  %t{a.index} = bufferization.to_tensor {name} restrict : "
                         f"{static} to {t.mlir()}")
        elif a.type == "index":
            in_types.append(t.mlir())
            lines.append(f"  %i{a.index} = arith.index_cast %arg{a.index} : index to i64")
            lines.append(f"  %t{a.index} = tensor.from_elements %i{a.index} : {t.mlir()}")
        else:
            in_types.append(t.mlir())
            lines.append(f"  %t{a.index} = tensor.from_elements %arg{a.index} : {t.mlir()}")
        operands.append(f"%t{a.index}")
    outs = kernel.outputs
    result_types = (raised_types or {}).get("results")  # a generic raise's, as it declares them
    out_types = [result_types[k] if result_types else kernel.tensor_type(o, values).mlir()
                 for k, o in enumerate(outs)]
    sig = f"({', '.join(in_types)}) -> ({', '.join(out_types)})"
    results = [f"%r#{k}" for k in range(len(outs))] if len(outs) > 1 else ["%r"]
    head = f"{'%r:' + str(len(outs)) if len(outs) > 1 else '%r'} = " if outs else ""  # none: nothing observable
    lines.append(f"  {head}func.call @{kernel.name}_raised({', '.join(operands)}) : {sig}")
    for k, o in enumerate(kernel.written):
        name, view = memrefs[o]
        lines.append(f"  bufferization.materialize_in_destination {results[k]} in restrict writable "
                     f"{name} : ({out_types[k]}, {view}) -> ()")
    returned, ret_types = [], []
    for j, r in enumerate(kernel.interface.results):
        k = len(kernel.written) + j
        if r.kind == "alias":
            returned.append(f"%arg{r.argument}")
        elif r.kind == "array":
            value, vtype = results[k], out_types[k]
            static = kernel.tensor_type(r.argument, values).mlir()
            if vtype != static:  # a generic raise's dynamic result, into the static buffer returned
                lines.append(f"  %oc{j} = tensor.cast {value} : {vtype} to {static}")
                value, vtype = f"%oc{j}", static
            lines.append(f"  %o{j} = memref.alloc() : {r.type}")
            lines.append(f"  bufferization.materialize_in_destination {value} in restrict writable "
                         f"%o{j} : ({vtype}, {r.type}) -> ()")
            returned.append(f"%o{j}")
        else:
            elem = "i64" if r.type == "index" else r.type
            lines.append(f"  %o{j} = tensor.extract {results[k]}[] : tensor<{elem}>")
            if r.type == "index":
                lines.append(f"  %x{j} = arith.index_cast %o{j} : i64 to index")
                returned.append(f"%x{j}")
            else:
                returned.append(f"%o{j}")
        ret_types.append(r.type)
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(kernel.interface.argument_types))
    decl = f"func.func private @{kernel.name}_raised{sig}"
    head = f"func.func @{kernel.name}({params})"
    if ret_types:
        head += f" -> ({', '.join(ret_types)})"
    checks = _size_checks(kernel) if guard else []
    if generic:  # outside the proven domain (an access beyond an array, a size below 1): the loops
        ok = _in_domain(kernel, symbols, size_lines)
        body = size_lines + _guarded(kernel, ok, [], lines, returned, ret_types)
    elif checks:
        pre: list[str] = []
        body = _guarded(kernel, _same_sizes(kernel, checks, pre), pre, lines, returned, ret_types)
    else:
        body = lines + ([f"  return {', '.join(returned)} : {', '.join(ret_types)}"] if ret_types else ["  return"])
    func = head + " {\n" + "\n".join(body) + "\n}\n"
    return decl, func


def _symbol_values(kernel: Kernel, lines: list[str]) -> tuple[dict[str, str], dict[str, tuple]]:
    """(symbol -> `index` SSA value in the drop-in, symbol -> (argument, dim) where it is
    read off an array argument's dim): a size argument's value, else a dim of an array
    argument whose extent is the symbol plus a constant (memref.dim), else the constant
    the kernel has (a bound no argument shows)."""
    model = kernel.sizes
    out: dict[str, str] = {}
    sources: dict[str, tuple] = {}
    extremes = {e.argument: e for e in kernel.interface.extremes}
    for i, name in sorted(model.params.items()):
        if i in extremes:  # a loop bound min(k, n) of size arguments: computed from them
            out[name] = _extreme_value(kernel, extremes[i], lines)
            continue
        if i >= kernel.n_arguments:  # a dim the original reads (memref.dim): from that dim, below
            continue
        a = kernel.function.arguments[i]
        if a.type == "index":
            out[name] = f"%arg{i}"
        else:
            lines.append(f"  %s{i} = arith.index_cast %arg{i} : {a.type} to index")
            out[name] = f"%s{i}"
    for i, dims in sorted(model.arg_dims.items()):
        if i >= kernel.n_arguments:
            continue
        for d, e in enumerate(dims):
            if e.div != 1 or len(e.terms) != 1 or e.terms[0][1] != 1 or e.terms[0][0] in out:
                continue
            sym = e.terms[0][0]
            c, v = f"%d{i}_{d}c", f"%d{i}_{d}"
            lines.append(f"  {c} = arith.constant {d} : index")
            lines.append(f"  {v} = memref.dim %arg{i}, {c} : {kernel.function.arguments[i].mlir_type}")
            if e.const:
                k = f"%d{i}_{d}k"
                lines.append(f"  {k} = arith.constant {e.const} : index")
                lines.append(f"  {v}s = arith.subi {v}, {k} : index")
                v = f"{v}s"
            out[sym] = v
            sources[sym] = (i, d)
    for sym, s in model.symbols.items():
        if sym not in out:
            lines.append(f"  %k_{sym} = arith.constant {s.value} : index")
            out[sym] = f"%k_{sym}"
    for k, (sym, e) in enumerate(sorted(model.floordivs.items())):  # quotient symbols: from the sizes
        if not sym.startswith("(") and all(n in out for n in e.symbols):
            out[sym] = _expr_value(e, out, lines, f"quot{k}")
    for k, (sym, monos) in enumerate(sorted(model.products.items())):  # products no dim shows
        if sym not in out and all(n in out for m, _ in monos for n in m):
            total = None
            for j, (m, c) in enumerate(monos):
                lines.append(f"  %prod{k}_{j} = arith.constant {c} : index")
                term = f"%prod{k}_{j}"
                for i, n in enumerate(m):
                    lines.append(f"  %prod{k}_{j}_{i} = arith.muli {term}, {out[n]} : index")
                    term = f"%prod{k}_{j}_{i}"
                if total is not None:
                    lines.append(f"  %prod{k}_{j}_s = arith.addi {total}, {term} : index")
                    term = f"%prod{k}_{j}_s"
                total = term
            out[sym] = total
    return out, sources


def _extreme_value(kernel: Kernel, e, lines: list[str]) -> str:
    """An `index` value of a loop bound that is the min (max) of size arguments
    (synth.frontend.size_extremes): `affine.min` (`affine.max`) of its map over them."""
    operands = []
    for j in e.arguments:
        t = kernel.function.arguments[j].type
        if t == "index":
            operands.append(f"%arg{j}")
        else:
            lines.append(f"  %x{e.argument}_{j} = arith.index_cast %arg{j} : {t} to index")
            operands.append(f"%x{e.argument}_{j}")
    lines.append(f"  %x{e.argument} = affine.{e.kind} affine_map<{e.map}>()[{', '.join(operands)}]")
    return f"%x{e.argument}"


def _expr_value(expr, symbols: dict[str, str], lines: list[str], tag: str) -> str:
    """An `index` value of a size expression in the drop-in."""
    if expr.is_constant:
        lines.append(f"  %{tag} = arith.constant {expr.const // expr.div} : index")
        return f"%{tag}"
    total, k = None, 0
    for name, coeff in expr.terms:
        term = symbols[name]
        if coeff != 1:
            lines.append(f"  %{tag}_c{k} = arith.constant {coeff} : index")
            lines.append(f"  %{tag}_m{k} = arith.muli {term}, %{tag}_c{k} : index")
            term = f"%{tag}_m{k}"
        if total is not None:
            lines.append(f"  %{tag}_a{k} = arith.addi {total}, {term} : index")
            term = f"%{tag}_a{k}"
        total, k = term, k + 1
    if expr.const:
        lines.append(f"  %{tag}_k = arith.constant {expr.const} : index")
        lines.append(f"  %{tag}_s = arith.addi {total}, %{tag}_k : index")
        total = f"%{tag}_s"
    if expr.div != 1:
        lines.append(f"  %{tag}_q = arith.constant {expr.div} : index")
        lines.append(f"  %{tag} = arith.divsi {total}, %{tag}_q : index")
        return f"%{tag}"
    return total


def _array_view(kernel: Kernel, a, symbols: dict[str, str], sources: dict[str, tuple],
                lines: list[str]) -> tuple[str, str]:
    """(SSA name, memref type) of the part of array argument `a` the kernel reaches: the
    argument itself where its dims are its extents, else a `memref.subview` of it."""
    from mlir import ir

    exprs = kernel.sizes.arg_dims[a.index]
    with ir.Context():
        mt = ir.MemRefType(ir.Type.parse(a.mlir_type))
        shape = [None if mt.is_dynamic_dim(d) else mt.shape[d] for d in range(mt.rank)]
        elem = str(mt.element_type)
    own = all(e.div == 1 and len(e.terms) == 1 and e.terms[0][1] == 1 and
              sources.get(e.terms[0][0]) == (a.index, d) for d, e in enumerate(exprs) if not e.is_constant)
    own = own and all(shape[d] == e.const for d, e in enumerate(exprs) if e.is_constant)
    if own:
        return f"%arg{a.index}", a.mlir_type
    sizes = [_expr_value(e, symbols, lines, f"n{a.index}_{d}") for d, e in enumerate(exprs)]
    strides, step = [], 1
    for d in reversed(range(len(shape))):
        strides.append(step)
        step = None if step is None or shape[d] is None else step * shape[d]
    strides.reverse()
    if a.layout:  # a view at run-time strides: a part of it is one too
        strides = [None] * len(shape)
    layout = ", ".join("?" if s is None else str(s) for s in strides)
    offset = ", offset: ?" if a.layout else ""
    view = f"memref<{''.join('?x' for _ in shape)}{elem}, strided<[{layout}]{offset}>>"
    zeros, ones = ", ".join("0" for _ in shape), ", ".join("1" for _ in shape)
    lines.append(f"  %v{a.index} = memref.subview %arg{a.index}[{zeros}] [{', '.join(sizes)}] [{ones}] : "
                 f"{a.mlir_type} to {view}")
    return f"%v{a.index}", view


def _size_checks(kernel: Kernel) -> list[tuple[str, str, int]]:
    """What a static raise fixed of the sizes the caller passes: (SSA value, its type,
    the raise's value) for each size argument that bounds a loop and each dynamic dim of
    an array argument."""
    from mlir import ir

    model = kernel.sizes
    values = model.original()
    out = []
    extremes = {e.argument: e for e in kernel.interface.extremes}
    for i, name in sorted(model.params.items()):
        if i < kernel.n_arguments:  # the dims read by memref.dim are checked as dynamic dims
            out.append((f"%arg{i}", kernel.function.arguments[i].type, values[name]))
        elif i in extremes:  # a min (max) of size arguments: its value as the raise had it
            out.append((f"extreme:{i}", "index", values[name]))
    for a in kernel.function.arguments[: kernel.n_arguments]:
        if not a.is_array:
            continue
        with ir.Context():
            mt = ir.MemRefType(ir.Type.parse(a.mlir_type))
            dynamic = [d for d in range(mt.rank) if mt.is_dynamic_dim(d)]
        for d in dynamic:
            out.append((f"memref.dim:{a.index}:{d}:{a.mlir_type}", "index",
                        int(kernel.tensor_type(a.index, values).shape[d])))
    return out


def _in_domain(kernel: Kernel, symbols: dict[str, str], lines: list[str]) -> str:
    """An i1 value: the sizes are in the domain the raise is proven and tested for (each
    symbol at least 1, every access of the original within its array, every loop with
    size bounds running at least once)."""
    one = "%dom_one"
    lines.append(f"  {one} = arith.constant 1 : index")
    lines.append("  %dom_zero = arith.constant 0 : index")
    conds = []
    for k, name in enumerate(sorted(n for n in symbols if n not in kernel.sizes.derived)):
        lines.append(f"  %dom_s{k} = arith.cmpi sge, {symbols[name]}, {one} : index")
        conds.append(f"%dom_s{k}")
    for k, (a, b, _) in enumerate(kernel.sizes.constraints):
        if any(n not in symbols for n in a.symbols + b.symbols):
            continue  # a floordiv's own symbol: implied by the others
        lo, hi = _expr_value(a, symbols, lines, f"dom_a{k}"), _expr_value(b, symbols, lines, f"dom_b{k}")
        lines.append(f"  %dom_c{k} = arith.cmpi sle, {lo}, {hi} : index")
        conds.append(f"%dom_c{k}")
    for k, (lb, ub) in enumerate(kernel.sizes.nonempty):  # every loop runs (a tensor of at least 1)
        if any(n not in symbols for n in lb.symbols + ub.symbols):
            continue
        lo, hi = _expr_value(lb, symbols, lines, f"dom_l{k}"), _expr_value(ub, symbols, lines, f"dom_u{k}")
        lines.append(f"  %dom_n{k} = arith.cmpi slt, {lo}, {hi} : index")
        conds.append(f"%dom_n{k}")
    for k, (span, step, _) in enumerate(kernel.sizes.congruences):  # a stepped loop runs whole steps
        if any(n not in symbols for n in span.symbols):
            continue
        value = _expr_value(span, symbols, lines, f"dom_p{k}")
        lines.append(f"  %dom_m{k} = arith.constant {step} : index")
        lines.append(f"  %dom_r{k} = arith.remsi {value}, %dom_m{k} : index")
        lines.append(f"  %dom_q{k} = arith.cmpi eq, %dom_r{k}, %dom_zero : index")
        conds.append(f"%dom_q{k}")
    ok = conds[0] if conds else None
    for k, c in enumerate(conds[1:]):
        lines.append(f"  %dom_and{k} = arith.andi {ok}, {c} : i1")
        ok = f"%dom_and{k}"
    if ok is None:
        lines.append("  %dom_true = arith.constant true")
        ok = "%dom_true"
    return ok


def _same_sizes(kernel: Kernel, checks, pre: list[str]) -> str:
    """An i1 value: every size in `checks` has the raise's value (lines into `pre`)."""
    ok = None
    extremes = {e.argument: e for e in kernel.interface.extremes}
    for k, (value, ty, want) in enumerate(checks):
        if value.startswith("extreme:"):
            value = _extreme_value(kernel, extremes[int(value.split(":")[1])], pre)
        if value.startswith("memref.dim:"):
            _, arg, dim, mtype = value.split(":", 3)
            pre.append(f"  %g{k}d = arith.constant {dim} : index")
            pre.append(f"  %g{k}v = memref.dim %arg{arg}, %g{k}d : {mtype}")
            value = f"%g{k}v"
        pre.append(f"  %g{k}c = arith.constant {want} : {ty}")
        pre.append(f"  %g{k} = arith.cmpi eq, {value}, %g{k}c : {ty}")
        if ok is None:
            ok = f"%g{k}"
        else:
            pre.append(f"  %g{k}a = arith.andi {ok}, %g{k} : i1")
            ok = f"%g{k}a"
    return ok


def _guarded(kernel: Kernel, ok: str, pre: list[str], lines: list[str], returned: list[str],
             ret_types: list[str]) -> list[str]:
    """The drop-in body: `pre`, then the raise (`lines`) where `ok`, `@NAME_loops` (the
    original) otherwise."""
    args = ", ".join(f"%arg{i}" for i in range(len(kernel.interface.argument_types)))
    call_types = f"({', '.join(kernel.interface.argument_types)}) -> ({', '.join(ret_types)})"
    results = f"%w:{len(ret_types)}" if len(ret_types) > 1 else "%w"
    head = f"  {results} = scf.if {ok} -> ({', '.join(ret_types)}) {{" if ret_types else f"  scf.if {ok} {{"
    inner = ["  " + ln for ln in lines]
    inner.append(f"    scf.yield {', '.join(returned)} : {', '.join(ret_types)}" if ret_types else "    scf.yield")
    other = [("    %u" + (f":{len(ret_types)}" if len(ret_types) > 1 else "") + " = " if ret_types else "    ")
             + f"func.call @{kernel.name}_loops({args}) : {call_types}"]
    if ret_types:
        us = [f"%u#{k}" for k in range(len(ret_types))] if len(ret_types) > 1 else ["%u"]
        other.append(f"    scf.yield {', '.join(us)} : {', '.join(ret_types)}")
    else:
        other.append("    scf.yield")
    ws = [f"%w#{k}" for k in range(len(ret_types))] if len(ret_types) > 1 else ["%w"]
    tail = [f"  return {', '.join(ws)} : {', '.join(ret_types)}"] if ret_types else ["  return"]
    return pre + [head] + inner + ["  } else {"] + other + ["  }"] + tail


def original_loops(kernel: Kernel) -> str:
    """The original function as read, renamed `@NAME_loops` and private: the drop-in's
    fallback where the sizes differ from a static raise's."""
    from mlir import ir

    with kernel.source.context:
        module = kernel.source.copy()  # the input's one parse, copied: the input is not changed
        for op in module.regions[0].blocks[0].operations:
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == kernel.name:
                op.attributes["sym_name"] = ir.StringAttr.get(f"{kernel.name}_loops")
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
                return str(op)
    raise SynthError(f"no function @{kernel.name} in the original module")


def output_module(kernel: Kernel, raised_text: str, dialect: str, generic: bool = False) -> str:
    """Module text holding @NAME_raised and the drop-in @NAME, each verified by MLIR.
    A static raise of a kernel that takes its sizes at run time also holds the original
    as `@NAME_loops`, which the drop-in calls where the sizes differ from the raise's
    (see wrapper_text); a shape-generic raise (`generic`) serves every size itself."""
    raised_types = _argument_types(raised_text, kernel) if generic else None
    guard = not generic and bool(_size_checks(kernel))
    decl, wrapper = wrapper_text(kernel, raised_types, guard)
    if guard or generic:  # the original, for sizes the raise does not serve
        wrapper = wrapper + original_loops(kernel) + "\n"
    if dialect == "linalg":
        return print_verified(raised_text + wrapper, "linalg")
    raised = _func_body(print_verified(raised_text, "stablehlo"))
    wrapper_printed = _func_body(print_verified(decl + "\n" + wrapper, "linalg"))
    wrapper_only = wrapper_printed.split("\n", 1)[1] if wrapper_printed.startswith("func.func private") else wrapper_printed
    return "module {\n" + _indent(raised) + "\n" + _indent(wrapper_only) + "\n}\n"


def _indent(text: str) -> str:
    return "\n".join("  " + ln if ln else ln for ln in text.splitlines())


def combine(modules: list[str]) -> str:
    """One module from several output modules (one per raised function)."""
    bodies = [_func_body(m) for m in modules]
    return "module {\n" + "\n".join(_indent(b) for b in bodies) + "\n}\n"


def _argument_types(raised_text: str, kernel: Kernel) -> dict:
    """Argument index (of the original) -> tensor type text of `@NAME_raised`'s parameter,
    and "results": its result types."""
    import re

    m = re.search(rf"func\.func @{re.escape(kernel.name)}_raised\((.*?)\) -> \((.*?)\) attributes", raised_text)
    if m is None:
        raise SynthError(f"no @{kernel.name}_raised in the emitted text")
    out: dict = {}
    for part in re.finditer(r"%a(\d+): (tensor<[^>]*>|[a-z0-9]+)", m.group(1)):
        out[int(part.group(1))] = part.group(2)
    out["results"] = re.findall(r"tensor<[^>]*>", m.group(2))
    return out
