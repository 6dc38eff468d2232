"""Per-iteration cost of a host loop on IREE: a stablehlo.while carrying an R x C f64 array
and writing one column of it a step (deriche's sweeps), compiled by iree-compile and run
on a driver, the body unrolled k times (k in-place updates a trip, one copy of the carried
array a trip). Prints wall and CPU seconds per step and checks the result against NumPy.

    python scripts/iree_host_loop_probe.py R C --driver local-sync|local-task [--steps N] [--unroll K]

Run under `/usr/bin/time -f "%R minor faults"` to see the page faults per step (README,
"Host loops on IREE")."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def module(r: int, c: int, steps: int, unroll: int) -> str:
    a, v, col = f"tensor<{r}x{c}xf64>", f"tensor<{r}xf64>", f"tensor<{r}x1xf64>"
    body, x, w, j = [], "%x", "%w", "%j"
    for k in range(unroll):
        body += [f"      %h{k} = stablehlo.multiply {w}, %half : {v}",
                 f"      %w{k} = stablehlo.add %h{k}, %v : {v}",
                 f"      %s{k} = stablehlo.reshape %w{k} : ({v}) -> {col}",
                 f"      %x{k} = stablehlo.dynamic_update_slice {x}, %s{k}, %c0, {j} : "
                 f"({a}, {col}, tensor<i64>, tensor<i64>) -> {a}",
                 f"      %j{k} = stablehlo.add {j}, %c1 : tensor<i64>"]
        x, w, j = f"%x{k}", f"%w{k}", f"%j{k}"
    body.append(f"      stablehlo.return {j}, {x}, {w} : tensor<i64>, {a}, {v}")
    newline = "\n"
    return f"""func.func @f(%a: {a}, %v: {v}) -> {a} {{
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<{steps}> : tensor<i64>
  %half = stablehlo.constant dense<0.5> : {v}
  %r:3 = stablehlo.while(%j = %c0, %x = %a, %w = %v) : tensor<i64>, {a}, {v}
  cond {{
    %p = stablehlo.compare LT, %j, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
{newline.join(body)}
  }}
  return %r#1 : {a}
}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=int)
    parser.add_argument("cols", type=int)
    parser.add_argument("--driver", choices=("local-sync", "local-task"), default="local-sync")
    parser.add_argument("--steps", type=int, help="loop steps (default: cols)")
    parser.add_argument("--unroll", type=int, default=1, help="steps a trip (steps rounded down to a multiple)")
    args = parser.parse_args()
    steps = (args.steps or args.cols) // args.unroll * args.unroll
    if not 0 < steps <= args.cols:
        parser.error("steps must be between 1 and cols (after rounding to the unroll factor)")

    from synth.backends.iree import IreeBackend, compile_vmfb
    from synth.backends.iree_worker import CACHING_DRIVERS

    backend = IreeBackend("stablehlo")
    vmfb = compile_vmfb(module(args.rows, args.cols, steps, args.unroll), backend.flags(),
                        Path(tempfile.gettempdir()) / "synth-host-loop-probe")
    import iree.runtime as rt

    if args.driver == "local-task":
        rt.flags.parse_flags("--task_topology_group_count=1")
        config = rt.Config("local-task")
    else:  # as the bench's worker loads it (synth.backends.iree_worker)
        config = rt.Config(device=rt.get_driver("local-sync").create_default_device(
            allocators=[CACHING_DRIVERS["local-sync"]]))
    context = rt.SystemContext(config=config)
    vm = rt.VmModule.copy_buffer(context.instance, vmfb.read_bytes())
    context.add_vm_module(vm)
    f = context.modules[vm.name]["f"]
    rng = np.random.default_rng(0)
    a, v = rng.uniform(-1, 1, (args.rows, args.cols)), rng.uniform(-1, 1, args.rows)
    want, w = a.copy(), v.copy()
    for k in range(steps):
        w = w * 0.5 + v
        want[:, k] = w
    for _ in range(2):
        inputs = [rt.asdevicearray(config.device, a.copy()), rt.asdevicearray(config.device, v.copy())]
        t0, c0 = time.perf_counter(), time.process_time()
        got = np.array(f(*inputs).to_host())
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{args.rows}x{args.cols} f64 ({args.rows * args.cols * 8 / 1e6:.1f} MB), {steps} steps, "
              f"unroll {args.unroll}, {args.driver}: {wall:.3f} s wall, {cpu:.3f} s CPU, "
              f"{1e3 * wall / steps:.3f} ms wall a step, right: {np.allclose(got, want, rtol=1e-13)}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
