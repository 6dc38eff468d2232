"""mlir-cpu: the raised linalg function through MLIR's own CPU pipeline, JIT-ed at -O3.
The raised stablehlo function runs here too, lowered to linalg first
(synth.backends.stablehlo_linalg), as IREE does with its stablehlo input.

It runs in synth's isolated ExecutionEngine worker (`run_tensor_function_timed`): the
function is bufferized, its results become out-parameters, and each timed call is the
call alone (inputs and zeroed outputs are prepared before it). The worker compiles on the
first call (cached by IR hash).

The pipeline (`tiled_pipeline`) runs a transform-dialect schedule (SCHEDULE) on tensors
before bufferizing:
- `linalg.matmul` is tiled for the cache first (`cache_tile()`: 512 x 64 x 512 in i, j, k
  with AVX-512, 32 x 512 x 128 otherwise), then for registers: `register_tile()` x 1
  (8 x 16 on Intel's AVX-512 cores, 8 x 8 on AMD's, 4 x 8 with AVX2, from the host's CPU
  flags and vendor); i and j peeled (every tile but the last static); vectorized (a
  vector.contract per k step) and the accumulator tile is hoisted out of the k loop, so
  it stays in registers; after bufferization the contractions become outer products
  (FMAs).
- contractions written as `linalg.generic` (dot_general forms without a named op: C^T C
  in covariance, a 3-d by 2-d product in doitgen), recognized by transform.match.structured
  (all loops parallel but the last, a reduction; a multiply-add body; 3 or 4 loops), are
  tiled the same way (3 loops: cache then register tile; 4 loops: 1 x register tile x 1),
  peeled and vectorized.
  (The AVX2 register tile: 8 x 16 spills on AVX2's 16 ymm registers; gemm at LARGE on an
  AVX2 host, one thread: 0.498 -> 0.198 s with the cache tile, OpenBLAS 0.144 s.)
- a contraction over a triangle (an operand masked to one: trmm, symm; or a result of
  which a select keeps one: syrk, syr2k, covariance, correlation) is first written as a
  loop over blocks of 32 rows, each over the triangle's part of the other dim only (triangles, a
  stage after elementwise fusion); the schedule then tiles each block's contraction.
- `linalg.matvec` is tiled by 8 rows, its reduction split into 8 partial sums per row
  (tile_reduction_using_for) so the loop over a row is an elementwise multiply-add on a
  vector<8x8> accumulator kept in registers, reduced across once per row block; this
  reassociates the sum, as XLA does (the proofs are over the reals).
- a `linalg.matvec` and a `linalg.vecmat` on one matrix, neither needing the other (bicg,
  mvt), run in one loop over blocks of 8 rows (row_passes: the pair is tagged and
  reordered in the text, `fuse_rows` tiles both by rows and fuses the loops), so the
  matrix is read from memory once; the matvec tile is then split as below. Raised linalg
  of PolyBench LARGE, one thread, medians of 20 calls, before -> after: bicg 2.39 -> 1.80
  ms, mvt 2.50 -> 1.96 ms (outputs bitwise equal); 4, 16 or 32 rows: within 5%. A vecmat
  of the matvec's own result (atax: `(A x) A`) becomes one loop over row blocks built in
  the text (row_passes.fuse_rows): atax 2.71 -> 1.75 ms.
  A vecmat of a matrix computed elementwise just before (gemver's `y A'`, A' = A + u v^T
  + ...) runs in the loop that computes A' by blocks of 8 rows (row_passes.fuse_producers,
  a stage after elementwise fusion): gemver linalg ~10.1 -> ~9.4 ms, stablehlo ~9.4 -> ~8.8.
  In the full row blocks of a pair, the column loops of both products are fused as well
  (row_passes.fuse_columns): each 8 x 8 tile of A is loaded once for both (LARGE, one
  thread, alternating processes: linalg mvt 3.30 -> 2.31 ms, stablehlo mvt 4.21 -> 2.22).
- `linalg.dot` (the library loop forms' per-step dot: linalg.triangular_solve) is split
  the same way: 8 partial sums, the remainder peeled.
- after the tiles are vectorized (still on tensors), a loop whose tiles read one row at
  several shifts (a stencil: jacobi-1d's A[i-1], A[i], A[i+1]) loads the row once per tile
  and shuffles the shifted vectors out of this tile's and the next one's (shift_reuse):
  one load instead of three, two of them unaligned. Raised linalg of PolyBench LARGE, one
  thread, AMD EPYC host, old and new code in alternating processes (medians of 200 calls,
  3 rounds): jacobi-1d 0.48-0.51 -> 0.43-0.44 ms; jacobi-2d (3 calls, 2 rounds) 0.68-0.69
  -> 0.57-0.59 s; heat-3d within noise (0.83-0.99 s both); outputs bitwise equal.
- vector transfers are lowered fully unrolled (convert-vector-to-scf{full-unroll=true}):
  the default lowering puts a temporary buffer (llvm.alloca) in the loop body, which
  inside a loop over tensors (linalg.cholesky's matvec per column) grows the stack by
  ~2 KB per tile and overflowed it at n = 600 (the worker crashed; the raise fell back to
  plain loops). cholesky LARGE to linalg, one thread: plain loops 1.16 s, tiled 0.28 s.
- `linalg.vecmat` and `linalg.batch_matmul` are generalized and interchanged so the
  innermost loop walks contiguous memory (i, k, j order, like the original kernels); the
  vecmat is then tiled by 8 rows and 8 columns, peeled and vectorized: a tile loads its 8
  entries of the result once for 8 FMAs (LLVM's vectorized i, j loops loaded and stored
  them once per row). A 2000 x 2000 vecmat, one thread: 3.1-3.6 -> 2.0-2.8 ms (NumPy
  1.4 ms); 4 x 8, 8 x 16, 16 x 8, 8 x 32 tiles within noise of 8 x 8.
- elementwise named ops (add, mul, broadcast, ...) are generalized first and fused into
  their consumers (linalg-fuse-elementwise-ops), so a chain is one loop nest with no
  temporaries; before bufferizing, eliminate-empty-tensors makes a result written into a
  slice of an array (tensor.insert_slice, the time loops' bodies) be computed in place, and
  cse + canonicalize then drop the self-copies left behind. Measured on the raised linalg
  of PolyBench LARGE, one thread (scripts/compare_pipelines.py, same inputs, 3 calls):
  heat-3d 56.9 -> 3.18 s, jacobi-2d 22.8 -> 2.26 s, jacobi-1d 2.8 -> 0.96 ms, gemver
  66 -> 11 ms; the other ten kernels within +-10% (noise, re-run).
- cse runs between eliminate-empty-tensors and bufferization: an update of a slice
  (`insert_slice f(extract_slice X[r], ...) into X[r]`) reads the slice it overwrites, and
  eliminate-empty-tensors gives the fused op a second, identical extract_slice of X[r] as
  its destination; with the two merged the op reads and writes one value elementwise, which
  one-shot bufferization writes in place instead of copying the slice first (a full copy
  of the array per statement and step). Raised linalg of PolyBench LARGE, one thread,
  before -> after (scripts/compare_pipelines.py, 3 calls): fdtd-2d 8.07 -> 1.2 s,
  gramschmidt 8.79 -> 1.18 s, jacobi-2d 1.22 -> 0.99 s, heat-3d 1.70 -> 1.53 s, jacobi-1d
  0.59 -> 0.53 ms, cholesky and trisolv unchanged (within 5%).
- a counter loop whose step works lane by lane (deriche's interchanged sweeps) runs by blocks
  of 16 lanes, the state in registers (lane_blocks): deriche LARGE linalg 0.34-0.40 -> 0.11 s;
  a step's slice of a line's inner lanes taken as one slice of the array first (lane_slices),
  and reads of an array after its update in place moved before it (reads_first): adi LARGE
  linalg 11.2 -> 2.0 s (loops 6.3 s).
- after the fusion, a loop step that updates its carried array elementwise (one generic
  reading the iter_arg at each point, writing a tensor.empty) is written into the iter_arg,
  the slices of it that it reads (row k and column k) copied first (in_place, a rewrite in
  Python between two stages of the pipeline): one-shot bufferization then updates the
  array in place instead of allocating a new one per step. floyd-warshall raised to linalg
  at LARGE, one thread (scripts/compare_pipelines.py, 2 rounds of 2 calls): 7.13 -> 2.69
  s. The same rewrite writes a loop's scalars (1-element tensors) into the iter_args the
  loop yields them as: durbin's loop then carries no buffers, and the tiled pipeline no
  longer aborts on it (it had run the untiled fallback): 14.7 -> 7.6 ms at LARGE.
- a loop whose step updates each row of its matrix from that row and row k (floyd-warshall's
  in-place step) runs blocks of 56 steps per pass over the matrix, by chunks of 8 rows x 280
  columns, its step's row-only and column-only values computed once per step and per block
  in 1-d generics (pivot_blocks, a stage before the wavefront): floyd-warshall raised to
  linalg at LARGE, one thread, Intel Xeon host, alternating processes (medians of 5 calls):
  5.20, 5.62, 5.23, 5.34 -> 2.06, 2.09, 3.17, 2.69 s (outputs bitwise equal; a noisy host).
  Its stablehlo raise, whose loop carries row and column k + 1 computed at the end of each
  step, is turned back into that form first (rotation.derotate, checked): 4.56, 4.15
  -> 2.52, 1.63 s.
- a linalg.matmul that writes a block of an array and reads a smaller block of the same
  array (LU's trailing update and the row panel above it) reads a copy of that block
  (in_place, the same stage): one-shot bufferization cannot tell the two blocks apart
  inside the tiled loops, and copied the written block (up to the whole trailing matrix)
  into a new buffer and back for each panel.
- before bufferization, the tensors of one memref (synth cc's in-out arguments) are made
  one, writable (buffer_views): two `restrict` ones let doitgen's A be overwritten while read.
- after bufferization, the copies between views whose innermost dimension is strided (a
  column) become linalg.copy loops compiled with the function (copies) instead of calls
  of the runtime's memrefCopy, which moves one element per memcpy. lu raised to linalg,
  LARGE, one thread (scripts/compare_pipelines.py, 5 rounds): 0.226 -> 0.201 s;
  cholesky, trisolv within 1%.
  Both, with linalg LU's sub-panels (linalg_library.Lu), raised lu at LARGE, one thread,
  old and new code in alternating processes (medians of 3 calls): 0.38, 0.29, 0.28, 0.30
  -> 0.157, 0.143, 0.185, 0.156 s.
  The same holds for any copy MLIR does not lower to a memcpy: views of the identity layout
  or of a static contiguous shape are memcpy'd, every other one, a contiguous slice at an
  offset known at run time included (rows of a block, a column's n x 1 view), went to the
  runtime. Now all of those are loops. PolyBench LARGE, one thread, AMD EPYC host, old and
  new code in alternating processes (medians of 5 calls): gramschmidt raised to stablehlo
  5.3-7.1 -> 4.0-4.5 s, lu to stablehlo 0.19-0.22 -> 0.18 s, ludcmp to stablehlo 0.19 ->
  0.17 s, cholesky to linalg 0.14-0.16 -> 0.12 s; lu and ludcmp to linalg within noise.
- after bufferization, a step that computes y[i] = f(y[i], y[n - 1 - i]) for i < n into a
  new buffer and copies it back into y (durbin's update by its own reversal) updates y in
  place, a vector of pairs (i, n - 1 - i) at a time (pairwise_reversal). durbin at LARGE,
  one thread, AMD EPYC host, old and new code in alternating processes (medians of 20
  calls, 3 rounds): linalg 0.87-0.92 -> 0.58-0.69 ms, stablehlo 0.96-1.21 -> 0.57-0.58 ms;
  outputs bitwise equal.
- everything else is lowered to plain loops (as synth.execution.TENSOR_PIPELINE does);
  after the deallocation pipeline, memrefs of i1 (the ownership flags it keeps where a
  loop yields buffers it may have allocated) become memrefs of i8 (byte_bools): MLIR 22's
  conversion to LLVM aborts on stores of i1. floyd-warshall and gramschmidt raised to
  stablehlo ran into it; at LARGE, one thread, they now run (floyd-warshall 3.8 s, XLA
  4.7 s, the loops 10.3 s; gramschmidt 10.0 s, XLA 1.1 s).
A tile that does not vectorize stays a loop nest (its failure is suppressed). Measured on
gemm 1000x1100x1200 f64, one thread, on a shared 2-core machine (fastest sample; medians
were up to 2x slower under load): plain loops 2.6 s, interchange only 0.16 s, this schedule
0.066 s; the affine original at -O3 0.13 s; XLA CPU (2 threads) 0.051 s. Busy machine: matvec
1900x2100 1.3 ms tiled vs 3.9 ms as loops; doitgen LARGE 0.053 vs 0.58 s; covariance 0.80 vs 6.1 s.

If a step of the tiled pipeline fails on a function (a Python pass throws or leaves IR that
fails verification, an MLIR pass fails, MLIR crashes), running it raises PipelineFailed
(`pipeline`, `fallback_reason`): synth bench records that row as an error, with no time
(no silent rerun through the plain-loops pipeline).
"""

from __future__ import annotations

import hashlib

import numpy as np

from synth.errors import CallTimeout, ExecutionError
from synth.execution import BOOLS_AS_BYTES, WORKER_DEADLINE, Pipeline, run_tensor_function_timed
from synth.pipelines import MATH_TO_LLVM
from synth.backends import row_passes
from synth.backends import passes as P
from synth.backends.host import cache_tile, register_tile  # noqa: F401 (read from here too)
from synth.backends.registry import Backend, PerShape, Prepared, generic_entry, BackendEntry, cache_root, raised_function, write_atomic
from synth.backends.timing import Timing, check_limit, measure_batched, worker_deadline

OPT_LEVEL = 3

SCHEDULE = """module attributes {transform.with_named_sequence} {
  transform.named_sequence @peel_each(%loops: !transform.any_op {transform.readonly}) {
    transform.foreach %loops : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.include @peel_one failures(suppress) (%loop) : (!transform.any_op) -> ()
    }
    transform.yield
  }
  transform.named_sequence @peel_one(%loop: !transform.any_op {transform.readonly}) {
    %l = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %main, %rest = transform.loop.peel %l : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
  transform.named_sequence @vectorize_one(%op: !transform.any_op {transform.consumed}) {
    transform.structured.vectorize %op : !transform.any_op
    transform.yield
  }
  transform.named_sequence @split_matvec(%mv: !transform.any_op {transform.consumed}) {
    %fill, %split, %comb, %loop = transform.structured.tile_reduction_using_for %mv by tile_sizes = [0, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %fill "synth.vectorize" : !transform.any_op
    transform.annotate %split "synth.vectorize" : !transform.any_op
    transform.annotate %comb "synth.vectorize" : !transform.any_op
    transform.include @peel_one failures(suppress) (%loop) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @split_dot(%d: !transform.any_op {transform.consumed}) {
    %fill, %split, %comb, %loop = transform.structured.tile_reduction_using_for %d by tile_sizes = [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %fill "synth.vectorize" : !transform.any_op
    transform.annotate %split "synth.vectorize" : !transform.any_op
    transform.annotate %comb "synth.vectorize" : !transform.any_op
    transform.include @peel_one failures(suppress) (%loop) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @match_contraction(%op: !transform.any_op {transform.readonly}, %rank: !transform.param<i64> {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %r = transform.match.structured failures(propagate) %op : (!transform.any_op) -> !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %n = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %n, %rank : !transform.param<i64>
      transform.match.structured.dim %s[-1] {reduction} : !transform.any_op
      transform.match.structured.dim %s[except(-1)] {parallel} : !transform.any_op
      transform.match.structured.body %s {contraction = ["arith.mulf", "arith.addf"]} : !transform.any_op
      transform.match.structured.yield %s : !transform.any_op
    }
    transform.yield %r : !transform.any_op
  }
  transform.named_sequence @match_contraction3(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %c = transform.param.constant 3 : i64 -> !transform.param<i64>
    %r = transform.include @match_contraction failures(propagate) (%op, %c) : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
  transform.named_sequence @match_contraction4(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    %c = transform.param.constant 4 : i64 -> !transform.param<i64>
    %r = transform.include @match_contraction failures(propagate) (%op, %c) : (!transform.any_op, !transform.param<i64>) -> !transform.any_op
    transform.yield %r : !transform.any_op
  }
  transform.named_sequence @tile_contraction3(%op: !transform.any_op {transform.consumed}) {
    %c, %c0, %c1, %c2 = transform.structured.tile_using_for %op tile_sizes [@CI@, @CJ@, @CK@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %t, %l0, %l1, %l2 = transform.structured.tile_using_for %c tile_sizes [@RI@, @RJ@, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %t "synth.vectorize" : !transform.any_op
    transform.include @peel_each failures(suppress) (%l1) : (!transform.any_op) -> ()
    transform.include @peel_each failures(suppress) (%l0) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @tile_contraction4(%op: !transform.any_op {transform.consumed}) {
    %t, %l0, %l1, %l2, %l3 = transform.structured.tile_using_for %op tile_sizes [1, @RI@, @RJ@, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %t "synth.vectorize" : !transform.any_op
    transform.include @peel_each failures(suppress) (%l2) : (!transform.any_op) -> ()
    transform.include @peel_each failures(suppress) (%l1) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @tile_row2(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, @ROW@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %t "synth.vectorize" : !transform.any_op
    transform.include @peel_one failures(suppress) (%l) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @tile_row1(%op: !transform.any_op {transform.consumed}) {
    %t, %l = transform.structured.tile_using_for %op tile_sizes [@ROW1@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %t "synth.vectorize" : !transform.any_op
    transform.include @peel_one failures(suppress) (%l) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @tile_row3(%op: !transform.any_op {transform.consumed}) {
    %t, %l1, %l2 = transform.structured.tile_using_for %op tile_sizes [0, 1, @ROW@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %t "synth.vectorize" : !transform.any_op
    transform.include @peel_one failures(suppress) (%l2) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @tile_vectorize(%root: !transform.any_op {transform.readonly}) {
    %rows2 = transform.structured.match attributes{synth.row2} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows2 : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      transform.include @tile_row2 failures(suppress) (%r) : (!transform.any_op) -> ()
    }
    %rows1 = transform.structured.match attributes{synth.row1} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows1 : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      transform.include @tile_row1 failures(suppress) (%r) : (!transform.any_op) -> ()
    }
    %rows3 = transform.structured.match attributes{synth.row3} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows3 : !transform.any_op {
    ^bb0(%r: !transform.any_op):
      transform.include @tile_row3 failures(suppress) (%r) : (!transform.any_op) -> ()
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %contracted = transform.foreach_match in %funcs
        @match_contraction3 -> @tile_contraction3, @match_contraction4 -> @tile_contraction4
        : (!transform.any_op) -> !transform.any_op
    %dots = transform.structured.match ops{["linalg.dot"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %dots : !transform.any_op {
    ^bb0(%d: !transform.any_op):
      transform.include @split_dot failures(suppress) (%d) : (!transform.any_op) -> ()
    }
    %mv = transform.structured.match ops{["linalg.matvec"]} in %root : (!transform.any_op) -> !transform.any_op
    %mvt, %mvl = transform.structured.tile_using_for %mv tile_sizes [8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.include @peel_each failures(suppress) (%mvl) : (!transform.any_op) -> ()
    %mvf = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %mvf {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %mvs = transform.structured.match ops{["linalg.matvec"]} in %mvf : (!transform.any_op) -> !transform.any_op
    transform.foreach %mvs : !transform.any_op {
    ^bb0(%m: !transform.any_op):
      transform.include @split_matvec failures(suppress) (%m) : (!transform.any_op) -> ()
    }
    %vm = transform.structured.match ops{["linalg.vecmat"]} in %root : (!transform.any_op) -> !transform.any_op
    %vmg = transform.structured.generalize %vm : (!transform.any_op) -> !transform.any_op
    %vmi = transform.structured.interchange %vmg iterator_interchange = [1, 0] : (!transform.any_op) -> !transform.any_op
    %vmt, %vmr, %vmc = transform.structured.tile_using_for %vmi tile_sizes [8, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %vmt "synth.vectorize" : !transform.any_op
    transform.include @peel_each failures(suppress) (%vmc) : (!transform.any_op) -> ()
    transform.include @peel_each failures(suppress) (%vmr) : (!transform.any_op) -> ()
    %bm = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %bmg = transform.structured.generalize %bm : (!transform.any_op) -> !transform.any_op
    %bmi = transform.structured.interchange %bmg iterator_interchange = [0, 1, 3, 2] : (!transform.any_op) -> !transform.any_op
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %mc, %c0, %c1, %c2 = transform.structured.tile_using_for %mm tile_sizes [@CI@, @CJ@, @CK@] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %t, %l0, %l1, %l2 = transform.structured.tile_using_for %mc tile_sizes [@RI@, @RJ@, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.include @peel_each failures(suppress) (%l1) : (!transform.any_op) -> ()
    transform.include @peel_each failures(suppress) (%l0) : (!transform.any_op) -> ()
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %tiles = transform.structured.match ops{["linalg.matmul"]} in %f : (!transform.any_op) -> !transform.any_op
    transform.foreach %tiles : !transform.any_op {
    ^bb0(%tile: !transform.any_op):
      transform.include @vectorize_one failures(suppress) (%tile) : (!transform.any_op) -> ()
    }
    %parts = transform.structured.match attributes{synth.vectorize} in %f : (!transform.any_op) -> !transform.any_op
    transform.foreach %parts : !transform.any_op {
    ^bb0(%part: !transform.any_op):
      transform.include @vectorize_one failures(suppress) (%part) : (!transform.any_op) -> ()
    }
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    transform.apply_cse to %f : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %f : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.yield
  }
  transform.named_sequence @generalize_elementwise(%root: !transform.any_op {transform.readonly}) {
    %ew = transform.structured.match ops{["linalg.add", "linalg.sub", "linalg.mul", "linalg.div",
        "linalg.max", "linalg.min", "linalg.exp", "linalg.log", "linalg.sqrt", "linalg.negf", "linalg.abs",
        "linalg.broadcast"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %ew : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @lower_vectors(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_shape_cast
    } : !transform.any_op
    transform.yield
  }
}
"""

# canonicalize after bufferizing: a result computed by a loop over blocks (row_passes) is an scf.for's
# result until its unchanged iter_arg is folded, and only a returned memref.alloc is hoisted into the
# out-parameter (otherwise the result is copied into it: gemver's A', 32 MB, once more per call); a loop
# whose body computes its carried array anew (floyd-warshall's step: an elementwise min of the whole
# matrix) yields a new buffer each step rather than failing to bufferize. The out-parameters come after
# synth-distinct-result-buffers (MLIR 22's pass segfaults on a memref returned twice)
_BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries=1 "
              "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops=1},canonicalize")
# elementwise producers fused into their consumers (one loop nest, no temporary between them)
_FUSE = "func.func(linalg-fuse-elementwise-ops)"
# the deallocation's ownership flags (memref<?xi1>) become bytes between the two halves
# (synth.backends.byte_bools): MLIR 22's memref-to-LLVM conversion aborts on i1 stores
_DEALLOCATE = "func.func(convert-linalg-to-loops),buffer-deallocation-pipeline"
_LOWER = ("convert-vector-to-scf{full-unroll=true},"
          "convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
          f"convert-vector-to-llvm,{MATH_TO_LLVM},reconcile-unrealized-casts")


# the wavefront's row generics (synth.row2, synth.row3) are tiled along their last dim by
# this many elements: jacobi-2d LARGE, Intel Xeon host, 3 rounds of 3 calls, 8 -> 16:
# 0.806 -> 0.842 s
ROW_TILE = 8
# the sweeps of a time loop over vectors (wavefront._mark_vectors, `synth.row1`) are tiled by
# this many elements and vectorized (LLVM's own vectorization of them used 4-wide ymm):
# jacobi-1d LARGE, Intel Xeon host, one thread, old and new code in alternating processes
# (3 rounds of 5 calls, medians): linalg 0.372, 0.383 -> 0.340, 0.319 ms; stablehlo 0.49,
# 0.69 -> 0.33, 0.33 ms; tiles of 16 and 32: within noise of 8 (0.33-0.49 ms)
ROW1_TILE = 8


def schedule_text(register: tuple[int, int] | None = None, pairs: int = 0) -> str:
    """SCHEDULE with this host's tile sizes (`register`: another register tile, to compare)
    and the entry sequence `fuse_rows` for the row-fused pairs of row_passes (`pairs`)."""
    ri, rj = register or register_tile()
    ci, cj, ck = cache_tile()
    text = SCHEDULE
    for key, value in (("@RI@", ri), ("@RJ@", rj), ("@CI@", ci), ("@CJ@", cj), ("@CK@", ck), ("@ROW@", ROW_TILE), ("@ROW1@", ROW1_TILE)):
        text = text.replace(key, str(value))
    entry = ("  transform.named_sequence @fuse_rows(%root: !transform.any_op {transform.readonly}) {\n"
             f"{row_passes.schedule(pairs)}\n    transform.yield\n  }}\n")
    return text.rstrip()[:-1] + row_passes.SEQUENCES + entry + "}\n"


def schedule_file(register: tuple[int, int] | None = None, pairs: int = 0) -> str:
    """The schedule written under the cache directory (the pipeline names it by path)."""
    text = schedule_text(register, pairs)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = cache_root() / "mlir-cpu" / f"schedule-{digest}.mlir"
    if not path.exists():
        write_atomic(path, text.encode())
    return str(path)


def bufferizing_pipeline(register: tuple[int, int] | None = None, pairs: int = 0) -> Pipeline:
    """The tiled pipeline's steps up to and with bufferization (synth.execution.run_stages):
    static types for tensors loops carry as dynamic (static_iter_args), select slices (narrow),
    cheap producers copied per use (broadcast_uses), producer narrowing (narrow), elementwise
    fusion, payload repeats merged (payload_cse), triangle contractions as blocks (triangles),
    reversed loop-invariant vectors reversed once (invariant_flips), vecmats with the rows of their
    elementwise matrix (row_passes.fuse_producers), blocks of pivot steps (pivot_blocks),
    the stencil wavefront (wavefront), sweeps over hyperplanes by bands of rows
    (hyperplane_bands), loop steps in place (in_place), then the schedule."""
    fuse_rows = "transform-interpreter{entry-point=fuse_rows}," if pairs else ""
    library = f"transform-preload-library{{transform-library-paths={schedule_file(register, pairs)}}}"
    return Pipeline([
        P.get(P.STATIC_ITER_ARGS).step,
        P.get(P.SLICE_SELECTS).step,
        P.mlir("generalize-elementwise",
               f"builtin.module({library},transform-interpreter{{entry-point=generalize_elementwise}})"),
        P.get(P.BROADCASTS_PER_USE).step,
        P.get(P.NARROW_PRODUCERS).step,
        P.mlir("fuse-elementwise", f"builtin.module({_FUSE})"), P.get(P.PAYLOAD_CSE).step,
        P.get(P.TRIANGLES).step,
        P.get(P.HOIST_FLIPS).step,
        P.get(P.FUSE_PRODUCERS).step,
        P.get(P.PIVOT_BLOCKS).step,
        P.get(P.WAVEFRONT).step,
        P.get(P.HYPERPLANE_BANDS).step,
        P.get(P.LANE_SLICES).step,
        P.get(P.LANE_BLOCKS).step,
        P.get(P.READS_FIRST).step,
        P.get(P.WRITE_IN_PLACE).step,
        P.mlir("tile-vectorize", f"builtin.module({fuse_rows}transform-interpreter{{entry-point=tile_vectorize}})"),
        P.get(P.SHIFT_REUSE).step,
        P.mlir("eliminate-empty-tensors", "builtin.module(eliminate-empty-tensors,cse)"),
        P.get(P.ONE_VIEW_PER_BUFFER).step,
        P.get(P.WRITABLE_IN_OUT).step,
        P.get(P.DISTINCT_RESULTS).step,
        P.mlir("bufferize", f"builtin.module({_BUFFERIZE})"), P.get(P.DISTINCT_BUFFERS).step,
        P.mlir("out-params", "builtin.module(buffer-results-to-out-params{modify-public-functions=1 hoist-static-allocs=1},cse,canonicalize)"),
    ])


def tiled_pipeline(register: tuple[int, int] | None = None, pairs: int = 0) -> Pipeline:
    """The backend's pipeline, one ordered list of named steps (the bufferizing steps, then
    updates by a vector's own reversal made in place (pairwise_reversal), copies as loops
    (copies), the vector lowering and deallocation, i1 buffers as bytes, the LLVM
    lowering); `register`: another register tile than the host's; `pairs`: the module's
    row-fused pairs (row_passes)."""
    return Pipeline(list(bufferizing_pipeline(register, pairs)) + [
        P.get(P.REVERSE_IN_PLACE).step,
        P.get(P.COPIES_AS_LOOPS).step,
        P.mlir("lower-vectors-deallocate",
               f"builtin.module(transform-interpreter{{entry-point=lower_vectors}},{_DEALLOCATE})"),
        P.get(BOOLS_AS_BYTES).step,
        P.mlir("lower-to-llvm", f"builtin.module({_LOWER})"),
    ])


def library_forms(text: str, target: str) -> str:
    """`text` with its library ops blocked where its sizes have panels (library_linalg,
    the pass synth-library-loops: the panels an scf.for); stablehlo lowered to linalg first,
    its library ops the linalg grammar's loops (stablehlo_calls). A linalg module."""
    from synth.backends import library_linalg

    if target == "stablehlo":
        from synth.backends.stablehlo_linalg import to_linalg

        text = to_linalg(text)  # the library ops as the linalg grammar's marked loops
    return library_linalg.lower(text)[0]


def lowering(text: str, target: str = "linalg", fuse_rows: bool = True) -> tuple[str, Pipeline]:
    """mlir-cpu's lowering of a module, the one definition synth bench (MlirCpuBackend) and
    synth cc (synth.driver.native, on the drop-in module) use: the module text prepared
    (library ops blocked: `library_forms`; matvec/vecmat pairs on one matrix tagged or
    written as one row loop: row_passes.fuse_rows) and the tiled pipeline to run on it."""
    text = library_forms(text, target)
    paired = row_passes.fuse_rows(text) if fuse_rows else row_passes.Paired(text, 0)
    return paired.text, tiled_pipeline(pairs=paired.pairs)


class MlirCpuBackend(Backend):
    """The linalg function as it is; a stablehlo one (`target="stablehlo"`) lowered to
    linalg first (synth.backends.stablehlo_linalg), as IREE does with its stablehlo input."""

    name = "mlir-cpu"

    def __init__(self, pipeline: str | None = None, fuse_rows: bool = True, target: str = "linalg"):
        """`pipeline`: a pass pipeline to use instead of the tiled one (no fallback then);
        `fuse_rows`: whether matvec/vecmat pairs on one matrix run in one pass over it.
        A step of the pipeline that fails is an error (PipelineFailed), never a silent
        rerun through another pipeline."""
        if target not in ("linalg", "stablehlo"):
            raise ValueError(f"mlir-cpu runs linalg or stablehlo, not {target!r}")
        self.pipeline, self.fuse_rows, self.target = pipeline, fuse_rows, target

    def prepare(self, module_text: str, func: str) -> "MlirCpuPrepared | PerShape":
        generic = generic_entry(module_text, func)
        if generic is not None:  # compiled per input shapes, made static first
            return PerShape(self, module_text, func, generic)
        fn = raised_function(module_text, func)
        if self.pipeline is not None:
            prepared = MlirCpuPrepared(fn, self.pipeline, "custom", text=library_forms(fn.module(), self.target))
        else:
            text, pipeline = lowering(fn.module(), self.target, self.fuse_rows)
            prepared = MlirCpuPrepared(fn, pipeline, "tiled", text=text)
        prepared.call_timeout = self.call_timeout
        return prepared


class PipelineFailed(ExecutionError):
    """mlir-cpu's pipeline failed on a function (a pass threw, left IR that fails
    verification, or MLIR crashed): a recorded result (`pipeline`, `fallback_reason`), not a
    time. synth bench reports it as status "pipeline-error"."""

    def __init__(self, function: str, pipeline: str, reason: str):
        super().__init__(f"mlir-cpu's {pipeline} pipeline failed on @{function}: {reason}")
        self.pipeline, self.fallback_reason = pipeline, reason


class MlirCpuPrepared(Prepared):
    backend = MlirCpuBackend.name

    def __init__(self, fn: BackendEntry, pipeline, pipeline_name: str, text: str | None = None):
        self.raised, self.function = fn, fn.name
        self.pipeline, self.pipeline_name = pipeline, pipeline_name
        self.fallback_reason: str | None = None  # why the pipeline failed, once it has
        self.rewrites: dict[str, int] = {}  # per Python pass: the rewrites it made
        self.text = fn.module() if text is None else text
        self.compile_seconds = None

    call_timeout: float | None = None  # MlirCpuBackend.call_timeout

    def _call(self, inputs: list, repeat: int) -> tuple[list[np.ndarray], list[float], list[float]]:
        """(outputs, each call's wall time, each call's CPU time in the worker)."""
        arrays = self.raised.tensor_inputs(inputs)
        deadline = worker_deadline(self.call_timeout, repeat, WORKER_DEADLINE)  # the calls and a compile
        try:
            result = run_tensor_function_timed(self.text, self.function, arrays, opt_level=OPT_LEVEL,
                                               repeat=repeat, pipeline=self.pipeline, deadline=deadline)
        except CallTimeout as e:  # the worker stopped: a time limit, not the pipeline's failure
            raise CallTimeout(f"mlir-cpu: {e} (--call-timeout {self.call_timeout:g} s a call, and as much for "
                              f"the compile)" if self.call_timeout else str(e), e.limit) from None
        except ExecutionError as e:
            self.fallback_reason = str(e)
            raise PipelineFailed(self.function, self.pipeline_name, str(e)) from None
        if result.compile_seconds > 0.0 or self.compile_seconds is None:
            self.compile_seconds = result.compile_seconds
            self.rewrites = dict(result.rewrites)
        check_limit(result.compile_seconds, self.call_timeout, f"mlir-cpu's compile of @{self.function}")
        return result.outputs, result.seconds, result.cpu_seconds

    def run(self, inputs: list) -> list[np.ndarray]:
        outputs, seconds, _ = self._call(inputs, 1)
        check_limit(max(seconds), self.call_timeout, f"a call of @{self.function}")
        return outputs

    def time(self, inputs: list, warmup: int = 1, repeats: int = 5, min_total: float = 0.0) -> Timing:
        return measure_batched(lambda n: self._call(inputs, n)[1:], warmup, repeats,
                               min_total, limit=self.call_timeout)
