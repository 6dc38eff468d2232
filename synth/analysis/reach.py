"""How far past a size parameter its accesses reach (synth.analysis.size_analysis).

A C kernel that takes `int n` and declares its arrays `double e[N + 1][N + 1]` (Knuth's
optimal binary search tree, many DP codes: `for (j = i; j <= n; j++)`) needs extent n + 1,
not n: the parameter's value is the largest under which every access stays within its
array (N here), and the dim is the furthest reach (n + 1), so the kernel is run, tested
and proven at sizes where the original stays within its arrays."""

from __future__ import annotations

import re

from synth.errors import InputError
from synth.analysis.collect import Collector, Lin
from synth.analysis.symbols import SizeExpr


def reach_past(col: Collector, arrays: dict, dim_param: dict, counter) -> dict[tuple, tuple]:
    """For each static dim voted for a size parameter p: the furthest its accesses reach,
    as the list of (a, c, where) of each extent a * p + c one needs, read from the loops' bounds and the
    subscripts (`for (j = i; j <= n; j++) e[i][j]`: (1, 1), e's dim is n + 1;
    `a[i] + a[n + i]`, i < n: (2, 0)); (1, 0) where they reach no further than p. A
    reach that is no such form (other sizes in it) leaves the dim to the extents."""
    out: dict[tuple, tuple] = {}
    guarded = _guarded_ops(col)
    for key, p in dim_param.items():
        arr, d = key
        if not arrays.get(arr) or arrays[arr][d] is None:
            continue
        out[key] = [(1, 0, None)]
        for acc in col.accesses:
            if acc.array != arr or d >= len(acc.forms) or acc.forms[d] is None or acc.op_index in guarded:
                continue  # (an access under an affine.if: its guard may keep it within p)
            hi = raw_extreme(col, acc.forms[d], True)
            if hi is None or set(hi.terms) != {("p", p)} or hi.terms[("p", p)] < 1:
                continue
            out[key].append((hi.terms[("p", p)], hi.const + 1, acc.location))
    return out


def _guarded_ops(col: Collector) -> set[int]:
    """The pre-order indices (as the collector numbers ops) of the ops inside an affine.if."""
    out: set[int] = set()
    count = 0

    def visit(block, inside: bool) -> None:
        nonlocal count
        for op in block.operations:
            op = op.operation
            if inside:
                out.add(count)
            count += 1
            for region in op.regions:
                for b in region.blocks:
                    visit(b, inside or op.name == "affine.if")

    if col.if_forms:
        visit(col.block, False)
    return out


def param_name(block, p: int) -> str:
    """The C name of size argument #p, read at its location (clang's location of a
    parameter is its name: `int n` at the n), or `arg{p}` where none is there."""
    return located_name(block, p) or f"arg{p}"


def located_name(block, p: int) -> str | None:
    """The name at argument #p's location (see param_name); None where there is none (an
    MLIR file's `%arg2` names no C parameter)."""
    import re

    try:
        loc = block.arguments[p].location
        if loc.is_a_file():
            with open(loc.filename, errors="replace") as f:
                line = f.read().splitlines()[loc.start_line - 1]
            m = re.match(r"[A-Za-z_]\w*", line[loc.start_col - 1:])
            if m:
                return m.group(0)
    except (AttributeError, ValueError, TypeError, OSError, IndexError):
        pass
    return None


def fit(p: int, keys: list, arrays: dict, reach: dict, block=None) -> int | None:
    """The largest value of size parameter p under which every static dim voted for it
    holds what its accesses reach (None: no such dim); an InputError where none does."""
    fits = []
    for (arr, d), a, c, where in ((k, *r) for k in keys for r in reach[k]):
        extent = arrays[arr][d]
        fits.append((extent - c) // a)
        if fits[-1] < 1:
            name = param_name(block, p) if block is not None else f"arg{p}"
            n = f"{a} * {name}" if a > 1 else name
            raise InputError(f"no value of size argument #{p} ({name}) keeps this access within its "
                             f"array: it reaches index {n} + {c - 1}, past the extent {extent} at "
                             f"every {name} >= 1; give the size with --size {name}=VALUE", where)
    return min(fits) if fits else None


def raw_extreme(col: Collector, form: Lin, upper: bool, depth: int = 0) -> Lin | None:
    """An upper (lower) bound of a raw form over the loop indices: a form over the size
    parameters (("p", k) keys) and constants. A loop with a step s ends at its bound less s
    (where the step divides its span; synth.analysis.sizes keeps sizes so)."""
    ivs = [k for k in form.terms if isinstance(k, tuple) and k[0] == "iv"]
    if not ivs:
        return form
    if depth > 64:
        return None
    key = max(ivs, key=lambda k: k[1])
    coeff = form.terms[key]
    loop = col.loop_list[key[1]]
    take_upper = (coeff > 0) == upper
    options = [o for o in (loop.ubs if take_upper else loop.lbs) if o is not None]
    if not options:
        return None
    pure = [o for o in options if not any(isinstance(k, tuple) and k[0] == "iv" for k in o.terms)]
    choice = (pure or options)[0]
    if take_upper:
        choice = choice.add(Lin({}, -loop.step))
    rest = Lin({k: v for k, v in form.terms.items() if k != key}, form.const)
    return raw_extreme(col, rest.add(choice, coeff), upper, depth + 1)


ENUMERATION_LIMIT = 200_000  # iterations of one access's loops enumerated at the kernel's own sizes


def check_own_sizes(col: Collector, arrays: dict, params: dict[int, int], block=None) -> None:
    """An InputError at the first access that runs past its array of static extent at the
    kernel's own sizes (`params`: each size argument's value; a `--size n=21` the array
    `e[21]` does not hold at `j <= n`): the input's fault, told where, before any run at
    sizes derived from them. Exact (the loops enumerated at those sizes, up to
    ENUMERATION_LIMIT iterations); functions with an affine.if are left to the bounds
    checks (a guard may keep the access in)."""
    if col.if_forms:
        return
    for acc in col.accesses:
        shape = arrays.get(acc.array)
        if not shape:
            continue
        for d, form in enumerate(acc.forms):
            if form is None or d >= len(shape) or shape[d] is None:
                continue
            span = _span(col, form, params)
            if span is not None and (span[0] < 0 or span[1] >= shape[d]):
                index = span[1] if span[1] >= shape[d] else span[0]
                sizes = ", ".join(f"{param_name(block, k) if block is not None else f'arg{k}'} = {v}"
                                  for k, v in sorted(params.items())) or "its loop bounds as written"
                raise InputError(f"at the kernel's own sizes ({sizes}) this access reaches index "
                                 f"{index} of dimension {d}, whose extent is {shape[d]}: it runs "
                                 f"past its array; give sizes its arrays hold (--size NAME=VALUE)",
                                 acc.location)


def _span(col: Collector, form: Lin, params: dict[int, int]) -> tuple[int, int] | None:
    """(min, max) of a raw form over its loops' iterations at the given parameter values;
    None where it cannot tell (an unknown term, too many iterations, no iteration)."""
    loops, todo = set(), [k[1] for k in form.terms if isinstance(k, tuple) and k[0] == "iv"]
    while todo:
        i = todo.pop()
        if i in loops:
            continue
        loops.add(i)
        for f in col.loop_list[i].lbs + col.loop_list[i].ubs:
            if f is None:
                return None
            todo += [k[1] for k in f.terms if isinstance(k, tuple) and k[0] == "iv"]
    order = sorted(loops)  # pre-order ids: outer loops first
    env: dict = {("p", k): v for k, v in params.items()}
    found = [None, None]
    budget = [ENUMERATION_LIMIT]

    def value(f: Lin):
        return f.const + sum(c * env[k] for k, c in f.terms.items())

    def walk(depth: int) -> bool:
        if depth == len(order):
            v = value(form)
            found[0] = v if found[0] is None else min(found[0], v)
            found[1] = v if found[1] is None else max(found[1], v)
            return True
        loop = col.loop_list[order[depth]]
        lb, ub = max(value(f) for f in loop.lbs), min(value(f) for f in loop.ubs)
        for i in range(lb, ub, max(loop.step, 1)):
            budget[0] -= 1
            if budget[0] < 0:
                return False
            env[("iv", loop.id)] = i
            if not walk(depth + 1):
                return False
        return True

    try:
        if not walk(0) or found[0] is None:
            return None
    except KeyError:  # a term of no known value (a loop counter)
        return None
    return found[0], found[1]


def guarded_extreme(acc, form: Lin | None, upper: bool, extreme, sym_form, known: dict, **kw) -> Lin | None:
    """`extreme(form, upper)` of an access's form, narrowed by the affine.ifs around the
    access: a guard g >= 0 bounds the form below by form - g and above by form + g where
    those hold no loop index (`in[i + k - 1]` under `0 <= i + k - 1 < w`: 0 and w - 1,
    where the loops alone give -1 and w). Both bounds hold; the guard's is taken where it
    is the tighter one at the sizes `known` (symbol -> value; a free size unknown: kept)."""
    v = extreme(form, upper, **kw)
    if v is None or not acc.guards:
        return v
    for g in acc.guards:
        g = sym_form(g, None, True)
        if g is None:
            continue
        cand = form.add(g, 1 if upper else -1)
        if cand.ivs:
            continue
        gap = v.add(cand, -1) if upper else cand.add(v, -1)
        if all(k in known for k in gap.terms) and gap.const + sum(c * known[k] for k, c in gap.terms.items()) > 0:
            v = cand
    return v


def single_size(pure: list, loop, upper: bool, block=None) -> Lin:
    """The one bound over sizes alone of a loop bounded by a min (max) of values: where
    there are several (`0 to min(k, n)`) the loop's extent is none of them at every size,
    and an array it reaches has no extent as one expression of sizes: refused (exit 2)."""
    distinct = []
    for p in pure:
        if p not in distinct:
            distinct.append(p)
    if len(distinct) > 1:
        which = "smaller" if upper else "larger"
        names = " and ".join(re.sub(r"\barg(\d+)\b", lambda m: param_name(block, int(m[1])) if block
                                    is not None else m[0], str(p.size_expr())) for p in distinct)
        raise InputError(f"the loop runs to the {which} of {names}: no one expression of the "
                         f"sizes is its extent at every size (give the sizes their values, "
                         f"--size NAME=VALUE, to raise it at those)", loop.location)
    return distinct[0]


def unread_bounds(col: Collector) -> str:
    """Why a dynamic extent may have no loop reaching it: the loops whose bounds are no
    affine forms of the size arguments and their quotients by constants (`n % 3`, a
    product of sizes), for the message; "" where every bound reads."""
    where = [loop.location for loop in col.loop_list if any(f is None for f in loop.lbs + loop.ubs)]
    if not where:
        return ""
    return (f" (the bound of the loop at {where[0]} is no affine form of the size arguments and "
            f"their quotients by constants; --size NAME=VALUE raises it at those sizes)")


def caps(col: Collector, bounds: dict, extreme) -> list[tuple[str, str]]:
    """(s, t) for each loop that runs to min(f, s), f a form of outer loop indices that
    reaches up to t - 1 and s a size of its own (`j < min(i, m)`, i < n: (m, n)): at test
    sizes s must be below t, or the cap never applies and a raise that ignores it passes
    every test (synth.analysis.sizes.SizeModel.with_test_values orders them so)."""
    out = []
    for loop in col.loop_list:
        ubs = bounds[loop.id][1]
        if len(ubs) < 2 or any(u is None for u in ubs):
            continue
        sizes = [u for u in ubs if not u.ivs and len(u.terms) == 1]
        for f in (u for u in ubs if u.ivs):
            top = extreme(f, True)
            if top is None or len(top.terms) != 1:
                continue
            for s in sizes:
                pair = (next(iter(s.terms)), next(iter(top.terms)))
                if pair[0] != pair[1] and pair not in out:
                    out.append(pair)
    return out


def quotients(col: Collector, names: dict) -> dict:
    """The collector's quotient symbols (`q0`: n / 2 of a run-time n) as floordivs of the
    size symbols (`names`: size argument -> symbol), for the size model's floordivs."""
    from synth.analysis.symbols import SizeExpr

    out = {}
    for q, (terms, const, d) in col.quotients.items():
        if all(k[1] in names for k, _ in terms):
            out[q] = SizeExpr(tuple(sorted((names[k[1]], c) for k, c in terms)), const).floordiv(d)
    return out


def unquotient(e, floordivs: dict):
    """`q + c` of a quotient symbol q = x floordiv d as the floordiv (x + c * d) floordiv d,
    an extent a raise for every size computes from the size arguments; `e` otherwise."""
    from synth.analysis.symbols import SizeExpr

    if len(e.terms) != 1 or e.terms[0][1] != 1 or e.terms[0][0] not in floordivs or e.div != 1:
        return e
    inner = floordivs[e.terms[0][0]]
    return SizeExpr(inner.terms, inner.const + e.const * inner.div, inner.div)


def check_quotients(dims: dict, floordivs: dict, where: str, block=None, params=()) -> None:
    """Refuse (exit 2) an extent that a quotient symbol enters other than linearly with
    size parameters (`params`, their symbols): an affine expression of parameters and
    quotient symbols (`k + 2 * q0` elements of a strided convolution's input, q0 = (n - k)
    floordiv 2) is an extent of a raise for every size, which computes q0 from its sizes
    (synth.grammar.dims); a floordiv of one is not, nor a sum with a symbol of another
    kind (a loop bound the analysis did not follow: an unrolled loop's tail to n % 4)."""
    for (arr, d), e in dims.items():
        quotient = e is not None and any(n in floordivs and not n.startswith("(") for n in e.symbols)
        if quotient and (e.div != 1 or any(n not in floordivs and n not in params for n in e.symbols)):
            what = f"argument #{arr[1]}" if arr[0] == "arg" else "a local buffer"
            text = str(e)
            for n, q in floordivs.items():
                text = text.replace(n, f"({q})")
            if block is not None:
                text = re.sub(r"\barg(\d+)\b", lambda m: param_name(block, int(m[1])), text)
            raise InputError(f"the extent of dimension {d} of {what} is {text}: a quotient of "
                             f"sizes in a form no raise for every size takes (give the "
                             f"sizes their values, --size NAME=VALUE)", where)


def param_bounds(loop) -> list:
    """The upper bounds of a loop that may bind its index to a size parameter: all of
    them, but none where two are over sizes alone (`0 to min(4, n)`: the index's extent is
    neither, and an array it reaches is not n long)."""
    pure = [f for f in loop.ubs if f is not None and not any(isinstance(k, tuple) and k[0] == "iv" for k in f.terms)]
    return [] if len(pure) > 1 else loop.ubs


def furthest(reach: list, values: dict):
    """The furthest of the accesses' reaches (extents each access needs): where they differ
    by constants, the one with the largest (`2 * q0` over `2 * q0 - 1` of a quotient symbol
    q0 whose value is not known here); else the largest at the kernel's own `values`
    (-1 where a symbol has none; then by text)."""
    try:
        gaps = [r - reach[0] for r in reach]
    except ValueError:  # a floordiv
        gaps = None
    if gaps is not None and all(g.is_constant for g in gaps):
        return reach[max(range(len(reach)), key=lambda i: (gaps[i].const, str(reach[i])))]
    return max(reach, key=lambda x: (x.at(values) if all(s in values for s in x.symbols) else -1, str(x)))


def requotient(dims: dict, floordivs: dict) -> None:
    """Where some extent holds a quotient symbol (`2 * q0`, q0 = h floordiv 2: the rows a
    2x2 downsampling reads), every extent that is one of those quotients plus a constant
    is written as the symbol too (the output's `(h) floordiv 2` rows as q0), so that the
    search sees the one as twice the other (in place)."""
    quotients = {n: e for n, e in floordivs.items() if not n.startswith("(")}
    if not any(e is not None and set(e.symbols) & set(quotients) for e in dims.values()):
        return
    for key, e in dims.items():
        if e is None or e.div == 1:
            continue
        for n, q in quotients.items():
            if q.terms == e.terms and q.div == e.div and (e.const - q.const) % q.div == 0:
                dims[key] = SizeExpr.symbol(n) + (e.const - q.const) // q.div
                break
