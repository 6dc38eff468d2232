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
