"""Output pieces several commands share: time in microseconds, the ``wrote FILE`` notes on stderr,
result rows as CSV/Parquet, and the note that an interrupted run kept its rows."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import Any, List, Optional, Sequence

INTERRUPTED_NOTE = "mcastlab: interrupted; the rows above are what was measured so far"


def microseconds(ps: Optional[float], grouped: bool = False) -> str:
    """Picoseconds as ``12.345 us`` (``-`` for None). ``grouped`` adds thousands separators: the
    workload and sweep reports have always had them, the single-run report never had (its lines
    are kept as they were, for scripts that read them)."""
    if ps is None:
        return "-"
    return f"{ps / 1e6:,.3f} us" if grouped else f"{ps / 1e6:.3f} us"


def note_written(path: str, what: Optional[str] = None) -> None:
    """``wrote PATH`` (or ``wrote PATH: what``) on stderr, so stdout stays the command's result."""
    print(f"wrote {path}" + (f": {what}" if what is not None else ""), file=sys.stderr)


def check_output(path: Optional[str], option: str, formats: Sequence[str] = ()) -> None:
    """Refuses an output file that cannot be written, before the command does any work (a sweep
    used to run to the end and then fail on its plot's name): a directory, a parent directory that
    does not exist, a file or directory we may not write, or, when the writer picks its format by extension, an extension not in
    ``formats`` (without dots). Nothing to check for ``None`` (the option was not given)."""
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{option} {path}: is a directory, not a file")
    parent = os.path.dirname(path) or "."
    if os.path.exists(parent) and not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"{option} {path}: {parent} is a file, not a directory")
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"{option} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{option} {path}: not writable")
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if formats and ext not in formats:
        got = f"extension `.{ext}`" if ext else "no extension"
        raise argparse.ArgumentTypeError(f"{option} {path}: {got}; supported: .{', .'.join(formats)}")
    if not os.path.exists(path):
        # The permission bits do not tell everything (a directory of /proc says writable to root,
        # yet nothing can be made there): make the file and take it away again.
        try:
            with open(path, "x"):
                pass
            os.remove(path)
        except OSError as e:
            raise argparse.ArgumentTypeError(f"{option} {path}: cannot be created ({e.strerror})") from None


def note_interrupted() -> None:
    """Ctrl-C ended a run early: say that what was printed and written is partial."""
    print(INTERRUPTED_NOTE, file=sys.stderr)


def write_rows(df: Any, csv: Optional[str], parquet: Optional[str]) -> List[str]:
    """Writes the rows (a DataFrame) to the files asked for; returns one report line per file.
    The rows come after all the work: a file that takes them and then fails the write (a full
    disk, `/dev/full`) is an error naming it, with the rows saved in a file of their own in the
    temporary directory, so that the runs are not lost."""
    lines = []
    for path, option, write in ((csv, "--csv", df.to_csv), (parquet, "--parquet", df.to_parquet)):
        if not path:
            continue
        try:
            write(path, index=False)
        except OSError as e:
            raise argparse.ArgumentTypeError(f"{option} {path}: {e.strerror or e}; {_rescue(df)}") from None
        lines.append(f"rows            {path} ({len(df)} rows)")
    return lines


def _rescue(df: Any) -> str:
    """Saves the rows a failed write would have lost as CSV in the temporary directory; says where
    (or that this failed too)."""
    try:
        fd, path = tempfile.mkstemp(prefix="mcastlab-rows-", suffix=".csv")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            df.to_csv(fh, index=False)
    except OSError as e:
        return f"the rows could not be saved elsewhere either ({e.strerror or e})"
    return f"the rows ({len(df)}) are saved in {path}"
