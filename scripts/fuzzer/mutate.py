"""Mutants (step 3 of the overview): text edits of `@NAME_raised` in a raised output, one
variant per site of each operator (`mut_*`: swapped operands, replaced ops, changed
constants, comparisons, dimension lists, slices, indexing maps, dropped terms);
`mutants` interleaves them by operator, and `mutant_valid` keeps only those that MLIR
still parses and verifies, to be given to `synth verify`."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np

from .oracle import _RUN_LOCK, cut_function

OP_SWAPS = {
    "stablehlo.add": "stablehlo.subtract", "stablehlo.subtract": "stablehlo.add",
    "stablehlo.multiply": "stablehlo.add", "stablehlo.maximum": "stablehlo.minimum",
    "stablehlo.minimum": "stablehlo.maximum", "stablehlo.divide": "stablehlo.multiply",
    "arith.addf": "arith.subf", "arith.subf": "arith.addf", "arith.mulf": "arith.addf",
    "arith.maximumf": "arith.minimumf", "arith.minimumf": "arith.maximumf", "arith.divf": "arith.mulf",
    "arith.addi": "arith.subi", "arith.subi": "arith.addi", "arith.muli": "arith.addi",
    "arith.maxsi": "arith.minsi", "arith.minsi": "arith.maxsi",
    "linalg.add": "linalg.sub", "linalg.sub": "linalg.add", "linalg.mul": "linalg.add",
    "linalg.max": "linalg.min", "linalg.min": "linalg.max", "linalg.div": "linalg.mul",
    "linalg.matvec": "linalg.vecmat", "linalg.vecmat": "linalg.matvec",
}
CMP_SWAPS = {"GT": "GE", "GE": "GT", "LT": "LE", "LE": "LT", "EQ": "NE", "NE": "EQ",
             "ogt": "oge", "oge": "ogt", "olt": "ole", "ole": "olt", "oeq": "one", "one": "oeq",
             "sgt": "sge", "sge": "sgt", "slt": "sle", "sle": "slt", "eq": "ne", "ne": "eq",
             "ugt": "uge", "uge": "ugt", "ult": "ule", "ule": "ult"}


def _sites(body: str, pattern: str, repl) -> list[str]:
    """One variant of `body` per match of `pattern` (repl(match) -> new text or None)."""
    out = []
    for m in re.finditer(pattern, body):
        new = repl(m)
        if new is not None and new != m.group(0):
            out.append(body[:m.start()] + new + body[m.end():])
    return out


def mut_swap_operands(body: str) -> list[str]:
    """Swap the operands of a subtract / divide / compare (and of a 2-input linalg op)."""
    out = _sites(body, r"(stablehlo\.(?:subtract|divide|power|compare)\s+(?:\w+,\s*)?)(%[\w#]+), (%[\w#]+)",
                 lambda m: f"{m.group(1)}{m.group(3)}, {m.group(2)}")
    out += _sites(body, r"(arith\.(?:subf|divf|subi|cmpf \w+,|cmpi \w+,)\s*)(%[\w#]+), (%[\w#]+)",
                  lambda m: f"{m.group(1)}{m.group(3)}, {m.group(2)}")
    out += _sites(body, r"ins\((%[\w#]+), (%[\w#]+) : ([^,()]+(?:<[^>]*>)?), ([^)]+)\)",
                  lambda m: f"ins({m.group(2)}, {m.group(1)} : {m.group(4)}, {m.group(3)})")
    return out


def mut_replace_op(body: str) -> list[str]:
    """add -> subtract, max -> min, ... (also a reduce body, `applies stablehlo.add`)."""
    pat = r"\b(" + "|".join(re.escape(k) for k in OP_SWAPS) + r")\b(?![.\w])"
    return _sites(body, pat, lambda m: OP_SWAPS[m.group(1)])


def mut_constant(body: str) -> list[str]:
    """Change a constant: 0 -> 1, c -> 2c (dense<...> and arith.constant, not index)."""
    def change(lit: str) -> str | None:
        try:
            v = float(lit)
        except ValueError:
            return None
        if not np.isfinite(v):
            return None
        nv = 1.0 if v == 0 else 2 * v
        return f"{nv:.6e}" if ("." in lit or "e" in lit) else str(int(nv))
    out = _sites(body, r"(dense<)([-+0-9.e]+)(>)",
                 lambda m: None if change(m.group(2)) is None else m.group(1) + change(m.group(2)) + m.group(3))
    out += _sites(body, r"(arith\.constant )([-+0-9.e]+)( : (?!index)\w+)",
                  lambda m: None if change(m.group(2)) is None else m.group(1) + change(m.group(2)) + m.group(3))
    return out


def mut_comparison(body: str) -> list[str]:
    """GT -> GE, olt -> ole, ...; also GT -> LT."""
    out = _sites(body, r"(comparison_direction\s+|compare\s+)(GT|GE|LT|LE|EQ|NE)\b",
                 lambda m: m.group(1) + CMP_SWAPS[m.group(2)])
    out += _sites(body, r"(arith\.cmp[fi] )(\w+)(,)",
                  lambda m: m.group(1) + CMP_SWAPS[m.group(2)] + m.group(3) if m.group(2) in CMP_SWAPS else None)
    out += _sites(body, r"(compare\s+)(GT|LT)\b", lambda m: m.group(1) + {"GT": "LT", "LT": "GT"}[m.group(2)])
    return out


def _permute(lst: str) -> list[str]:
    items = [x.strip() for x in lst.split(",") if x.strip()]
    if not all(x.isdigit() for x in items):
        return []
    if len(items) >= 2:
        outs = []
        for a in range(len(items)):
            for b in range(a + 1, len(items)):
                it = list(items)
                it[a], it[b] = it[b], it[a]
                outs.append(", ".join(it))
        return outs
    if len(items) == 1:
        v = int(items[0])
        return [str(v + 1), str(v - 1)] if v else [str(v + 1)]
    return []


def mut_dims(body: str) -> list[str]:
    """Permute or change a dimension list: transpose / broadcast dims, permutation,
    reduce dimensions, dot_general contracting dims, iota dim."""
    out = []
    for pat in (r"(\bdims = \[)([0-9, ]*)(\])", r"(permutation = \[)([0-9, ]*)(\])",
                r"(dimensions = \[)([0-9, ]*)(\])", r"(contracting_dims = \[)([0-9, ]*)(\])",
                r"(x \[)([0-9, ]*)(\])"):
        for m in re.finditer(pat, body):
            for alt in _permute(m.group(2)):
                out.append(body[:m.start(2)] + alt + body[m.end(2):])
    out += _sites(body, r"(iota dim = )(\d+)", lambda m: m.group(1) + str(1 - int(m.group(2)) if int(m.group(2)) < 2 else 0))
    out += _sites(body, r"(linalg\.index )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) ^ 1))
    return out


def mut_slice(body: str) -> list[str]:
    """Shift a slice range by one (start and limit), an extract_slice offset, or move
    one element of padding from low to high."""
    out = []
    for m in re.finditer(r"stablehlo\.slice %[\w#]+ \[([^\]]*)\]", body):
        ranges = m.group(1).split(",")
        for i, r in enumerate(ranges):
            parts = r.strip().split(":")
            for delta in (1, -1):
                try:
                    new = [str(int(parts[0]) + delta), str(int(parts[1]) + delta)] + parts[2:]
                except (ValueError, IndexError):
                    continue
                rr = list(ranges)
                rr[i] = (" " if i else "") + ":".join(new)
                out.append(body[:m.start(1)] + ",".join(rr) + body[m.end(1):])
    for m in re.finditer(r"(tensor\.extract_slice %[\w#]+\[)([0-9, ]*)(\])", body):
        items = [x.strip() for x in m.group(2).split(",")]
        for i in range(len(items)):
            for delta in (1, -1):
                it = list(items)
                it[i] = str(int(it[i]) + delta)
                out.append(body[:m.start(2)] + ", ".join(it) + body[m.end(2):])
    for m in re.finditer(r"low = \[([0-9, ]*)\], high = \[([0-9, ]*)\]", body):
        lo = [int(x) for x in m.group(1).split(",")]
        hi = [int(x) for x in m.group(2).split(",")]
        for i in range(len(lo)):
            if lo[i] > 0:
                l2, h2 = list(lo), list(hi)
                l2[i] -= 1
                h2[i] += 1
                out.append(body[:m.start()] + f"low = [{', '.join(map(str, l2))}], high = [{', '.join(map(str, h2))}]"
                           + body[m.end():])
    return out


def mut_affine_map(body: str) -> list[str]:
    """Swap two results of an indexing map, or drop an offset in one."""
    out = []
    for m in re.finditer(r"affine_map<\(([^)]*)\) -> \(([^)]*)\)>", body):
        res = [x.strip() for x in m.group(2).split(",") if x.strip()]
        for alt in _permute_results(res):
            out.append(body[:m.start(2)] + ", ".join(alt) + body[m.end(2):])
        for i, r in enumerate(res):
            r2 = re.sub(r"\s*[+-]\s*\d+$", "", r)
            if r2 != r:
                alt = list(res)
                alt[i] = r2
                out.append(body[:m.start(2)] + ", ".join(alt) + body[m.end(2):])
    return out


def _permute_results(res: list[str]) -> list[list[str]]:
    outs = []
    for a in range(len(res)):
        for b in range(a + 1, len(res)):
            if res[a] != res[b]:
                r = list(res)
                r[a], r[b] = r[b], r[a]
                outs.append(r)
    return outs


def mut_drop_term(body: str) -> list[str]:
    """`%r = add %a, %b`: every later use of %r reads %a (or %b) instead."""
    out = []
    pat = (r"^(\s*)(%[\w]+) = (?:stablehlo\.(?:add|multiply|subtract|maximum|minimum)|"
           r"arith\.(?:addf|mulf|subf|addi|muli|maximumf|minimumf)) (%[\w#]+), (%[\w#]+)")
    for m in re.finditer(pat, body, re.M):
        res = m.group(2)
        for keep in (m.group(3), m.group(4)):
            rest = body[m.end():]
            new_rest = re.sub(rf"{re.escape(res)}(?![\w#])", keep, rest)
            if new_rest != rest:
                out.append(body[:m.end()] + new_rest)
    return out


MUTATORS = {"swap_operands": mut_swap_operands, "replace_op": mut_replace_op,
            "constant": mut_constant, "comparison": mut_comparison, "dims": mut_dims,
            "slice": mut_slice, "affine_map": mut_affine_map, "drop_term": mut_drop_term}


def mutants(text: str, name: str, rng: random.Random, only: str | None = None) -> list[tuple[str, str]]:
    """(operator, module text) for every mutation site of @NAME_raised, shuffled so that
    the operators alternate."""
    span = cut_function(text, f"{name}_raised")
    if span is None:
        return []
    head_end = text.find("\n", span[0]) + 1  # keep the signature line (attributes) as is
    body = text[head_end:span[1]]
    per_op = {}
    for op, fn in MUTATORS.items():
        if only and op != only:
            continue
        variants = list(dict.fromkeys(v for v in fn(body) if v != body))
        rng.shuffle(variants)
        per_op[op] = [(op, text[:head_end] + v + text[span[1]:]) for v in variants]
    out = []
    ops = list(per_op)
    rng.shuffle(ops)
    while any(per_op.values()):
        for op in ops:
            if per_op[op]:
                out.append(per_op[op].pop(0))
    return out


def mutant_valid(path: Path, text: str, name: str) -> str | None:
    """None if the mutant still parses and verifies in MLIR (synth's reader), else why."""
    from synth.semantics.raised import load_raised

    try:
        with _RUN_LOCK:
            load_raised(str(path), f"{name}_raised", text).signature()
        return None
    except Exception as e:  # InputError, or anything MLIR raises
        return str(e).splitlines()[0] if str(e) else type(e).__name__
