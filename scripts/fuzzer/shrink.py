"""Shrinking (step 4 of the overview): `shrink_candidates` yields smaller copies of a
kernel, biggest cuts first (a statement or loop dropped, an if unwrapped, a triangular
loop made rectangular, an expression simplified), and `shrink` greedily keeps the first
candidate that still parses and still fails, until none does or the budget is spent."""

from __future__ import annotations

import copy
import time

from .emit import emit, parses
from .kernel import (Accumulate, Binary, Call, For, If, Kernel, ScalarReduce, Select, Store,
                     Unary, expr_children, kernel_size, walk_nodes)


def _body_lists(kernel: Kernel):
    """Every statement list of the kernel (the body, loop bodies, if branches, nests)."""
    yield kernel.body
    for node in walk_nodes(kernel.body):
        if isinstance(node, For):
            yield node.body
        elif isinstance(node, If):
            yield node.then
            if node.orelse:
                yield node.orelse
        elif isinstance(node, Accumulate):
            yield node.nest


def _prune(body: list) -> list:
    """Drop loops left empty."""
    out = []
    for node in body:
        if isinstance(node, For):
            node.body = _prune(node.body)
            if not node.body:
                continue
        if isinstance(node, If):
            node.then = _prune(node.then)
            if not node.then:
                continue
        if isinstance(node, Accumulate):
            node.nest = _prune(node.nest)
        out.append(node)
    return out


def _expr_variants(e):
    """Each tree with one op replaced by one of its operands (or a load by a constant)."""
    for i, child in enumerate(expr_children(e)):
        if not isinstance(e, Call):  # keep what makes a malformed kernel malformed
            yield child
        for v in _expr_variants(child):
            new = copy.copy(e)
            if isinstance(e, Unary | Call):
                new.arg = v
            elif isinstance(e, Binary):
                new.lhs, new.rhs = (v, e.rhs) if i == 0 else (e.lhs, v)
            else:
                parts = [e.a, e.b, e.then, e.orelse]
                parts[i] = v
                new = Select(e.pred, *parts)
            yield new


def shrink_candidates(kernel: Kernel):
    """Smaller kernels, biggest cuts first: drop a statement or loop, unwrap an if, make a
    triangular loop rectangular, drop an else branch, simplify an expression."""
    n_lists = len(list(_body_lists(kernel)))
    for li in range(n_lists):
        size = len(list(_body_lists(kernel))[li])
        for i in range(size):
            c = copy.deepcopy(kernel)
            lst = list(_body_lists(c))[li]
            del lst[i]
            c.body = _prune(c.body)
            if c.body:
                yield c
    nodes = list(walk_nodes(kernel.body))
    for pos, node in enumerate(nodes):
        if isinstance(node, If):
            c = copy.deepcopy(kernel)
            target = list(walk_nodes(c.body))[pos]
            for lst in _body_lists(c):
                if any(x is target for x in lst):
                    j = next(j for j, x in enumerate(lst) if x is target)
                    lst[j:j + 1] = target.then
                    break
            yield c
            if node.orelse:
                c = copy.deepcopy(kernel)
                list(walk_nodes(c.body))[pos].orelse = None
                yield c
        if isinstance(node, For) and node.step != 1:
            c = copy.deepcopy(kernel)
            list(walk_nodes(c.body))[pos].step = 1
            yield c
        if isinstance(node, For) and node.tri:
            c = copy.deepcopy(kernel)
            list(walk_nodes(c.body))[pos].tri = None
            yield c
        if isinstance(node, ScalarReduce | Accumulate) and (getattr(node, "init", 0) not in (0, 0.0)):
            c = copy.deepcopy(kernel)
            list(walk_nodes(c.body))[pos].init = 0
            yield c
        if isinstance(node, Store) and node.reduce and node.reduce != "add":
            c = copy.deepcopy(kernel)
            list(walk_nodes(c.body))[pos].reduce = "add"
            yield c
    for pos, node in enumerate(nodes):
        if isinstance(node, Store | ScalarReduce):
            for v in _expr_variants(node.expr):
                c = copy.deepcopy(kernel)
                list(walk_nodes(c.body))[pos].expr = copy.deepcopy(v)
                yield c
    if kernel.memref_style:
        c = copy.deepcopy(kernel)
        c.memref_style = False
        yield c


def shrink(kernel: Kernel, still_fails, budget_s: float, max_tries: int = 60) -> tuple[Kernel, int]:
    """Greedy: take the first smaller kernel that still fails, until none does (or the
    budget is spent). Returns the smallest kernel and the number of tries."""
    deadline = time.monotonic() + budget_s
    current, tries = kernel, 0
    progress = True
    while progress and time.monotonic() < deadline and tries < max_tries:
        progress = False
        for cand in shrink_candidates(current):
            if time.monotonic() >= deadline or tries >= max_tries:
                break
            if kernel_size(cand) >= kernel_size(current):
                continue
            if cand.category != "malformed" and parses(emit(cand)) is not None:
                continue
            tries += 1
            if still_fails(cand):
                current, progress = cand, True
                break
    return current, tries
