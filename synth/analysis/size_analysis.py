"""The size analysis of a kernel (analyze_sizes): its size symbols, what each array's
dims and each loop's bounds are in them, the constraints that keep every access within
its array, and the loops kept as loops; the result is a synth.analysis.sizes.SizeModel."""

from __future__ import annotations

from mlir import ir

from synth.errors import InputError
from synth.frontend.reader import diagnostic_location
from synth.analysis.symbols import SizeExpr

from synth.analysis.c_extents import declared_by_c as _declared_by_c, take_front_end_extent
from synth.analysis.collect import SIZE_TYPES, SMALL_CONSTANT, Collector, Lin

from synth.analysis.loop_roles import carries_dependence, reads_inputs_only, updates_in_place
from synth.analysis.reach import check_own_sizes, fit as _fit, guarded_extreme, reach_past as _reach_past, \
    caps as _caps, check_quotients, furthest, param_bounds, quotients, requotient, single_size, \
    unread_bounds, unquotient
from synth.analysis.sizes import COUNTER, COUNTER_ATTR, MAX_OFFSET, SizeModel, Symbol


def _short_of(col, key: tuple, dims: dict, extreme, sym_form, stepped: dict) -> None:
    """A dynamic extent a loop's parameter voted for that every access stays a constant
    short of (`y[i]`, i < n - 1: the C's y holds n - 1 elements) is what they reach: the
    raise never takes (nor the drop-in passes) elements past the C's array. Not through a
    loop with a step (`k < n` step 2 reaches n - 2 only where n is even: the extent n
    holds at every n)."""
    arr, d = key
    highs = []
    for acc in col.accesses:
        if acc.array != arr or d >= len(acc.forms):
            continue
        if acc.forms[d] is None or any(k[1] in stepped for k in acc.forms[d].ivs):
            return
        hi = extreme(sym_form(acc.forms[d], (acc.op_index, "map", d)), True)
        if hi is None:
            return
        highs.append(hi.add(Lin({}, 1)).size_expr())
    if not highs:
        return
    gaps = [dims[key] - h if h.div == 1 and dims[key].div == 1 else None for h in highs]
    if any(g is None or not g.is_constant for g in gaps):
        return
    least = min(g.const for g in gaps)
    if least > 0:
        dims[key] = highs[[g.const for g in gaps].index(least)]


def _relate(c: int, preferred: list[SizeExpr], symbols: dict[str, Symbol],
            anyone: bool = True) -> SizeExpr | None:
    """An expression of the symbols whose original value is c: a preferred one first
    (exact, minus/plus an offset, halved), then (`anyone`) any symbol."""
    values = {n: s.value for n, s in symbols.items()}
    everyone = [SizeExpr.symbol(n) for n in sorted(symbols, key=lambda n: (symbols[n].kind != "extent", n))]
    everyone = everyone if anyone else []
    for group in (preferred, everyone):
        for e in group:
            if e.at(values) == c:
                return e
        for k in range(1, MAX_OFFSET + 1):
            for e in group:
                if e.at(values) - k == c:
                    return e - k
                if e.at(values) + k == c:
                    return e + k
        for e in group:
            if e.is_constant or e.div != 1:
                continue
            if e.at(values) // 2 == c and c >= SMALL_CONSTANT:
                return e.floordiv(2)
    return None


def _strided_count(c: int, strided: list[tuple[SizeExpr, int]], symbols: dict[str, Symbol]) -> SizeExpr | None:
    """The trip count c of a loop renumbered by its step k as the extent e of a dim it
    reaches at k * iv: ceil(e / k) (every k-th element from the first), else floor(e / k)."""
    values = {n: s.value for n, s in symbols.items()}
    for e, k in strided:
        if e.div != 1 or not e.terms or any(n not in values or values[n] < 0 for n, _ in e.terms):
            continue
        for cand in ((e + (k - 1)).floordiv(k), e.floordiv(k)):
            if cand.at(values) == c and c >= SMALL_CONSTANT:
                return cand
    return None


def _access_form(col: Collector, site) -> Lin | None:
    """The form of the access index a map site is the constant of."""
    acc = next((a for a in col.accesses if a.op_index == site.key[0]), None)
    return acc.forms[site.key[2]] if acc is not None else None


def _runs_over(col: Collector, site, extent: SizeExpr, decided: dict, counter) -> bool:
    """Whether the index of a "reversed" site (`-i + c`) runs over its whole dim: its loop
    from 0 to the dim's extent (C's `for (i = m - 1; i >= 0; i--)`), or the counter of a
    loop kept as a loop (which such a loop became); a fixed `h[3 - k]`, k < 4, of a longer
    or equal h stays literal."""
    form = _access_form(col, site)
    if form is None or len(form.terms) != 1:
        return False
    (key,) = form.terms
    if key[0] == "p":
        return key[1] == counter
    loop = col.loop_list[key[1]]
    lb = loop.lbs[0] if len(loop.lbs) == 1 else None
    return lb is not None and not lb.terms and lb.const == 0 and len(loop.ubs) == 1 \
        and decided.get((loop.op_index, "upperBoundMap", 0)) == extent


def _kernel_extent(extents: SizeModel | None, arr: tuple, d: int, extent: int) -> SizeExpr | None:
    """The expression of the kernel this function is a part of (`extents`) for a static
    dim of one of its arguments, where it names sizes and has the dim's value; else None."""
    if extents is None or arr[0] != "arg" or extent < SMALL_CONSTANT:
        return None
    known = extents.arg_dims.get(arr[1], ())
    if d >= len(known) or not known[d].symbols or not set(known[d].symbols) <= set(extents.symbols):
        return None
    values = {n: extents.symbols[n].value for n in known[d].symbols}
    if any(v < 0 for v in values.values()) or known[d].at(values) != extent:
        return None
    return known[d]


def analyze_sizes(path: str, func, extents: SizeModel | None = None) -> SizeModel:
    """The size model of a function in normal form (see synth.frontend.normalize).
    `extents`: the model of a kernel this function is a part of (its arguments the
    kernel's, in order: synth.synthesis.steps), whose extents are taken for a dynamic dim
    no access of the part reaches (the statements before a loop, reading no array)."""
    name = func.attributes["sym_name"].value
    location = diagnostic_location(path, func.location)
    block = func.regions[0].blocks[0]
    col = Collector(path, func, block)
    col.run()
    ftype = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    arg_types = list(ftype.inputs)
    counter = _counter_argument(func)

    # arrays and their static extents
    arrays: dict[tuple, tuple] = {}  # array -> shape (None for dynamic dims)
    for i, t in enumerate(arg_types):
        if isinstance(t, ir.MemRefType) or str(t).startswith("memref<"):
            mt = ir.MemRefType(t)
            arrays[("arg", i)] = tuple(None if mt.is_dynamic_dim(d) else mt.shape[d] for d in range(mt.rank))
    for index, op in col.allocs.items():
        mt = ir.MemRefType(op.results[0].type)
        if len(op.operands):
            raise InputError("a local allocation with dynamic sizes is not supported", col.where(op))
        arrays[("alloc", index)] = tuple(mt.shape)

    # -- parameters: each loop index bound to one size parameter, votes per array dim
    iv_param: dict[int, int] = {}
    for loop in col.loop_list:
        params = set()
        for form in param_bounds(loop):
            if form is None:
                continue
            ps = [k[1] for k in form.terms if isinstance(k, tuple) and k[0] == "p" and k[1] != counter]
            if len(ps) == 1 and not [k for k in form.terms if isinstance(k, tuple) and k[0] == "iv"]:
                params.add(ps[0])
        if not params:  # a bound of an outer index (triangular) inherits its parameter
            for form in loop.ubs + loop.lbs:
                for k in (form.terms if form else ()):
                    if isinstance(k, tuple) and k[0] == "iv" and k[1] in iv_param:
                        params.add(iv_param[k[1]])
        if len(params) == 1:
            iv_param[loop.id] = params.pop()
    votes: dict[tuple, dict[int, int]] = {}
    indexed: set[tuple] = set()  # (array, dim) indexed by some loop index
    looked_up: set[tuple] = set()  # (array, dim) read at an index from data (a table: its extent kept)
    for acc in col.accesses:
        for d, form in enumerate(acc.forms):
            if form is None:
                (looked_up if acc.data_index(d) else indexed).add((acc.array, d))
                continue
            ivs = [k[1] for k in form.terms if isinstance(k, tuple) and k[0] == "iv"]
            if ivs or (counter is not None and ("p", counter) in form.terms):
                indexed.add((acc.array, d))  # by a loop index or the counter of a loop kept
            ps = {iv_param[i] for i in ivs if i in iv_param}
            ps |= {k[1] for k in form.terms if isinstance(k, tuple) and k[0] == "p"} if not ivs else set()
            ps.discard(counter)
            # a dynamic extent is voted for only by a subscript whose every loop index is bounded by
            # a parameter (moving_average's in[i + k], i < n - w + 1, k < w: not w; reach decides)
            partial = any(i not in iv_param for i in ivs) and arrays.get(acc.array, ()) \
                and d < len(arrays[acc.array]) and arrays[acc.array][d] is None
            if len(ps) == 1 and not partial:
                tally = votes.setdefault((acc.array, d), {})
                p = ps.pop()
                tally[p] = tally.get(p, 0) + 1
    dim_param = {key: max(t.items(), key=lambda kv: kv[1])[0] for key, t in votes.items()}

    symbols: dict[str, Symbol] = {}
    params: dict[int, str] = {}
    used_params = set(col.used_params)
    if extents is not None:  # a size of the kernel this is a part of, used here as a value
        # (adi's time step count in its coefficients, the time loop left out): a size still
        used_params |= {p for p in extents.params if p < len(block.arguments) and str(arg_types[p]) in SIZE_TYPES
                        and any(True for _ in block.arguments[p].uses)}
    # a parameter's value: the largest every static dim voted for it holds, with what its
    # accesses reach past it (`j <= n` on `e[N + 1]`: e's dim is n + 1, n is N)
    reach = _reach_past(col, arrays, dim_param, counter)
    for p in sorted(used_params - {counter}):
        value = _fit(p, [k for k, q in sorted(dim_param.items()) if q == p and k in reach], arrays, reach, block)
        params[p] = f"arg{p}"
        symbols[f"arg{p}"] = Symbol(f"arg{p}", value if value is not None else -1, "parameter",
                                    f"argument #{p}")
    # integer arguments used nowhere (Polygeist's size arguments with constant bounds);
    # those used only in data computations are data scalars, not sizes
    unused = [i for i, t in enumerate(arg_types) if str(t) in SIZE_TYPES and i not in used_params
              and not any(True for _ in block.arguments[i].uses) and i != counter]
    # the counter is a name in the forms (sym_form), never a symbol: no value of its own
    form_names = {**params, **({counter: COUNTER} if counter is not None else {})}

    # -- extents
    dims: dict[tuple, SizeExpr | None] = {}
    products: dict[str, tuple] = {}  # product symbols (an image's sw * sh): synth.analysis.c_extents
    for arr, shape in arrays.items():
        for d, extent in enumerate(shape):
            key = (arr, d)
            if key in dim_param:
                n = params[dim_param[key]]  # the furthest reach at its value (p where none is past it)
                a, c, _ = max(reach.get(key, [(1, 0, None)]), key=lambda r: (r[0] * symbols[n].value + r[1], -r[0]))
                dims[key] = SizeExpr.symbol(n) * a + c
            elif extent is None:
                dims[key] = None  # from the accesses, below
            elif extent > 1 and key in indexed and key not in looked_up:
                n = f"n{extent}"
                symbols.setdefault(n, Symbol(n, extent, "extent", f"extent {extent}"))
                dims[key] = SizeExpr.symbol(n)
            elif (known := _kernel_extent(extents, arr, d, extent)) is not None:
                # a part that does not index the dim (adi's boundary `v[i][999] = 1` of a
                # distributed sweep): the kernel's extent, so that an index near its end is
                # related to it as in the kernel (999 = n1000 - 1), not kept literal
                dims[key] = known
                for n in known.symbols:
                    symbols.setdefault(n, extents.symbols[n])
            else:
                dims[key] = SizeExpr.constant(extent)

    # -- map constants: loop bounds first (they may create symbols), then indices and offsets
    decided: dict[tuple, SizeExpr] = {}
    used_symbols: set[str] = set()

    def preferred_for_loop(loop_id: int) -> list[SizeExpr]:
        out = []
        for acc in col.accesses:
            for d, form in enumerate(acc.forms):
                if form is not None and form.terms.get(("iv", loop_id)) in (1, -1):
                    e = dims.get((acc.array, d))
                    if e is not None and e not in out:
                        out.append(e)
        return out

    def strided_for_loop(loop_id: int) -> list[tuple[SizeExpr, int]]:
        """(extent, k) of the dims an access reaches at k * iv (k > 1): a loop renumbered
        by its step (`for (i = 0; i < n; i += 3)` as i' < (n + 2) / 3, `a[3 * i']`)."""
        out = []
        for acc in col.accesses:
            for d, form in enumerate(acc.forms):
                k = form.terms.get(("iv", loop_id)) if form is not None else None
                e = dims.get((acc.array, d))
                if k is not None and k > 1 and e is not None and (e, k) not in out:
                    out.append((e, k))
        return out

    for site in col.sites:
        if site.context not in ("ub", "lb") or not site.pure:
            continue
        c = site.value
        if site.context == "lb" and c < SMALL_CONSTANT:
            continue
        if site.context == "ub" and c < 2:
            continue
        e = _relate(c, preferred_for_loop(site.iv_loop), symbols)
        if e is None and site.context == "ub":
            e = _strided_count(c, strided_for_loop(site.iv_loop), symbols)
        if e is None:
            if site.context == "lb":
                raise InputError(f"loop lower bound {c} is not a size synth can relate to the "
                                 f"kernel's array extents", site.location)
            n = f"n{c}"
            symbols.setdefault(n, Symbol(n, c, "bound", f"loop bound {c} at {site.location}"))
            e = SizeExpr.symbol(n)
        decided[site.key] = e
        used_symbols |= set(e.symbols)

    def downward_ranges(form: Lin) -> list[SizeExpr]:
        """For a form that runs down as its loop indices run up (collect._runs_down): the
        sizes its constant may be less a few: the upper bounds of those loops, then the
        extents they index."""
        out = []
        for key in form.terms:
            if key[0] == "iv":
                e = decided.get((col.loop_list[key[1]].op_index, "upperBoundMap", 0))
                if e is not None and len(col.loop_list[key[1]].ubs) == 1 and e not in out:
                    out.append(e)
        for key in form.terms:
            if key[0] == "iv":
                out += [e for e in preferred_for_loop(key[1]) if e not in out]
        return out

    # a small bound of a loop nested in one it runs down from (`-i + 6`, i < n7): the outer range
    # less a few (n7 - 1), so that the nest keeps its shape at other sizes; literal elsewhere
    for site in col.sites:
        if site.context in ("reversed ub", "reversed lb"):
            loop = col.loop_list[site.iv_loop]
            form = (loop.ubs if site.context == "reversed ub" else loop.lbs)[site.key[2]]
            e = _relate(site.value, downward_ranges(form) + [
                x for x in preferred_for_loop(site.iv_loop) if x not in downward_ranges(form)],
                symbols, anyone=False)
            if e is not None:
                decided[site.key] = e
                used_symbols |= set(e.symbols)

    # loops as forms over symbols (params by name, constants by their decided expressions)
    floordiv_symbols: dict[str, SizeExpr] = quotients(col, form_names)  # a symbol for a floordiv of sizes (n / 2)
    products.update({n: ((tuple(sorted(form_names[p] for p in ps)), 1),) for n, ps in col.products.items()
                     if all(p in form_names for p in ps)})  # ... for a product (n * k)

    def sym_form(form: Lin | None, key: tuple | None, floordivs: bool = False) -> Lin | None:
        """`form` over size symbols; a constant decided as a floordiv (12 = n24 / 2) makes
        it None, or (`floordivs`, for the bounds checks) a term of its own symbol."""
        if form is None:
            return None
        terms = {}
        for k, c in form.terms.items():
            if isinstance(k, tuple) and k[0] == "p":
                terms[form_names[k[1]]] = terms.get(form_names[k[1]], 0) + c
            else:
                terms[k] = c
        out = Lin(terms, form.const)
        if key is not None and key in decided:  # the map's own constant is a size
            e = decided[key]
            # the site's constant is part of form.const; swap it for the expression
            site_c = next(s.value for s in col.sites if s.key == key)
            if e.div == 1:
                out = Lin(out.terms, out.const - site_c).add(Lin(dict(e.terms), e.const))
            elif floordivs:
                floordiv_symbols[str(e)] = e
                out = Lin(out.terms, out.const - site_c).add(Lin({str(e): 1}, 0))
            else:
                out = None
        return out

    def loop_bounds(floordivs: bool) -> dict[int, tuple[list, list]]:
        out = {}
        for loop in col.loop_list:
            lbs = [sym_form(f, (loop.op_index, "lowerBoundMap", r), floordivs) for r, f in enumerate(loop.lbs)]
            ubs = [sym_form(f, (loop.op_index, "upperBoundMap", r), floordivs) for r, f in enumerate(loop.ubs)]
            out[loop.id] = (lbs, ubs)
        return out

    bounds = loop_bounds(False)
    checked_bounds = loop_bounds(True)  # with floordivs of sizes as symbols of their own

    # loops with a step above 1 whose span is a multiple of it (where the sizes are known):
    # their last index is the upper bound less the step
    stepped: dict[int, int] = {}
    congruences = []
    known_values = {n: s.value for n, s in symbols.items() if s.value >= 0}
    for loop in col.loop_list:
        lbs, ubs = bounds[loop.id]
        if loop.step <= 1 or len(lbs) != 1 or len(ubs) != 1 or lbs[0] is None or ubs[0] is None \
                or lbs[0].ivs or ubs[0].ivs or COUNTER in lbs[0].terms | ubs[0].terms:
            continue
        span = ubs[0].size_expr() - lbs[0].size_expr()
        if span.is_constant or not all(n in known_values or symbols.get(n, Symbol(n, -1, "", "")).value < 0
                                       for n in span.symbols):
            continue
        if all(n in known_values for n in span.symbols) and span.at(known_values) % loop.step:
            continue
        stepped[loop.id] = loop.step
        congruences.append((span, loop.step, f"loop at {loop.location}"))

    def extreme(form: Lin, upper: bool, depth: int = 0, bounds=bounds) -> Lin | None:
        """An upper (lower) bound of `form` over the loop indices, as a symbol form."""
        if form is None or depth > 64:
            return None
        ivs = form.ivs
        if not ivs:
            return form
        key = max(ivs, key=lambda k: k[1])  # innermost first: its bounds may use outer ones
        coeff = form.terms[key]
        lbs, ubs = bounds[key[1]]
        take_upper = (coeff > 0) == upper
        options = ubs if take_upper else lbs
        options = [o for o in options if o is not None]
        if not options:
            return None
        pure = [o for o in options if not o.ivs]
        choice = single_size(pure, col.loop_list[key[1]], take_upper, block) if pure else options[0]
        if take_upper:
            choice = choice.add(Lin({}, -stepped.get(key[1], 1)))
        rest = Lin({k: v for k, v in form.terms.items() if k != key}, form.const)
        return extreme(rest.add(choice, coeff), upper, depth + 1, bounds)

    # static extents no loop bound equals: a sum of other sizes (a FIR's longer input)
    for n, s in list(symbols.items()):
        if s.kind != "extent" or n in used_symbols:
            continue
        keys = [k for k, e in dims.items() if e == SizeExpr.symbol(n)]
        orig = {m: t.value for m, t in symbols.items()}
        derived = None
        for (arr, d) in keys:
            for acc in col.accesses:
                if acc.array != arr:
                    continue
                form = acc.forms[d]
                hi = extreme(sym_form(form, None), True)
                if hi is None:
                    continue
                r = hi.add(Lin({}, 1)).size_expr()
                # a strided access (x[2 * i]) reaches to within its stride of the end
                stride = max((abs(c) for k, c in form.terms.items() if isinstance(k, tuple) and k[0] == "iv"),
                             default=1)
                if r.symbols and n not in r.symbols and all(x in orig for x in r.symbols) \
                        and 0 <= s.value - r.at(orig) < stride:
                    derived = r + (s.value - r.at(orig))  # the accesses cover the array: its extent is theirs
        if derived is not None:
            for k in keys:
                dims[k] = derived
            del symbols[n]

    # indices and offsets
    for site in col.sites:
        if site.key in decided or site.context in ("ub", "lb"):
            continue
        c = site.value
        if site.context == "reversed":  # the extent of its dim less a few, or literal
            extent = dims.get(site.array_dim)
            sized = extent is not None and not extent.is_constant and extent.div == 1
            form = _access_form(col, site)
            if form is not None and len(form.terms) > 1:  # `-i - j + 5`: the extent or
                # the loops' ranges less a few
                e = _relate(c, ([extent] if sized else []) + downward_ranges(form), symbols, anyone=False)
            else:
                e = _relate(c, [extent], symbols, anyone=False) \
                    if sized and _runs_over(col, site, extent, decided, counter) else None
        elif site.context == "index":
            pref = [dims[site.array_dim]] if site.array_dim in dims else []
            e = _relate(c, pref, symbols) if c >= SMALL_CONSTANT else None
            if e is None and c >= SMALL_CONSTANT:
                raise InputError(f"constant index {c} cannot be related to the sizes of the "
                                 f"kernel (it is not near an extent)", site.location)
        else:  # offset: relate its magnitude
            e = _relate(abs(c), [], symbols)
            if e is not None and c < 0:
                e = -e
        if e is not None:
            decided[site.key] = e

    # static extents no loop index runs over (`A[0, i]` of a 24x24 A): a size where their
    # value is one (or within MAX_OFFSET of one), as a raised module's sizes are read
    # (synth.semantics.raised_text.map_size); small ones stay literal
    for key, e in dims.items():
        if e is not None and e.is_constant and e.const >= SMALL_CONSTANT and symbols:
            r = _relate(e.const, [], symbols)
            if r is not None and r.div == 1:
                dims[key] = r

    # dynamic extents: what the accesses reach
    for key, e in list(dims.items()):
        if e is not None:
            continue
        arr, d = key
        reach = []
        for acc in col.accesses:
            if acc.array == arr and d < len(acc.forms):
                hi = guarded_extreme(acc, sym_form(acc.forms[d], (acc.op_index, "map", d)), True, extreme, sym_form, known_values)
                if hi is not None:
                    reach.append(hi.add(Lin({}, 1)).size_expr())
        known = extents.arg_dims.get(arr[1], ()) if extents is not None and arr[0] == "arg" else ()
        if not reach and d < len(known) and set(known[d].symbols) <= set(extents.symbols):
            dims[key] = known[d]  # the kernel's extent: this part does not access the dim
            for n in known[d].symbols:
                symbols.setdefault(n, extents.symbols[n])
            continue
        if not reach and (c_ext := take_front_end_extent(func, block, key, params, symbols, unused, counter,
                                                         products)):
            dims[key] = c_ext  # an index by division or from data: the extent the C front end read
            continue
        if not reach:
            where = f"argument #{arr[1]}" if arr[0] == "arg" else "a local buffer"
            raise InputError(f"the extent of dimension {d} of {where} is dynamic and no loop index reaches "
                             f"it; synth needs to know every array's size (an array read only at indices "
                             f"computed from data or by integer division, a table, takes its sizes from "
                             f"--size NAME=VALUE){unread_bounds(col)}", location)
        dims[key] = unquotient(furthest(reach, {n: s.value for n, s in symbols.items()}), floordiv_symbols)

    # dynamic extents a loop's parameter voted for (`t <= pos`: pos) that an access reaches
    # past (att[t] reaches pos + 1, rgb[3 * i + 2] 3 * n): what the accesses reach. A static raise
    # reads extents from the types; a generic one would otherwise have no sizes at which
    # every access stays within its array
    for key in sorted(k for k in dim_param if arrays.get(k[0]) and arrays[k[0]][k[1]] is None):
        arr, d = key
        if not (arr[0] == "arg" and _declared_by_c(func, arr[1], d)):  # a declared extent stays
            _short_of(col, key, dims, extreme, sym_form, stepped)
        for acc in col.accesses:
            if acc.array != arr or d >= len(acc.forms):
                continue
            hi = guarded_extreme(acc, sym_form(acc.forms[d], (acc.op_index, "map", d)), True, extreme, sym_form, known_values)
            if hi is None:
                continue
            reach = hi.add(Lin({}, 1)).size_expr()
            past = reach - dims[key] if reach.div == 1 and dims[key].div == 1 else None
            # past by a constant, or by a multiple of its sizes (`inptr[3 * col + 2]`, col <
            # n: 3 * n), at every size from 1 on
            if past is not None and set(past.symbols) <= set(dims[key].symbols) and past != SizeExpr() \
                    and all(c > 0 for _, c in past.terms) and past.const + sum(c for _, c in past.terms) >= 0:
                dims[key] = reach

    check_quotients(dims, floordiv_symbols, location, block, set(params.values()))
    requotient(dims, floordiv_symbols)
    # -- constraints: every access within its array, loops that run
    constraints = []
    nonempty = []
    for acc in col.accesses:
        shape_exprs = [dims.get((acc.array, d)) for d in range(len(acc.forms))]
        for d, form in enumerate(acc.forms):
            f = sym_form(form, (acc.op_index, "map", d), True)  # with its size constants as sizes
            ext = shape_exprs[d]
            if f is None or ext is None:
                continue
            hi, lo = (guarded_extreme(acc, f, u, extreme, sym_form, known_values, bounds=checked_bounds)
                      for u in (True, False))
            what = f"access at {acc.location}, dim {d}"
            if hi is not None and all(isinstance(k, str) and k != COUNTER for k in hi.terms):
                constraints.append((Lin(dict(hi.terms), hi.const + 1).size_expr(), ext, what))
            if lo is not None and all(isinstance(k, str) and k != COUNTER for k in lo.terms):
                constraints.append((SizeExpr.constant(0), lo.size_expr(), what))
    # an access guarded by an affine.if may look out of bounds to this interval analysis;
    # what the kernel's own sizes violate is such an over-approximation: dropped (unless
    # the access does run past its array at those sizes: the input's fault, said here)
    try:
        orig = {n: s.value for n, s in symbols.items()}
        if all(v >= 0 for v in orig.values()):
            orig |= {n: e.at(orig) for n, e in floordiv_symbols.items()}
            if any(c[0].at(orig) > c[1].at(orig) for c in constraints):
                check_own_sizes(col, arrays, {k: orig[n] for k, n in params.items()}, block)
            constraints = [c for c in constraints if c[0].at(orig) <= c[1].at(orig)]
    except KeyError:
        pass
    for loop in col.loop_list:
        lbs, ubs = bounds[loop.id]
        if len(lbs) == 1 and len(ubs) == 1 and lbs[0] is not None and ubs[0] is not None \
                and not lbs[0].ivs and not ubs[0].ivs and COUNTER not in lbs[0].terms | ubs[0].terms:
            nonempty.append((lbs[0].size_expr(), ubs[0].size_expr()))

    # -- iteration spaces of the statements
    trips: dict[int, SizeExpr] = {}
    ranges: dict[str, tuple[SizeExpr, SizeExpr]] = {}
    for loop in col.loop_list:
        lbs, ubs = bounds[loop.id]
        if len(lbs) == 1 and len(ubs) == 1 and lbs[0] is not None and ubs[0] is not None \
                and not lbs[0].ivs and not ubs[0].ivs and loop.step == 1 \
                and not (COUNTER in lbs[0].terms | ubs[0].terms
                         or set(ubs[0].terms) & (set(col.quotients) | set(col.products))):
            trips[loop.id] = ubs[0].size_expr() - lbs[0].size_expr()
            ranges[loop.location] = (lbs[0].size_expr(), ubs[0].size_expr())
    nests = [tuple(trips[i] for i in loops if i in trips) for loops in col.store_loops]

    # -- loops whose index nothing uses
    repeat, time, time_trips, updates = [], [], [], []
    for loop in col.loop_list:
        trip = trips.get(loop.id)
        if trip is not None and trip.is_constant and trip.const == 1:
            continue  # a loop that runs once repeats nothing (a time loop's step, synth.synthesis.steps)
        used = any(True for _ in loop.iv.uses)
        if used and not reads_inputs_only(col, loop):
            continue
        if not used:
            repeat.append(loop.location)
        if carries_dependence(col, loop):
            time.append(loop.location)
            time_trips.append(trip)
        elif not used and updates_in_place(col, loop):
            updates.append((loop.location, trip))

    arg_dims = {i: tuple(dims[(("arg", i), d)] for d in range(len(shape)))
                for (kind, i), shape in arrays.items() if kind == "arg"}
    alloc_dims = {i: tuple(dims[(("alloc", i), d)] for d in range(len(shape)))
                  for (kind, i), shape in arrays.items() if kind == "alloc"}
    return SizeModel(name, location, symbols, params, unused, arg_dims, alloc_dims, decided,
                     constraints, nonempty, nests, repeat, time, floordiv_symbols, time_trips, ranges,
                     counter, updates=updates, congruences=congruences, caps=_caps(col, bounds, extreme),
                     products=products)


def _counter_argument(func) -> int | None:
    """The index of the argument marked COUNTER_ATTR, if any."""
    if "arg_attrs" not in func.attributes:
        return None
    for k, d in enumerate(ir.ArrayAttr(func.attributes["arg_attrs"])):
        if COUNTER_ATTR in ir.DictAttr(d):
            return k
    return None
