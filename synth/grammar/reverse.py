"""reverse of both grammars: an array read backwards along one dim.

    reverse(a; dim)[.., p, ..] = a[.., N - 1 - p, ..]          (np.flip; N: a's extent)

What a DSP-style `out[i] = in[n - 1 - i]` reads (a subscript with a loop index at
coefficient -1, while the other subscripts of the statement run forwards; a loop whose
every use is negated is read backwards instead, synth.synthesis.sketch_reader). The
sketch reads `a[K - i]` as reverse(a)[i + N - 1 - K].

Emitters: stablehlo.reverse (any shape, dynamic included); linalg.generic whose input
map is `(.., p, ..) -> (.., N - 1 - p, ..)` at static sizes, and, where N is known only
at run time (a shape-generic body: an indexing map takes no symbols), a generic over the
result whose body reads `a` (tensor.extract) at N - 1 - p, N - 1 computed once from the
arguments (synth.grammar.dims). Only the sketch tactic builds it (synth.synthesis.opset
leaves it out of the search).
"""

from __future__ import annotations

import numpy as np

from synth.grammar.dims import is_dynamic
from synth.grammar.linalg_base import LinalgOp
from synth.grammar.op import attr_dict, attrs
from synth.grammar.stablehlo_base import StablehloOp, plus
from synth.grammar.types import STORED_DTYPES


class ReverseFamily:
    """See the module docstring. Attribute: dim."""

    arity = 1
    attr_domain_kind = "reverse"
    shape_generic = True

    def attribute_domain(self, arg_types, ctx):
        """Each dim of extent >= 2 (the conformance test's instances; never searched)."""
        if len(arg_types) != 1 or arg_types[0].rank == 0 or arg_types[0].dtype not in STORED_DTYPES:
            return ()
        return tuple(attrs(dim=d) for d, n in enumerate(arg_types[0].shape) if int(n) >= 2)

    def result_type(self, arg_types, a):
        self.check_arity(arg_types)
        d = attr_dict(a)
        t = arg_types[0]
        if set(d) != {"dim"} or t.rank == 0 or not 0 <= d["dim"] < t.rank or t.dtype not in STORED_DTYPES:
            raise self.shape_error("needs a tensor of rank >= 1 and a dim of it", arg_types, a)
        return t

    def apply(self, sem, args, a):
        return np.ascontiguousarray(np.flip(np.asarray(args[0]), axis=attr_dict(a)["dim"]))

    def cost(self, arg_types, a, result_type):
        return result_type.size


class StablehloReverse(ReverseFamily, StablehloOp):
    """stablehlo.reverse along the dim."""

    def emit(self, em, operands, arg_types, a, result_type):
        r = em.fresh()
        em.line(f"{r} = stablehlo.reverse {operands[0]}, dims = [{attr_dict(a)['dim']}] : {result_type.mlir()}")
        return r


class LinalgReverse(ReverseFamily, LinalgOp):
    """linalg.generic reading the input at N - 1 - p: an indexing map at static sizes,
    tensor.extract in the body where N is a value (a shape-generic body)."""

    def emit(self, em, operands, arg_types, a, result_type):
        k = attr_dict(a)["dim"]
        t = arg_types[0]
        rank, n = t.rank, t.shape[k]
        names = [f"d{j}" for j in range(rank)]
        dims = ", ".join(names)
        parallel = ", ".join('"parallel"' for _ in range(rank))
        out, o, b = em.fresh(), em.fresh("o"), em.fresh("b")
        if not is_dynamic(n):
            source = ", ".join(f"{int(n) - 1} - {x}" if j == k else x for j, x in enumerate(names))
            em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({source})>, "
                    f"affine_map<({dims}) -> ({dims})>], iterator_types = [{parallel}]}} "
                    f"ins({operands[0]} : {t.mlir()}) outs({em.empty(result_type)} : {result_type.mlir()}) {{\n"
                    f"^bb0({b}: {t.dtype}, {o}: {t.dtype}):\n  linalg.yield {b} : {t.dtype}\n"
                    f"}} -> {result_type.mlir()}")
            return out
        last = em.size(plus(n, -1))
        at = [em.fresh("i") for _ in range(rank)]
        j, v = em.fresh(), em.fresh()
        body = [f"{at[x]} = linalg.index {x} : index" for x in range(rank)]
        body += [f"{j} = arith.subi {last}, {at[k]} : index",
                 f"{v} = tensor.extract {operands[0]}[{', '.join(j if x == k else at[x] for x in range(rank))}] "
                 f": {t.mlir()}",
                 f"linalg.yield {v} : {t.dtype}"]
        em.line(f"{out} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
                f"iterator_types = [{parallel}]}} outs({em.empty(result_type)} : {result_type.mlir()}) {{\n"
                f"^bb0({o}: {t.dtype}):\n" + "\n".join(f"  {ln}" for ln in body) + f"\n}} -> {result_type.mlir()}")
        return out
