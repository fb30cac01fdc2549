"""What the runner runs: a :class:`Job` (a module-level function and its plain arguments, keyed
for the result store), where it runs (:class:`Where`) and what came back (:class:`Outcome`).

A job's function must be importable by name (a module-level function) and its arguments plain
data, so the job can be pickled to a worker process or shipped to a Dask worker; its result must
be JSON-able data (dicts, lists, numbers, strings, booleans, None). The runner sends every result
through JSON, wherever it was computed and whether it was computed now or read back from the
store, so a job's result is the same Python value bit for bit on every backend and worker count.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

KINDS = ("threads", "processes", "dask")


class RunnerError(ValueError):
    """A user error about where to run: a bad ``--dask`` address, an unreachable scheduler, a
    worker count below one. The message is one line naming the option."""


class Stopped(Exception):
    """Raised by a stoppable job (from its ``stop`` check) when the run is being stopped (Ctrl-C):
    the job did not finish, and the runner leaves its result empty."""


def never_stop() -> bool:
    """The ``stop`` check jobs get where nobody can stop them mid-run (worker processes, Dask):
    there, the runner stops a run by cancelling queued jobs and ending the workers."""
    return False


@dataclass(frozen=True)
class Job:
    """One unit of work.

    ``key`` identifies the result in the store (a hash of everything the result depends on; two
    jobs with the same key must give the same result). ``fn(*args)`` computes it; a ``stoppable``
    job is called as ``fn(*args, stop=check)`` where ``check()`` becomes true when the run is
    stopping (pass it on as a progress callback that raises :class:`Stopped`). ``label`` is shown
    in the progress; ``inputs`` is written beside the result in the store, for people.
    ``complete(result)`` says whether a result is the job's end (a run stopped half-way returns
    partial numbers: they are used but never stored); None: always complete."""

    key: str
    fn: Callable[..., Any]
    args: Tuple[Any, ...] = ()
    label: str = ""
    inputs: Any = None
    stoppable: bool = False
    complete: Optional[Callable[[Any], bool]] = None


@dataclass(frozen=True)
class Where:
    """Where jobs run. ``kind``: ``threads`` (this process; for jobs whose work is in the Rust
    core, which releases the GIL), ``processes`` (a local pool of worker processes, the default
    of ``mcastlab reproduce``) or ``dask`` (``address``: a scheduler address such as
    ``tcp://10.0.0.1:8786``, a scheduler file ``*.json``, or ``local`` for a
    ``dask.distributed.LocalCluster`` of ``workers`` processes). ``workers``: None is one per core."""

    kind: str = "processes"
    workers: Optional[int] = None
    address: Optional[str] = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise RunnerError(f"unknown backend {self.kind!r}; known: {', '.join(KINDS)}")
        if self.workers is not None and (not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1):
            raise RunnerError(f"workers {self.workers!r}: give a whole number of at least 1 (--workers on the command line)")
        if self.kind == "dask" and not self.address:
            raise RunnerError("--dask: give a scheduler address (tcp://HOST:PORT), a scheduler file, or `local`")

    @property
    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1

    def describe(self) -> str:
        if self.kind == "dask":
            where = "a local Dask cluster" if self.address == "local" else f"the Dask scheduler {self.address}"
            return where + (f" of {self.workers} workers" if self.address == "local" else "")
        noun = "threads" if self.kind == "threads" else "worker processes"
        return f"{self.worker_count} local {noun}"


@dataclass
class Outcome:
    """What a run of jobs gave: ``results[i]`` is job i's result (None when it did not finish:
    Ctrl-C, or a stoppable job that stopped). ``computed`` jobs ran now, ``reused`` came from the
    store; ``cpu_s`` sums the CPU seconds of the computed jobs where they could be measured
    (worker processes and Dask workers; None on threads, which share one process's clock)."""

    results: List[Optional[Any]]
    interrupted: bool
    computed: int
    reused: int
    wall_s: float
    cpu_s: Optional[float]
    where: str

    @property
    def finished(self) -> int:
        return sum(1 for r in self.results if r is not None)


def _plain(x: Any) -> Any:
    """JSON's fallback for numpy scalars (``.item()`` gives the Python number)."""
    item = getattr(x, "item", None)
    if callable(item):
        return item()
    raise TypeError(f"a job returned {type(x).__name__}, which is not JSON data")


def to_json(value: Any) -> str:
    """A result as the JSON text the runner ships and stores (NaN allowed: a run that saturated
    has no latency)."""
    return json.dumps(value, allow_nan=True, default=_plain)


def execute(fn: Callable[..., Any], args: Tuple[Any, ...], stoppable: bool) -> Tuple[str, float, float]:
    """Runs one job where it was sent (a worker process or a Dask worker): its result as JSON
    text, the CPU seconds of the process meanwhile, and the wall seconds."""
    c0, w0 = time.process_time(), time.perf_counter()
    value = fn(*args, stop=never_stop) if stoppable else fn(*args)
    return to_json(value), time.process_time() - c0, time.perf_counter() - w0
