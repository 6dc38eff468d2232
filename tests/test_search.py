"""The enumerator on small synthetic problems: residual targets, masked updates,
observational equivalence, and running out of program sizes."""

import numpy as np

from synth.grammar.op import ops_for
from synth.grammar.types import SearchContext, TensorType
from synth.synthesis.program import cost as program_cost
from synth.synthesis.search import Problem, SearchSettings, search

F = "f64"


def _problem(inputs: dict[int, np.ndarray], fn, output: int | None = None, ops=None, n_examples=2):
    rng = np.random.default_rng(3)
    examples = []
    for _ in range(n_examples):
        examples.append({i: rng.uniform(-1, 1, a.shape) if a.ndim else np.asarray(rng.uniform(0.5, 2))
                         for i, a in inputs.items()})
    outs = [fn(e) for e in examples]
    types = {i: TensorType(a.shape, F) for i, a in inputs.items()}
    out_type = TensorType(outs[0].shape, F)
    shapes = frozenset(t.shape for t in types.values()) | {out_type.shape}
    return Problem("synthetic", types, examples, outs, out_type,
                   SearchContext(shapes, (0.0, 1.0), (F,)), ops or ops_for("stablehlo"), output)


def test_residual_target_finds_one_op_more_than_the_size_bound():
    # C + A @ B is two ops; with sizes bounded at 1 the residual target - C is A @ B
    p = _problem({0: np.zeros((3, 5)), 1: np.zeros((3, 4)), 2: np.zeros((4, 5))},
                 lambda e: e[0] + e[1] @ e[2], output=0)
    found, stats = search(p, SearchSettings(max_size=1, timeout=30))
    assert found is not None and str(found).replace("add(arg0, ", "add(").startswith("add(dot_general(arg1, arg2")
    assert stats.size_reached == 1


def test_a_value_that_is_the_target_with_unit_dims_solves_it_reshaped():
    # doitgen's sum: the last row of a 3-d array (stablehlo's slice_edge keeps the rank:
    # 1x1xN) times a matrix; reshape(dot_general(...)) is found at size 2, one op larger
    names = ("slice_edge", "dot_general", "reshape", "multiply", "add", "transpose")
    ops = tuple(op for op in ops_for("stablehlo") if op.name.split(".", 1)[1] in names)
    p = _problem({0: np.zeros((3, 4, 5)), 1: np.zeros((5, 5))}, lambda e: e[0][-1, -1, :] @ e[1], ops=ops)
    found, stats = search(p, SearchSettings(max_size=2, timeout=60))
    assert found is not None and found.op.name == "stablehlo.reshape", found
    assert stats.size_reached == 2 and stats.solution_size == 3
    for ex, want in zip(p.examples_in, p.examples_out):
        np.testing.assert_allclose(found.op.evaluate([_eval_args(found, ex)[0]], found.attrs), want)


def test_masked_update_searches_only_the_changed_positions():
    # only the lower triangle changes: update = C * A there; old C elsewhere
    mask = np.tri(4, dtype=bool)
    p = _problem({0: np.zeros((4, 4)), 1: np.zeros((4, 4))},
                 lambda e: np.where(mask, e[0] * e[1], e[0]), output=0)
    found, _ = search(p, SearchSettings(max_size=1, timeout=30))
    assert found is not None
    assert str(found).startswith("select(compare(iota") and "multiply(arg0, arg1)" in str(found)
    values = [found.op.evaluate([np.asarray(x) for x in _eval_args(found, ex)], found.attrs)
              for ex in p.examples_in]
    for got, want in zip(values, p.examples_out):
        np.testing.assert_allclose(got, want)


def _eval_args(expr, env):
    out = []
    for a in expr.args:
        if a.op is None:
            out.append(env[a.leaf])
        else:
            out.append(a.op.evaluate(_eval_args(a, env), a.attrs))
    return out


def test_linalg_masked_update_uses_select_index():
    mask = np.tri(4, k=-1, dtype=bool)  # strictly lower
    p = _problem({0: np.zeros((4, 4)), 1: np.zeros((4, 4))},
                 lambda e: np.where(mask, e[0] + e[1], e[0]), output=0, ops=ops_for("linalg"))
    found, _ = search(p, SearchSettings(max_size=2, timeout=30))
    assert found is not None and found.op.name == "linalg.select_index"


def test_no_program_within_the_size_bound():
    # a prefix sum is not a small program of the grammar
    p = _problem({0: np.zeros((6,))}, lambda e: np.cumsum(e[0]))
    found, stats = search(p, SearchSettings(max_size=2, timeout=30))
    assert found is None and stats.size_reached == 2 and stats.evaluated > 0


def test_equivalence_pruning_keeps_one_value_per_class():
    """Programs of one op (both searches finish: at two ops the unpruned one ran past its
    budget on this machine and the comparison said nothing)."""
    p = _problem({0: np.zeros((3,)), 1: np.zeros((3,))}, lambda e: np.cumsum(e[0] * e[1]))
    _, pruned = search(p, SearchSettings(max_size=1, timeout=120))
    _, full = search(p, SearchSettings(max_size=1, timeout=120, equivalence_pruning=False))
    assert pruned.size_reached == full.size_reached == 1 and pruned.enumerated == full.enumerated
    assert pruned.rejected_equivalence > 0 and full.rejected_equivalence == 0
    assert full.values > pruned.values


def test_the_search_uses_the_verifier_it_is_given():
    """The dialect verifier (and its cache) is a value in the settings: a fresh one sees
    every signature this search checks, and the process-wide one none of them."""
    from synth.grammar import verifier

    p = _problem({0: np.zeros((3, 4)), 1: np.zeros((4,))}, lambda e: e[0] @ e[1])
    before = verifier.DEFAULT.stats()
    own = verifier.Verifier()
    found, _ = search(p, SearchSettings(max_size=2, timeout=30, verifier=own))
    assert found is not None
    assert own.stats()["misses"] > 0 and verifier.DEFAULT.stats() == before


def _shapes(expr) -> set:
    return {expr.type.shape} | set().union(*(_shapes(a) for a in expr.args)) if expr.args else {expr.type.shape}


def test_cheapest_of_equivalent_solutions_is_kept():
    # A (2x9) B (9x2) C (2x9): (A B) C makes a 2x2 intermediate, A (B C) a 9x9 one; both
    # have two ops, the first the search finds is A (B C)
    p = _problem({0: np.zeros((2, 9)), 1: np.zeros((9, 2)), 2: np.zeros((2, 9))},
                 lambda e: e[0] @ e[1] @ e[2])
    first, first_stats = search(p, SearchSettings(timeout=30, alternatives=0))
    cheapest, stats = search(p, SearchSettings(timeout=30))
    assert first is not None and cheapest is not None
    assert (9, 9) in _shapes(first) and first_stats.solutions_compared == 0
    assert (9, 9) not in _shapes(cheapest) and (2, 2) in _shapes(cheapest)
    assert stats.solutions_compared >= 2 and stats.solution_cost == program_cost(cheapest)
    assert program_cost(cheapest) < program_cost(first)


def test_a_candidate_bound_ends_the_search_like_its_time_budget():
    # exp(A) @ B + C: three ops; bounded at 300 candidates the search stops short of it
    p = _problem({0: np.zeros((3, 4)), 1: np.zeros((4, 5)), 2: np.zeros((3, 5))},
                 lambda e: np.exp(e[0]) @ e[1] + np.sqrt(e[2] * e[2] + 1.0))
    found, stats = search(p, SearchSettings(max_size=4, timeout=60, max_candidates=300, inverse_targets=False))
    assert found is None
    assert 300 <= stats.enumerated <= 300 + 256


def test_candidates_after_the_first_solution_told_no_solution_from_one_example(monkeypatch):
    """After the first solution the rest of the level is run for cheaper ones only; a
    candidate far from the target on the first example is not run on the others. The
    solutions collected, the one chosen and the counts of candidates are the same as
    with every candidate run on every example: on floats, on integers, and on a masked
    update (only the changed positions must be right)."""
    from synth.synthesis import search as engine

    mask = np.tri(4, dtype=bool)
    floats = _problem({0: np.zeros((2, 9)), 1: np.zeros((9, 2)), 2: np.zeros((2, 9))}, lambda e: e[0] @ e[1] @ e[2])
    masked = _problem({0: np.zeros((4, 4)), 1: np.zeros((4, 4))},
                      lambda e: np.where(mask, e[0] * e[1], e[0]), output=0)
    rng = np.random.default_rng(5)
    ints = [{0: rng.integers(-9, 9, (2, 9)), 1: rng.integers(-9, 9, (9, 2)), 2: rng.integers(-9, 9, (2, 9))}
            for _ in range(2)]
    types = {i: TensorType(a.shape, "i64") for i, a in ints[0].items()}
    integers = Problem("ints", types, ints, [e[0] @ e[1] @ e[2] for e in ints], types[2],
                       SearchContext(frozenset({(2, 9), (9, 2)}), (0.0, 1.0), ("i64",)), ops_for("stablehlo"))
    told = []
    original = engine.Enumerator._no_alternative

    def spy(self, *args):
        told.append(original(self, *args))
        return told[-1]
    for p, size in ((floats, 6), (masked, 1), (integers, 6)):
        told.clear()
        monkeypatch.setattr(engine.Enumerator, "_no_alternative", spy)
        fast, fast_stats = search(p, SearchSettings(max_size=size, timeout=60))
        monkeypatch.setattr(engine.Enumerator, "_no_alternative", lambda self, *args: False)
        full, full_stats = search(p, SearchSettings(max_size=size, timeout=60))
        assert fast is not None and str(fast) == str(full), p.name
        assert any(told), p.name  # some candidates were told apart from one example
        assert fast_stats.solutions_compared == full_stats.solutions_compared >= 1
        assert (fast_stats.enumerated, fast_stats.evaluated) == (full_stats.enumerated, full_stats.evaluated)
