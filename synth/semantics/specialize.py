"""A shape-generic raised function at given argument shapes, by the compilers' own passes.

`synth raise --shapes generic` writes `@NAME_raised` with `?` dims and its sizes computed
from its arguments (synth.grammar.dims). What runs it at one size, and what proves it at
bounded sizes, works on a static instance made from that very text:

- stablehlo: a public `@main` with the static argument types converts them to the generic
  ones and calls the function; jax's shape refinement (`refine_polymorphic_shapes`, the
  stablehlo passes `jax.export` uses) inlines it and makes every shape static, folding
  `get_dimension_size` and the dynamic ops into static ones;
- linalg: a wrapper with the static types casts them (`tensor.cast`) and calls the
  function; MLIR's `inline` and `canonicalize` fold the casts, `tensor.dim` and the
  index arithmetic into static shapes.

The instance keeps the function's name and attributes (`synth.outputs`, validation
records). A generic function is recognised by a `?` in its signature.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from functools import lru_cache

from synth.errors import InputError

_LINALG_PASSES = "builtin.module(inline,canonicalize,cse,canonicalize)"


def generic_signature(text: str, name: str) -> bool:
    """Whether `@name`'s signature in `text` has a dynamic dim."""
    m = re.search(rf"func\.func (?:public |private )?@{re.escape(name)}\(", text)
    if m is None:
        return False
    depth, i = 1, m.end()
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    end = text.find("{", i)
    return "?" in text[m.end(): end if end >= 0 else len(text)]


def static_type(generic: str, shape: tuple[int, ...]) -> str:
    """`tensor<?x5xf64>` at `shape` (7, 5): `tensor<7x5xf64>`; a type without dims as is."""
    m = re.fullmatch(r"tensor<(.*)>", generic.strip())
    if m is None:
        return generic
    parts = m.group(1).split("x")
    dims, elem = parts[:-1], parts[-1]
    if len(dims) != len(shape):
        raise ValueError(f"{generic} does not have rank {len(shape)}")
    for d, n in zip(dims, shape):
        if d != "?" and int(d) != n:
            raise ValueError(f"{generic} does not fit shape {tuple(shape)}")
    return "tensor<" + "".join(f"{n}x" for n in shape) + elem + ">"


def specialize(text: str, name: str, dialect: str, shapes: list) -> str:
    """Module text whose `@name` is the generic `@name` of `text` at argument shapes
    `shapes` (a tuple per argument, () for rank 0), static throughout; the module holds
    only that function. InputError when the compilers cannot make it static (a size the
    function computes from something else than its arguments' shapes and values)."""
    return _specialize(text, name, dialect, tuple(tuple(int(n) for n in s) for s in shapes))


@lru_cache(maxsize=256)
def _specialize(text: str, name: str, dialect: str, shapes: tuple) -> str:
    if dialect == "stablehlo":
        return _stablehlo(text, name, shapes)
    return _linalg(text, name, shapes)


def _signature(ir, func):
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    return [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]


def raised_function(ir, module, name: str):
    """The func.func @name of a raised module; InputError when it has none."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op
    raise InputError(f"no function @{name} in the raised module", "<raised>")


def _attributes(ir, func) -> list[tuple[str, str]]:
    """The function's discardable attributes (synth.*), as (name, text)."""
    out = []
    for key in list(func.attributes.keys()):
        key = key if isinstance(key, str) else key.name  # the bindings differ
        if key.startswith("synth."):
            out.append((key, str(func.attributes[key])))
    return out


def _wrapper(name: str, callee: str, ins: list[str], outs: list[str], shapes: tuple, convert: str,
             visibility: str = "") -> tuple[str, list[str]]:
    """A function `@name` with the static types calling `@callee` (the generic one),
    converting arguments with `convert` ("tensor.cast" or "stablehlo.convert")."""
    static_ins = [static_type(t, s) for t, s in zip(ins, shapes)]
    lines, operands = [], []
    for k, (g, s) in enumerate(zip(ins, static_ins)):
        if g == s:
            operands.append(f"%a{k}")
            continue
        if convert == "tensor.cast":
            lines.append(f"  %c{k} = tensor.cast %a{k} : {s} to {g}")
        else:
            lines.append(f"  %c{k} = stablehlo.convert %a{k} : ({s}) -> {g}")
        operands.append(f"%c{k}")
    results = [f"%r#{k}" for k in range(len(outs))] if len(outs) > 1 else ["%r"]
    head = f"%r:{len(outs)}" if len(outs) > 1 else "%r"
    call = f"func.call @{callee}({', '.join(operands)}) : ({', '.join(ins)}) -> ({', '.join(outs)})"
    lines.append(f"  {head} = {call}" if outs else f"  {call}")
    params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(static_ins))
    ret = f"  return {', '.join(results)} : {', '.join(outs)}" if outs else "  return"
    text = (f"func.func {visibility}@{name}({params}) -> ({', '.join(outs)}) {{\n" + "\n".join(lines)
            + f"\n{ret}\n}}")
    return text, static_ins


@contextmanager
def raised_in_context(text: str, name: str, dialect: str):
    """(the bindings' `ir`, the module `text` parsed, its `@name`) inside the shared context
    of the dialect's bindings (jax's for stablehlo, the `mlir` package's for linalg), for
    the block of a `with`."""
    from synth.semantics.raised import shared_context

    if dialect == "stablehlo":
        from jaxlib.mlir import ir
        context = shared_context("jax")
    else:
        from mlir import ir
        context = shared_context()
    with context:
        module = parse_raised(ir, text)
        yield ir, module, raised_function(ir, module, name)


@lru_cache(maxsize=64)
def _renamed(text: str, name: str, dialect: str) -> tuple[str, tuple, tuple, tuple]:
    """`text` with `@name` renamed `@name__generic` and private (what the static wrapper
    calls), with its argument and result types and synth.* attributes; parsed once per
    text, however many shapes it is made static at."""
    with raised_in_context(text, name, dialect) as (ir, module, func):
        ins, outs = _signature(ir, func)
        attributes = _attributes(ir, func)
        func.attributes["sym_name"] = ir.StringAttr.get(f"{name}__generic")
        func.attributes["sym_visibility"] = ir.StringAttr.get("private")
        return str(module), tuple(ins), tuple(outs), tuple(attributes)


def _stablehlo(text: str, name: str, shapes: tuple) -> str:
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir

    from synth.semantics.raised import shared_context

    body, ins, outs, attributes = _renamed(text, name, "stablehlo")
    temp = f"{name}__generic"
    main, _ = _wrapper("main", temp, ins, outs, shapes, "stablehlo.convert", "public ")
    combined = body.rstrip().rstrip("}") + main + "\n}\n"
    with shared_context("jax"):
        module = parse_raised(ir, combined)
        try:
            refined = jax_mlir.refine_polymorphic_shapes(module)
        except ValueError as e:
            cause = e.__cause__ or e
            raise InputError(f"@{name} cannot be made static at shapes {list(shapes)}: "
                             f"{str(cause).splitlines()[0]}", "<raised>") from None
        main_op = raised_function(ir, refined, "main")
        main_op.attributes["sym_name"] = ir.StringAttr.get(name)
        if "sym_visibility" in main_op.attributes:
            del main_op.attributes["sym_visibility"]
        for key, value in attributes:
            main_op.attributes[key] = ir.Attribute.parse(value)
        printed = str(refined)
    with shared_context("jax"):  # printed again in the custom form (refinement's copy prints generic)
        return str(parse_raised(ir, printed))


def _linalg(text: str, name: str, shapes: tuple) -> str:
    from mlir import ir, passmanager

    body, ins, outs, attributes = _renamed(text, name, "linalg")
    temp = f"{name}__generic"
    static_outs = outs  # made static by the passes where the shapes determine them
    wrapper, _ = _wrapper(name, temp, ins, static_outs, shapes, "tensor.cast")
    combined = body.rstrip().rstrip("}") + wrapper + "\n}\n"
    from synth.semantics.raised import shared_context

    with shared_context():
        module = parse_raised(ir, combined)
        try:
            passmanager.PassManager.parse(_LINALG_PASSES).run(module.operation)
        except ir.MLIRError as e:
            raise InputError(f"@{name} cannot be made static at shapes {list(shapes)}: {e}", "<raised>") from None
        func = raised_function(ir, module, name)
        _refine_results(ir, func, _output_shapes(attributes, shapes))
        for key, value in attributes:
            func.attributes[key] = ir.Attribute.parse(value)
        for op in list(module.body.operations):
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value != name:
                op.operation.erase()
        module.operation.verify()
        printed = str(module)
    if generic_signature(printed, name):
        raise InputError(f"@{name} does not become static at shapes {list(shapes)} (its results' "
                         f"shapes are not determined by its arguments')", "<raised>")
    return printed


def _output_shapes(attributes: list[tuple[str, str]], shapes: tuple) -> dict[int, tuple]:
    """result index -> its shape, for the results that synth.outputs says are the final
    contents of an argument (that argument's shape)."""
    for key, value in attributes:
        if key == "synth.outputs":
            args = [int(x) for x in re.findall(r"-?\d+", value.split(":")[0])]
            return {k: shapes[a] for k, a in enumerate(args) if 0 <= a < len(shapes)}
    return {}


def _refine_results(ir, func, known: dict[int, tuple]) -> None:
    """Give the function the static result types its return operands have (canonicalize
    leaves `tensor.cast`s to the dynamic types before the return); a result canonicalize
    leaves dynamic (a loop's, ludcmp's) is cast to the shape `known` says it has."""
    from mlir.dialects import tensor

    block = func.regions[0].blocks[0]
    ret = list(block.operations)[-1]
    new_types = []
    for k, v in enumerate(ret.operands):
        owner = v.owner if isinstance(v, ir.OpResult) else None
        if owner is not None and owner.name == "tensor.cast" and "?" not in str(owner.operands[0].type):
            ret.operands[k] = owner.operands[0]
            new_types.append(owner.operands[0].type)
        elif "?" in str(v.type) and k in known:
            static = ir.Type.parse(static_type(str(v.type), known[k]))
            with ir.InsertionPoint(ret), ret.location:
                ret.operands[k] = tensor.CastOp(static, v).result
            new_types.append(static)
        else:
            new_types.append(v.type)
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(list(ftype.inputs), new_types))


def parse_raised(ir, text: str):
    """The raised module `text` parsed; InputError (at <raised>) when it does not parse."""
    try:
        return ir.Module.parse(text)
    except ir.MLIRError as e:
        raise InputError(f"cannot parse the raised module: {e}", "<raised>") from None


def specialized_module(module_text: str, name: str, shapes: list) -> str:
    """`module_text` (synth raise's output, or a module with `@name` in it) reduced to
    `@name` and what it calls; made static at `shapes` where `@name` is shape-generic."""
    from synth.semantics.raised_text import keep_functions

    kept = keep_functions(module_text, name)
    if kept is None:
        raise InputError(f"no function @{name} in the module", "<raised>")
    if not generic_signature(kept, name):
        return module_text
    dialect = "stablehlo" if re.search(r"\bstablehlo\.\w", re.sub(r"//[^\n]*", "", kept)) else "linalg"
    return specialize(kept, name, dialect, shapes)
