"""Output pieces several commands share: time in microseconds, the ``wrote FILE`` notes on stderr,
result rows as CSV/Parquet, and the note that an interrupted run kept its rows."""

from __future__ import annotations

import sys
from typing import Any, List, Optional

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


def note_interrupted() -> None:
    """Ctrl-C ended a run early: say that what was printed and written is partial."""
    print(INTERRUPTED_NOTE, file=sys.stderr)


def write_rows(df: Any, csv: Optional[str], parquet: Optional[str]) -> List[str]:
    """Writes the rows (a DataFrame) to the files asked for; returns one report line per file."""
    lines = []
    if csv:
        df.to_csv(csv, index=False)
        lines.append(f"rows            {csv} ({len(df)} rows)")
    if parquet:
        df.to_parquet(parquet, index=False)
        lines.append(f"rows            {parquet} ({len(df)} rows)")
    return lines
