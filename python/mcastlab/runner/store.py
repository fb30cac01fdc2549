"""The result store: one JSON record per finished job, keyed by the hash of everything its result
depends on (the job's inputs, the code's revision, the mcastlab version).

A record is written as soon as its job finishes, atomically: to a temporary file in the same
directory, flushed to disk, then renamed over the final name. A run killed at any instant (even
by SIGKILL, or a machine that loses power after the rename) therefore leaves either the whole
record or none, and the next run reuses every record it finds and recomputes only the rest. A
changed input changes the key, so only the jobs it touches are recomputed; records of old keys
stay (they cost disk, not correctness) until the directory is removed.

Layout: ``DIR/ab/abcdef....json`` (the first two hex digits fan the records out so that no
directory holds hundreds of thousands of files). Each record holds the key, the inputs (for a
person or a script reading the store), the result, and ``meta`` (CPU and wall seconds of the job,
where it ran); only ``result`` is ever fed back into a run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple, Union

# Written into every record: a store read by a later mcastlab whose record format differs is
# recomputed rather than misread.
FORMAT = 1


class StoreError(Exception):
    """The store directory cannot be created or written (a user error: a bad ``--store``)."""


def make_directory(path: Union[str, "os.PathLike[str]"], option: str, error: type) -> Path:
    """``path`` as an output directory, created with its parents; ``error`` naming ``option`` when
    it is a file (mkdir's bare `File exists` said nothing of that), cannot be created or is not
    writable. The store's, compare's and reproduce's ``--out`` check."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise error(f"{option} {os.fspath(path)}: is a file, not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise error(f"{option} {os.fspath(path)}: cannot create the directory: {e.strerror or e}") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise error(f"{option} {os.fspath(path)}: not writable")
    return p


class Store:
    """A directory of finished jobs' results (see the module doc)."""

    def __init__(self, root: Union[str, "os.PathLike[str]"]) -> None:
        self.root = make_directory(root, "--store", StoreError)

    def path(self, key: str) -> Path:
        """Where the record of ``key`` lives."""
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[Tuple[Any, Dict[str, Any]]]:
        """The stored ``(result, meta)`` of ``key``, or None when there is none (or it cannot be
        read: a record damaged by hand is recomputed, never trusted)."""
        try:
            text = self.path(key).read_text(encoding="utf-8")
        except OSError:
            return None
        try:
            rec = json.loads(text)
        except ValueError:
            return None
        if not isinstance(rec, dict) or rec.get("format") != FORMAT or rec.get("key") != key or "result" not in rec:
            return None
        return rec["result"], rec.get("meta", {})

    def put(self, key: str, result_json: str, inputs: Any = None, meta: Optional[Dict[str, Any]] = None) -> Path:
        """Writes the record of ``key`` atomically. ``result_json`` is the result as JSON text
        (exactly what the run uses, so a resumed run sees the very same values)."""
        final = self.path(key)
        final.parent.mkdir(exist_ok=True)
        head = json.dumps({"format": FORMAT, "key": key, "inputs": inputs, "meta": meta or {}},
                          sort_keys=True, allow_nan=True, default=str)
        text = head[:-1] + ',"result":' + result_json + "}"
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=final.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return final

    def keys(self) -> Iterator[str]:
        """The keys of every record in the store."""
        for p in sorted(self.root.glob("*/*.json")):
            yield p.stem

    def __len__(self) -> int:
        return sum(1 for _ in self.keys())
