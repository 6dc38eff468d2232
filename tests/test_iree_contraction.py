"""Matrix products written as linalg.generic (synth.backends.iree_contraction) packed by
synth.backends.iree_packed: generics of several spellings (doitgen's 3-d by 2-d, an operand
read transposed, the operands given in the other order, an init whose dims interleave
M and N, k between two M dims, k the first loop), run through real IREE at dynamic extents
(1, primes, multiples of the tiles and off by one), static and mixed ones: against NumPy
summing the products in the order of k, and bit for bit against the same program compiled
by IREE unpacked; and the generics that are no such product left alone."""

import numpy as np
import pytest

from synth.backends import iree_packed
from synth.backends.iree import IreeBackend

BODY = {  # the product's body: as the raises write it, and with each op's operands swapped
    "raised": ["%p = arith.mulf %in, %in_0 : T", "%s = arith.addf %out, %p : T"],
    "swapped": ["%p = arith.mulf %in_0, %in : T", "%s = arith.addf %p, %out : T"],
}

# name: (the loops in order, the reduction k last among the letters of x and y, x's dims,
# y's dims, the init's dims, body)
CASES = {
    "doitgen": ("rqsp", "rqp", "ps", "rqs", "raised"),  # A[r, q, p] C4[p, s] (M = r q)
    "a_transposed": ("ijk", "ki", "kj", "ij", "raised"),
    "operands_swapped": ("ijk", "jk", "ik", "ij", "swapped"),  # x is b (given N x K), y is a
    "init_interleaved": ("ijlk", "ilk", "kj", "ijl", "raised"),  # init (i, j, l): M = i l
    "k_between": ("ijnk", "ikj", "nk", "ijn", "raised"),  # a transposed to (i, j, k) first
    "k_first_loop": ("kij", "ik", "kj", "ij", "swapped"),
}
REDUCTION = {"rqsp": "p", "ijk": "k", "ijlk": "k", "ijnk": "k", "kij": "k"}


def _map(loops: str, dims: str) -> str:
    names = ", ".join(f"d{i}" for i in range(len(loops)))
    return f"affine_map<({names}) -> ({', '.join(f'd{loops.index(c)}' for c in dims)})>"


def _tensor(dims: str, extents: dict, t: str = "f64") -> str:
    return "tensor<" + "".join(f"{extents.get(c, '?')}x" for c in dims) + f"{t}>"


def _generic(case: str, spec: tuple, x: str, y: str, c: str, extents: dict, t: str = "f64",
             body: list | None = None) -> tuple:
    """The lines of `%{case}_r = linalg.generic` of `spec` (as CASES) and its operand types."""
    loops, dx, dy, dc, kind = spec
    kinds = ", ".join('"reduction"' if l == REDUCTION.get(loops, "k") else '"parallel"' for l in loops)
    tx, ty, tc = (_tensor(d, extents, t) for d in (dx, dy, dc))
    lines = [f"%{case}_r = linalg.generic {{indexing_maps = [{_map(loops, dx)}, {_map(loops, dy)}, {_map(loops, dc)}],"
             f" iterator_types = [{kinds}]}} ins(%{x}, %{y} : {tx}, {ty}) outs(%{c} : {tc}) {{",
             f"^bb0(%in: {t}, %in_0: {t}, %out: {t}):",
             *(line.replace("T", t) for line in (body or BODY[kind])),
             f"  linalg.yield %s : {t}", f"}} -> {tc}"]
    return lines, (tx, ty, tc)


def program(extents: dict) -> str:
    """@g_raised: each case's generic of its own three arguments, the results returned."""
    params, body, results = [], [], []
    for case in CASES:
        x, y, c = (f"{case}_{v}" for v in "xyc")
        lines, types = _generic(case, CASES[case], x, y, c, extents)
        params += [f"%{v}: {t}" for v, t in zip((x, y, c), types)]
        body += lines
        results.append((f"%{case}_r", types[2]))
    outputs = ", ".join(str(3 * i + 2) for i in range(len(CASES)))
    return (f"func.func @g_raised({', '.join(params)}) -> ({', '.join(t for _, t in results)})"
            f" attributes {{synth.outputs = [{outputs}]}} {{\n  " + "\n  ".join(body)
            + f"\n  return {', '.join(v for v, _ in results)} : {', '.join(t for _, t in results)}\n}}\n")


def _inputs(extents: dict, rng) -> list:
    arrays = []
    for loops, dx, dy, dc, _ in CASES.values():
        arrays += [rng.uniform(-1, 1, [extents[c] for c in d]) for d in (dx, dy, dc)]
    return arrays


def _k_order(loops: str, dx: str, dy: str, dc: str, x, y, c):
    """c plus the products x y summed in the order of k, one product rounded, then the sum."""
    k = REDUCTION[loops]
    acc = c.copy()
    for kk in range(x.shape[dx.index(k)]):
        xs, ys = np.take(x, kk, axis=dx.index(k)), np.take(y, kk, axis=dy.index(k))
        xd, yd = dx.replace(k, ""), dy.replace(k, "")
        acc = acc + np.einsum(f"{xd},{yd}->{dc}", xs, ys)  # one product per element: exact
    return acc


def _check(got, arrays, extents):
    assert len(got) == len(CASES)
    for i, (case, (loops, dx, dy, dc, _)) in enumerate(CASES.items()):
        x, y, c = arrays[3 * i: 3 * i + 3]
        want = _k_order(loops, dx, dy, dc, x, y, c)
        assert got[i].shape == want.shape, (case, extents)
        np.testing.assert_allclose(got[i], want, rtol=1e-12, atol=1e-13, err_msg=f"{case} {extents}")


def _backend(tmp_path):
    backend = IreeBackend("linalg", cache_dir=tmp_path / "iree")
    if not backend.available():
        pytest.skip("IREE is not installed")
    return backend


# extents of the letters: ones, primes, the tiles' multiples (8, 16, 4) and off by one
EXTENTS = [dict(zip("rqspijkln", e)) for e in [(1,) * 9, (3, 5, 7, 2, 7, 13, 5, 3, 11), (2, 4, 17, 16, 8, 16, 16, 4, 8),
                                               (5, 3, 15, 9, 9, 17, 15, 5, 17), (1, 8, 1, 31, 31, 1, 2, 1, 1)]]


def test_each_spelling_is_packed():
    text, count = iree_packed.lower_linalg(program({}), (8, 16, 1))
    assert count == len(CASES) and "linalg.generic" not in text
    assert text.count("call @synth_packed_contraction_") == len(CASES)
    for form in ["", "_at", "_bt"]:  # doitgen's as it is; a read k first; b (operand 0) N x K
        assert f"func.func private @synth_packed_accumulate{form}_f64(" in text
    assert text.count("linalg.transpose") == 3  # k between two M dims; the interleaved init and back
    assert "tensor.collapse_shape %p0 [[0, 1], [2]] : tensor<?x?x?xf64> into tensor<?x?xf64>" in text


def _unpacked(backend, text, monkeypatch):
    """`text` compiled by IREE as it is (the generics unpacked): the bits to match."""
    with monkeypatch.context() as patch:
        patch.setattr(iree_packed, "lower_linalg", lambda source: (source, 0))
        return backend.prepare(text, "g")


def _run_both(backend, text, monkeypatch, runs):
    """Each of `runs` (extents, static letters) through the packed and the unpacked form."""
    rng = np.random.default_rng(21)
    prepared, plain = backend.prepare(text, "g"), _unpacked(backend, text, monkeypatch)
    try:
        assert prepared.rewrites == {"packed-products": len(CASES)} and plain.rewrites is None
        for extents in runs:
            arrays = _inputs(extents, rng)
            got = prepared.run(arrays)
            _check(got, arrays, extents)
            # bit for bit the generic's own sum in the order of k (IREE contracts each
            # multiply and add into one fma in both forms: not NumPy's bits)
            for case, g, w in zip(CASES, got, plain.run(arrays)):
                assert np.array_equal(g, w), (case, extents)
    finally:
        prepared.close()
        plain.close()


@pytest.mark.parametrize("tile", ["host", (8, 4, 1)])
def test_dynamic_contractions_on_iree(tmp_path, monkeypatch, tile):
    if tile != "host":
        monkeypatch.setattr(iree_packed, "tiles", lambda: tile)
    _run_both(_backend(tmp_path), program({}), monkeypatch, EXTENTS)


@pytest.mark.parametrize("run", [0, 1, 2])
def test_static_and_mixed_contractions_on_iree(tmp_path, monkeypatch, run):
    extents, static = [(EXTENTS[1], "rqspijkln"), (EXTENTS[3], "rqspijkln"), (EXTENTS[2], "qsjl")][run]
    _run_both(_backend(tmp_path), program({c: extents[c] for c in static}), monkeypatch, [extents])


def _alone(spec, t="f64", body=None) -> str:
    lines, (tx, ty, tc) = _generic("n", spec, "x", "y", "c", {}, t, body)
    return (f"func.func @n(%x: {tx}, %y: {ty}, %c: {tc}) -> {tc} {{\n  " + "\n  ".join(lines)
            + f"\n  return %n_r : {tc}\n}}\n")


@pytest.mark.parametrize("spec, t, body", [
    (("bijk", "bik", "bkj", "bij", "raised"), "f64", None),  # a batch dim
    (("ijkl", "ikl", "lj", "ij", "raised"), "f64", None),  # l parallel but read by no init dim
    (("ijk", "ik", "kj", "ij", "raised"), "f32", None),
    (("ijk", "ik", "kj", "ij", "raised"), "f64", ["%p = arith.mulf %in, %in_0 : T", "%s = arith.subf %out, %p : T"]),
    (("ijk", "ik", "kj", "ij", "raised"), "f64", ["%p = arith.mulf %in, %in : T", "%s = arith.addf %out, %p : T"]),
    (("ijk", "ik", "kj", "ij", "raised"), "f64",
     ["%p = arith.mulf %in, %in_0 fastmath<contract> : T", "%s = arith.addf %out, %p : T"]),
    (("ijk", "ik", "kj", "ij", "raised"), "f64", ["%p = arith.mulf %in, %in_0 : T", "%s = arith.addf %p, %p : T"]),
])
def test_other_generics_are_left_alone(spec, t, body):
    assert iree_packed.lower_linalg(_alone(("ijk", "ik", "kj", "ij", "raised")))[1] == 1  # the product itself
    assert iree_packed.lower_linalg(_alone(spec, t, body))[1] == 0


def test_two_reductions_are_left_alone():
    kinds = '["parallel", "parallel", "reduction", "reduction"]'
    text = _alone(("ijkl", "ikl", "klj", "ij", "raised")).replace(
        '["parallel", "parallel", "parallel", "parallel"]', kinds).replace(
        '["parallel", "parallel", "reduction", "parallel"]', kinds)
    assert kinds in text and iree_packed.lower_linalg(text)[1] == 0
