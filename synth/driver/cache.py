"""The cache of raised objects: one entry per key (a hash of the function's translation,
which is its preprocessed source as synth reads it, the raise's settings, the native
code flags and synth's version): KEY.json (the outcome: raised or kept, and why) and, for a
raised function, KEY.o. Entries are written atomically (a temporary file renamed), so
concurrent builds (`make -j`) share the cache safely. Default directory: $SYNTH_CACHE/cc,
else ~/.cache/synth/cc; `--cache-dir` overrides."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

FORMAT = 13  # bumped when what an entry holds, or how objects are built, changes


def default_dir() -> Path:
    root = os.environ.get("SYNTH_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "synth") / "cc"


def key(*parts) -> str:
    from synth import __version__

    text = json.dumps([FORMAT, __version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load(directory: Path, k: str) -> dict | None:
    """The entry under `k` (with "object": its object's path, for a raised one), or None."""
    meta = directory / f"{k}.json"
    try:
        entry = json.loads(meta.read_text())
    except (OSError, ValueError):
        return None
    if entry.get("status") == "raised":
        obj = directory / f"{k}.o"
        if not obj.is_file():
            return None
        entry["object"] = str(obj)
    return entry


def store(directory: Path, k: str, entry: dict, obj: Path | None = None) -> dict:
    """Keep `entry` (and the object file `obj`) under `k`; the entry as `load` returns it.
    A cache directory that cannot be written is not an error: the build goes on."""
    entry = dict(entry)
    try:
        if obj is not None:
            _write_atomic(directory / f"{k}.o", Path(obj).read_bytes())
            entry["object"] = str(directory / f"{k}.o")
        _write_atomic(directory / f"{k}.json", json.dumps(entry, indent=1).encode())
    except OSError:
        if obj is not None:
            entry["object"] = str(obj)
    return entry


def load_unit(directory: Path, k: str) -> tuple[str, list[dict]] | None:
    """A whole translation unit built before under `k` (its preprocessed text, the flags):
    (its object, its functions' entries), or None."""
    obj, meta = directory / f"unit-{k}.o", directory / f"unit-{k}.json"
    try:
        entries = json.loads(meta.read_text())
    except (OSError, ValueError):
        return None
    return (str(obj), entries) if obj.is_file() else None


def store_unit(directory: Path, k: str, obj: Path, entries: list[dict]) -> None:
    try:
        _write_atomic(directory / f"unit-{k}.o", Path(obj).read_bytes())
        _write_atomic(directory / f"unit-{k}.json", json.dumps(entries, indent=1).encode())
    except OSError:
        pass
