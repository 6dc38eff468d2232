"""PolyBench/C 4.2.1 facts: size parameters per kernel (in the C kernel's order) and their
values for each dataset (MINI ... EXTRALARGE)."""

from __future__ import annotations

DATASET_NAMES = ("mini", "small", "medium", "large", "extralarge")

# kernel -> (size parameter names in C order, {dataset: values})
_TABLE: dict[str, tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]] = {
    #                 params                          mini              small              medium              large                 extralarge
    "2mm":           (("ni", "nj", "nk", "nl"),       ((16, 18, 22, 24), (40, 50, 70, 80), (180, 190, 210, 220), (800, 900, 1100, 1200), (1600, 1800, 2200, 2400))),
    "3mm":           (("ni", "nj", "nk", "nl", "nm"), ((16, 18, 20, 22, 24), (40, 50, 60, 70, 80), (180, 190, 200, 210, 220), (800, 900, 1000, 1100, 1200), (1600, 1800, 2000, 2200, 2400))),
    "adi":           (("tsteps", "n"),                ((20, 20), (40, 60), (100, 200), (500, 1000), (1000, 2000))),
    "atax":          (("m", "n"),                     ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200))),
    "bicg":          (("m", "n"),                     ((38, 42), (116, 124), (390, 410), (1900, 2100), (1800, 2200))),
    "cholesky":      (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "correlation":   (("m", "n"),                     ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000))),
    "covariance":    (("m", "n"),                     ((28, 32), (80, 100), (240, 260), (1200, 1400), (2600, 3000))),
    "deriche":       (("w", "h"),                     ((64, 64), (192, 128), (720, 480), (4096, 2160), (7680, 4320))),
    "doitgen":       (("nr", "nq", "np"),             ((10, 8, 12), (25, 20, 30), (50, 40, 60), (150, 140, 160), (250, 220, 270))),
    "durbin":        (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "fdtd-2d":       (("tmax", "nx", "ny"),           ((20, 20, 30), (40, 60, 80), (100, 200, 240), (500, 1000, 1200), (1000, 2000, 2600))),
    "floyd-warshall": (("n",),                        ((60,), (180,), (500,), (2800,), (5600,))),
    "gemm":          (("ni", "nj", "nk"),             ((20, 25, 30), (60, 70, 80), (200, 220, 240), (1000, 1100, 1200), (2000, 2300, 2600))),
    "gemver":        (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "gesummv":       (("n",),                         ((30,), (90,), (250,), (1300,), (2800,))),
    "gramschmidt":   (("m", "n"),                     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    "heat-3d":       (("tsteps", "n"),                ((20, 10), (40, 20), (100, 40), (500, 120), (1000, 200))),
    "jacobi-1d":     (("tsteps", "n"),                ((20, 30), (40, 120), (100, 400), (500, 2000), (1000, 4000))),
    "jacobi-2d":     (("tsteps", "n"),                ((20, 30), (40, 90), (100, 250), (500, 1300), (1000, 2800))),
    "lu":            (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "ludcmp":        (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "mvt":           (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "nussinov":      (("n",),                         ((60,), (180,), (500,), (2500,), (5500,))),
    "seidel-2d":     (("tsteps", "n"),                ((20, 40), (40, 120), (100, 400), (500, 2000), (1000, 4000))),
    "symm":          (("m", "n"),                     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    "syr2k":         (("m", "n"),                     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    "syrk":          (("m", "n"),                     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
    "trisolv":       (("n",),                         ((40,), (120,), (400,), (2000,), (4000,))),
    "trmm":          (("m", "n"),                     ((20, 30), (60, 80), (200, 240), (1000, 1200), (2000, 2600))),
}

# The C kernels of syr2k and syrk take (n, m) in that order; the table above lists the
# dataset values by name, so the order of a kernel's size arguments is given here.
_ARGUMENT_ORDER: dict[str, tuple[str, ...]] = {
    "syr2k": ("n", "m"),
    "syrk": ("n", "m"),
}

KERNELS: tuple[str, ...] = tuple(sorted(_TABLE))


def kernel_of_function(func_name: str) -> str | None:
    """`kernel_fdtd_2d` -> `fdtd-2d`; None for a function that is not a PolyBench kernel."""
    if not func_name.startswith("kernel_"):
        return None
    stem = func_name[len("kernel_"):]
    for kernel in KERNELS:
        if kernel.replace("-", "_") == stem:
            return kernel
    return None


def size_parameters(kernel: str) -> tuple[str, ...]:
    """Names of the kernel's size parameters, in the order of its function arguments."""
    return _ARGUMENT_ORDER.get(kernel, _TABLE[kernel][0])


def dataset_sizes(kernel: str, dataset: str) -> dict[str, int]:
    """{parameter name: value} of one dataset."""
    dataset = dataset.lower()
    if dataset not in DATASET_NAMES:
        raise KeyError(f"unknown dataset {dataset!r}; expected one of {', '.join(DATASET_NAMES)}")
    names, values = _TABLE[kernel]
    return dict(zip(names, values[DATASET_NAMES.index(dataset)]))


def size_arguments(kernel: str, dataset: str) -> tuple[int, ...]:
    """Values of the kernel's size arguments, in argument order."""
    sizes = dataset_sizes(kernel, dataset)
    return tuple(sizes[p] for p in size_parameters(kernel))
