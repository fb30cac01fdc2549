"""Progress display for long commands: a rich bar on an interactive terminal, nothing otherwise
(pipes and CI logs stay clean)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator, Optional


@contextmanager
def counted(description: str, total: Optional[int] = None) -> Iterator[Callable[..., None]]:
    """Yields ``advance(done, total=None, note="")``: sets the bar to ``done`` of ``total`` steps and
    shows ``note`` after the description."""
    if not sys.stderr.isatty():
        yield lambda *a, **k: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    prog = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = prog.add_task(description, total=total)

    def advance(done: int, total: Optional[int] = None, note: str = "") -> None:
        kw = {"total": total} if total is not None else {}
        prog.update(task, completed=done, description=f"{description} {note}".rstrip(), **kw)

    with prog:
        yield advance
