"""synth: raise affine MLIR loop kernels to linalg / stablehlo by enumerative synthesis."""

__version__ = "0.1.0"
