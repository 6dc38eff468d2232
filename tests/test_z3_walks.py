"""The proofs' walks over z3 terms through z3's C API (synth.semantics.z3sem.raw_subterms,
abstract_nonlinear) against what z3's Python API says of the same terms."""

import z3

from synth.semantics import z3sem
from synth.validation.proofs import _partial_ops


def _terms():
    x, y, w = z3.Reals("x y w")
    n = z3.Int("n")
    shared = x * y  # a product of two unknowns, shared by both terms
    a = shared + 2 * w - z3sem.SQRT(w) / (x + 1)
    b = z3.If(n > 0, shared * 3, w / 4) + z3.ToReal(n * n)
    return [a, b, w + 1], (x, y, w, n)


def test_raw_subterms_are_subterms_in_the_same_order():
    terms, _ = _terms()
    raw = [z3.z3.AstRef(a, terms[0].ctx).get_id() for _, a in z3sem.raw_subterms(terms)]
    assert raw == [t.get_id() for t in z3sem.subterms(terms)]
    seen: set = set()
    list(z3sem.raw_subterms(terms[:1], seen))  # a second walk leaves out what the first saw
    rest = [z3.z3.AstRef(a, terms[0].ctx).get_id() for _, a in z3sem.raw_subterms(terms[1:], seen)]
    assert rest and not set(rest) & {t.get_id() for t in z3sem.subterms(terms[:1])}


def test_abstract_nonlinear_replaces_real_products_and_divisions_only():
    terms, (x, y, w, n) = _terms()
    a, b, c = z3sem.abstract_nonlinear(terms)
    assert c.eq(terms[2])  # nothing non-linear below it: the term itself
    ops = {t.decl().name() for t in z3sem.subterms([a, b]) if z3.is_app(t)}
    assert "mul!Real" in ops and "div!Real" in ops  # x * y and sqrt(w) / (x + 1)
    # the integer product stays (subscripts multiply sizes by indices), and so do
    # products and divisions by numerals
    assert any(z3.is_mul(t) and t.is_int() for t in z3sem.subterms([b]))
    assert any(z3.is_div(t) and z3.is_rational_value(t.arg(1)) for t in z3sem.subterms([b]))
    # a widening: what is equal after it is equal before it, the shared product once
    s = z3.Solver()
    s.add(a != terms[0].decl()(*[z3sem.abstract_nonlinear([k])[0] for k in terms[0].children()]))
    assert s.check() == z3.unsat
    x2, y2 = z3.Reals("x2 y2")
    s = z3.Solver()  # x*y against y*x: equal, but not once the products are uninterpreted
    s.add(z3sem.abstract_nonlinear([x * y])[0] != z3sem.abstract_nonlinear([y * x])[0])
    assert s.check() == z3.sat


def test_partial_ops_finds_applications_and_symbolic_denominators():
    terms, (x, y, w, n) = _terms()
    applications, divisors = _partial_ops(terms)
    assert [str(t) for t in applications] == ["sqrt(w)"]
    assert [str(d) for d in divisors] == ["x + 1"]  # w / 4 divides by a numeral
