"""Where the fuzzer runs: `ROOT`, this checkout (reproducers are saved under it), and
`SYNTH_ROOT`, the checkout whose synth is fuzzed, which `use_synth_root` (--synth-root)
changes. Other modules read `config.SYNTH_ROOT` when they need it, never a copy taken
at import, so the change reaches the subprocesses (cwd, PYTHONPATH) and the oracle's
in-process imports alike."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SYNTH_ROOT = ROOT  # the checkout whose synth is fuzzed (--synth-root)
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def use_synth_root(root: Path) -> None:
    """Fuzz the synth of another checkout (e.g. a `git archive` snapshot): subprocesses
    and in-process imports (the oracle) both take synth from there."""
    global SYNTH_ROOT
    SYNTH_ROOT = Path(root).resolve()
    sys.path.insert(0, str(SYNTH_ROOT))
    os.environ["PYTHONPATH"] = str(SYNTH_ROOT)


REPRO_DIR = ROOT / "tests" / "data" / "fuzz"
TARGETS = ("stablehlo", "linalg")
