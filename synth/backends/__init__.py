"""Execution backends for raised programs (XLA CPU for stablehlo)."""
