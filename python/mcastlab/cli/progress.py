"""Progress display for long commands: a rich bar on an interactive terminal, nothing otherwise
(pipes and CI logs stay clean) unless asked for plain lines (``MCASTLAB_PROGRESS=lines``).

This is part of the command line, not of the library: the API only takes ``progress`` callbacks
and never draws anything, so only ``mcastlab.cli`` needs (and may import) this module.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional

# A rough pace of the engine, for announcing how long a large run may take: docs/performance.md
# measures 5-11 M events/s on one core of the reference machine. Only used for the announcement;
# the progress bar's time left comes from the run's own pace.
EVENTS_PER_S = 10e6
# Runs expected to take at least this many events (about five seconds) are announced.
ANNOUNCE_EVENTS = 50_000_000

# `MCASTLAB_PROGRESS=lines`: plain progress lines on stderr when it is not a terminal.
PROGRESS_ENV = "MCASTLAB_PROGRESS"

# What `Plan.simulate` calls between slices of a run: (events, now_ps, done).
RunProgress = Callable[[int, int, bool], None]


@contextmanager
def counted(description: str, total: Optional[int] = None) -> Iterator[Callable[..., None]]:
    """Yields ``advance(done, total=None, note="")``: sets the bar to ``done`` of ``total`` steps and
    shows ``note`` after the description. Without a terminal nothing, unless the environment has
    ``MCASTLAB_PROGRESS=lines``: then one plain line on stderr each time ``done`` grows
    (``comparing: 3 of 45 done (binomial (host) 4KiB)``), for a log or a script that waits for a
    finished step (to interrupt the run, say)."""
    if not sys.stderr.isatty() and os.environ.get(PROGRESS_ENV) != "lines":
        yield lambda *a, **k: None
        return
    if not sys.stderr.isatty():
        last = [0]

        def line(done: int, total: Optional[int] = None, note: str = "") -> None:
            if done > last[0]:
                last[0] = done
                of = "" if total is None else f" of {total}"
                print(f"{description}: {done}{of} done" + (f" ({note})" if note else ""), file=sys.stderr, flush=True)

        yield line
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    prog = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = prog.add_task(description, total=total)

    def advance(done: int, total: Optional[int] = None, note: str = "") -> None:
        # rich leaves the total as it was when given None.
        prog.update(task, completed=done, total=total, description=f"{description} {note}".rstrip())

    with prog:
        yield advance


@contextmanager
def single_run() -> Iterator[Optional[RunProgress]]:
    """A spinner with the event count and simulated time of one run, for ``Plan.simulate``'s
    ``progress``; yields None (no callback at all) when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True)
    task = prog.add_task("simulating", total=None)

    def update(events: int, now_ps: int, done: bool) -> None:
        prog.update(task, description=f"simulating: {events:,} events, t = {now_ps / 1e6:,.3f} us")

    with prog:
        yield update


def announce(estimates: List[Dict[str, Any]], what: str) -> None:
    """Says on stderr, before a large run starts, how much work it is (points, messages, events,
    simulated time, and a rough wall time), so a long run is expected rather than taken for a hang.
    Small runs stay silent."""
    events = sum(e["events"] for e in estimates)
    if events < ANNOUNCE_EVENTS:
        return
    points = f"{len(estimates)} runs, " if len(estimates) > 1 else ""
    messages = sum(e["messages"] for e in estimates)
    span = max(e["span_ps"] for e in estimates) / 1e6
    print(
        f"{what}: {points}about {messages:,.0f} messages and {events:,} events over {span:,.1f} us of simulated "
        f"time; roughly {events / EVENTS_PER_S / 60:,.1f} CPU minutes at {EVENTS_PER_S / 1e6:.0f} M events/s "
        "(limits.max_events bounds each run; Ctrl-C keeps what finished)",
        file=sys.stderr,
    )
