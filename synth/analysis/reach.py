"""How far past a size parameter its accesses reach (synth.analysis.size_analysis).

A C kernel that takes `int n` and declares its arrays `double e[N + 1][N + 1]` (Knuth's
optimal binary search tree, many DP codes: `for (j = i; j <= n; j++)`) needs extent n + 1,
not n: the parameter's value is the largest under which every access stays within its
array (N here), and the dim is the furthest reach (n + 1), so the kernel is run, tested
and proven at sizes where the original stays within its arrays."""

from __future__ import annotations

from synth.errors import InputError
from synth.analysis.collect import _Collector, _Lin


def reach_past(col: _Collector, arrays: dict, dim_param: dict, counter) -> dict[tuple, tuple]:
    """For each static dim voted for a size parameter p: the furthest its accesses reach,
    as the list of (a, c, where) of each extent a * p + c one needs, read from the loops' bounds and the
    subscripts (`for (j = i; j <= n; j++) e[i][j]`: (1, 1), e's dim is n + 1;
    `a[i] + a[n + i]`, i < n: (2, 0)); (1, 0) where they reach no further than p. A
    reach that is no such form (other sizes in it) leaves the dim to the extents."""
    out: dict[tuple, tuple] = {}
    for key, p in dim_param.items():
        arr, d = key
        if not arrays.get(arr) or arrays[arr][d] is None:
            continue
        out[key] = [(1, 0, None)]
        for acc in col.accesses:
            if acc.array != arr or d >= len(acc.forms) or acc.forms[d] is None:
                continue
            hi = raw_extreme(col, acc.forms[d], True)
            if hi is None or set(hi.terms) != {("p", p)} or hi.terms[("p", p)] < 1:
                continue
            out[key].append((hi.terms[("p", p)], hi.const + 1, acc.location))
    return out


def fit(p: int, keys: list, arrays: dict, reach: dict) -> int | None:
    """The largest value of size parameter p under which every static dim voted for it
    holds what its accesses reach (None: no such dim); an InputError where none does."""
    fits = []
    for (arr, d), a, c, where in ((k, *r) for k in keys for r in reach[k]):
        extent = arrays[arr][d]
        fits.append((extent - c) // a)
        if fits[-1] < 1:
            n = f"{a} * arg{p}" if a > 1 else f"arg{p}"
            raise InputError(f"no value of size argument #{p} (arg{p}) keeps this access within its "
                             f"array: it reaches index {n} + {c - 1}, past the extent {extent} at "
                             f"every arg{p} >= 1; give the size with --size NAME=VALUE (NAME the "
                             f"parameter's name)", where)
    return min(fits) if fits else None


def raw_extreme(col: _Collector, form: _Lin, upper: bool, depth: int = 0) -> _Lin | None:
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
        choice = choice.add(_Lin({}, -loop.step))
    rest = _Lin({k: v for k, v in form.terms.items() if k != key}, form.const)
    return raw_extreme(col, rest.add(choice, coeff), upper, depth + 1)
