"""Kept for scripts written against it: `run_stablehlo` lives in synth.backends.xla."""

from synth.backends.xla import cache_size, compile_stablehlo, run_stablehlo  # noqa: F401
