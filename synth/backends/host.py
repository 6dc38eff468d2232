"""What the backends' schedules read from the host: its CPU flags and vendor (vector width,
register tiles) and the sizes of its caches (cache tiles, the wavefront's window).

Each reads Linux's /proc and /sys; where they cannot be read the answers are those of a
plain AVX2 host with 1 MB of L2 and 32 MB of L3."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

_SYS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
_DEFAULT_CACHE = {2: 1 << 20, 3: 32 << 20}


@lru_cache(maxsize=None)
def cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""


def has_avx512() -> bool:
    return re.search(r"\bavx512f\b", cpuinfo()) is not None


def intel() -> bool:
    return re.search(r"^vendor_id\s*:\s*GenuineIntel", cpuinfo(), re.M) is not None


def parse_size(text: str) -> int:
    """Bytes of a sysfs cache size ("32K", "1024K", "32768K", "2M")."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)\s*", text)
    if m is None:
        raise ValueError(f"not a cache size: {text!r}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


@lru_cache(maxsize=None)
def cache_bytes(level: int) -> int:
    """The size of the data (or unified) cache of `level` that core 0 sees: per core for
    L2, the whole shared cache for L3."""
    try:
        for index in sorted(_SYS_CACHES.glob("index*")):
            if (int((index / "level").read_text()) == level
                    and (index / "type").read_text().strip() in ("Data", "Unified")):
                return parse_size((index / "size").read_text())
    except (OSError, ValueError):
        pass
    return _DEFAULT_CACHE[level]


@lru_cache(maxsize=None)
def cache_tile() -> tuple[int, int, int]:
    """The (i, j, k) blocks of a contraction's cache tile, from the host. AVX2 host
    (2026-11-24): 32 x 512 x 128 (a 128 x 512 panel of B, 512 KB, in L2). This AVX-512
    host (AMD EPYC, 1 MB L2 per core, 2026-11-26), raised linalg of PolyBench LARGE, one
    thread, median of 3 rounds of 3 calls, 32 x 512 x 128 -> 512 x 64 x 512 (a 512 x 64
    panel of B, 256 KB, stays in L2 while 512 rows of A stream past it; B's rows are
    8.8 KB apart, so a narrow panel touches fewer pages): gemm 0.089 -> 0.055 s
    (OpenBLAS 0.053 s side by side), 2mm 0.094 -> 0.069, 3mm 0.163 -> 0.112, trmm 0.063
    -> 0.050, covariance 0.122 -> 0.097, correlation 0.146 -> 0.104; syrk, syr2k, symm,
    doitgen, cholesky, lu, ludcmp, gramschmidt within 5%; outputs equal. Other blocks on
    gemm (medians): 128 x 128 x 256 0.067, 256 x 128 x 256 0.058, 256 x 64 x 256 0.057,
    1024 x 64 x 512 0.058, 256 x 32 x 512 0.060, 16 x 1024 x 64 0.101."""
    return (512, 64, 512) if has_avx512() else (32, 512, 128)


@lru_cache(maxsize=None)
def register_tile() -> tuple[int, int]:
    """Rows x columns of the contraction tiles kept in registers, from the host's vector
    width: 8 x 8 f64 with AVX-512 (8 zmm accumulators), 4 x 8 otherwise (8 ymm of AVX2;
    8 x 16 needs 32 ymm registers and spills). gemm LARGE on an AVX2 host, one thread,
    with its cache tile: 8 x 16 0.29 s, 8 x 8 0.29 s, 6 x 8 0.25 s, 4 x 8 0.19 s (OpenBLAS
    0.14 s); without the cache tile 0.50 s. On this AVX-512 host (AMD EPYC, 2026-11-25),
    one thread, raised linalg of PolyBench LARGE, median of 3 rounds of 3 calls, 8 x 16
    -> 8 x 8: gemm 0.070 -> 0.055 s (OpenBLAS 0.052 s), 2mm 0.085 -> 0.066, 3mm 0.188 ->
    0.161, syrk 0.107 -> 0.085, syr2k 0.151 -> 0.118, symm 0.115 -> 0.101, trmm 0.058 ->
    0.051, covariance 0.126 -> 0.097, correlation 0.131 -> 0.105, doitgen 0.030 -> 0.029;
    cholesky, lu, gramschmidt, atax, mvt unchanged; 6 x 8 and 4 x 8 slower than 8 x 8.
    Intel's server cores differ: two 512-bit FMA units (AMD's Zen 4 splits a 512-bit FMA
    in two 256-bit halves), so an 8 x 8 tile (8 FMAs per 8 broadcasts and one load of B)
    is bound by the loads; 8 x 16 (16 zmm accumulators, 16 FMAs per 10 loads) keeps both
    units busy. On the Intel Xeon host (2 MB L2 per core, 2026-11-27), one thread, gemm
    LARGE, medians of 3 rounds of 3 calls: 8 x 8 0.100 s, 8 x 16 0.061, 6 x 16 0.068,
    4 x 16 0.090, 4 x 32 0.069, 12 x 16 0.072, 8 x 24 0.67 (OpenBLAS 0.037); raised
    linalg of PolyBench LARGE, 2 rounds of 3 calls, 8 x 8 -> 8 x 16: gemm 0.098 -> 0.062,
    2mm 0.097 -> 0.064, 3mm 0.184 -> 0.139, syrk 0.114 -> 0.064, syr2k 0.243 -> 0.198,
    symm 0.208 -> 0.130, trmm 0.096 -> 0.056, covariance 0.175 -> 0.128, correlation
    0.143 -> 0.111, doitgen 0.034 -> 0.025, cholesky 0.177 -> 0.151, lu 0.237 -> 0.180,
    ludcmp 0.218 -> 0.172, gramschmidt 0.74 -> 0.76 (noise)."""
    if not has_avx512():
        return (4, 8)
    return (8, 16) if intel() else (8, 8)
