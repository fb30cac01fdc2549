"""Runs a list of jobs where asked (threads, a local process pool, Dask), reusing and filling the
result store, reporting progress, and keeping what finished when Ctrl-C stops it.

Every backend hands back the same results: each job is a pure function of its arguments (seeds
included), and every result goes through JSON (:func:`~.jobs.to_json`) whether it was computed in
this process, a worker process, on a Dask worker, or read from the store. Results come back in
job order whatever order the jobs finished in.

Stopping (Ctrl-C in the caller's thread): on threads, stoppable jobs are told through their
``stop`` check and end within a slice of events, the queued ones are cancelled, and every thread
has ended before this returns; in a process pool, queued jobs are cancelled and the workers
ended (a job under way is lost: it was not finished, and it was not stored); on Dask, the
futures are cancelled. Finished jobs are kept in every case (and are already in the store).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import cluster
from .jobs import Job, Outcome, Stopped, Where, execute, to_json
from .store import Store

# progress(done, total, note): jobs finished (reused ones included) of all jobs.
Progress = Callable[[int, int, str], None]
# How often a thread run calls its ``poll`` while jobs run.
POLL_S = 0.2


def _worker_init() -> None:
    """Each pool worker: Ctrl-C goes to the parent, which stops the pool (a worker that took it
    too would print a traceback per process); the Rust core uses one thread, as the pool is the
    parallelism (results never depend on the thread count)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.setdefault("RAYON_NUM_THREADS", "1")


class _Run:
    """The bookkeeping of one call of :func:`run_jobs`."""

    def __init__(self, jobs: Sequence[Job], store: Optional[Store], progress: Optional[Progress],
                 on_result: Optional[Callable[[int, Any], None]] = None) -> None:
        self.jobs = jobs
        self.on_result = on_result
        self.store = store
        self.progress = progress
        self.results: List[Optional[Any]] = [None] * len(jobs)
        self.computed = 0
        self.cpu: Optional[float] = 0.0
        # Jobs sharing a key share one computation (the key says their results are the same).
        self.by_key: Dict[str, List[int]] = {}
        for i, j in enumerate(jobs):
            self.by_key.setdefault(j.key, []).append(i)
        self.todo: List[int] = []
        reused = 0
        for key, idx in self.by_key.items():
            got = store.get(key) if store is not None else None
            if got is None:
                self.todo.append(idx[0])
            else:
                for i in idx:
                    self.results[i] = got[0]
                reused += len(idx)
        self.reused = reused
        self.done = reused
        self.tell("")

    def tell(self, note: str) -> None:
        if self.progress is not None:
            self.progress(self.done, len(self.jobs), note)

    def finish(self, i: int, text: str, cpu: Optional[float], wall: float, where: str) -> None:
        import json

        job = self.jobs[i]
        value = json.loads(text)
        complete = job.complete is None or job.complete(value)
        if complete and self.store is not None:
            self.store.put(job.key, text, job.inputs, {"cpu_s": cpu, "wall_s": wall, "where": where})
        for k in self.by_key[job.key]:
            self.results[k] = value
            if self.on_result is not None:
                self.on_result(k, value)
        self.computed += 1
        if cpu is None:
            self.cpu = None
        elif self.cpu is not None:
            self.cpu += cpu
        self.done += len(self.by_key[job.key])
        self.tell(job.label)


def run_jobs(jobs: Sequence[Job], where: Where = Where(), *, store: Optional[Store] = None,
             progress: Optional[Progress] = None, client: Any = None,
             poll: Optional[Callable[[], None]] = None,
             on_result: Optional[Callable[[int, Any], None]] = None) -> Outcome:
    """Runs ``jobs`` (see the module doc) and returns their :class:`~.jobs.Outcome`. ``store``:
    reuse the results it holds, write each new complete one as soon as it finishes. ``client``:
    an open ``distributed.Client`` for ``where.kind == "dask"`` (else one is opened from
    ``where.address`` for this call). A job's error stops the others and is raised. ``poll()``
    (threads only) is called every :data:`POLL_S` while jobs run: an exception it raises (a
    KeyboardInterrupt raised inside it too) stops the jobs and is raised as is, while Ctrl-C
    anywhere else keeps what finished (``interrupted``). ``on_result(i, result)`` is called as
    each computed job's result arrives (reused ones are in the outcome only)."""
    t0 = time.perf_counter()
    run = _Run(jobs, store, progress, on_result)
    interrupted = False
    if run.todo:
        if where.kind == "threads":
            interrupted = _threads(run, where.worker_count, poll)
        elif where.kind == "processes":
            interrupted = _processes(run, where.worker_count)
        elif client is not None:
            interrupted = _dask(run, client)
        else:
            with cluster.session(where.address or "local", where.workers) as c:
                interrupted = _dask(run, c)
    return Outcome(run.results, interrupted, run.computed, run.reused, time.perf_counter() - t0, run.cpu, where.describe())


# -- threads --------------------------------------------------------------------------------------
def _in_thread(job: Job, stop: threading.Event) -> Tuple[str, Optional[float], float]:
    if stop.is_set():
        raise Stopped()
    w0 = time.perf_counter()
    value = job.fn(*job.args, stop=stop.is_set) if job.stoppable else job.fn(*job.args)
    return to_json(value), None, time.perf_counter() - w0


class _PollFailed(Exception):
    """Carries what ``poll`` raised out of the wait loop, apart from a Ctrl-C during the wait."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def _threads(run: _Run, workers: int, poll: Optional[Callable[[], None]] = None) -> bool:
    stop = threading.Event()
    pool = ThreadPoolExecutor(max_workers=min(workers, len(run.todo)))
    futures: Dict[Future, int] = {}
    handled = set()
    interrupted = False
    try:
        for i in run.todo:
            futures[pool.submit(_in_thread, run.jobs[i], stop)] = i
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=POLL_S if poll is not None else None, return_when=FIRST_COMPLETED)
            for fut in done:
                handled.add(fut)
                try:
                    text, cpu, wall = fut.result()
                except Stopped:
                    continue
                run.finish(futures[fut], text, cpu, wall, "thread")
            if poll is not None and pending:
                try:
                    poll()
                except BaseException as e:  # noqa: BLE001 - re-raised as is below
                    raise _PollFailed(e) from None
    except _PollFailed as failed:
        stop.set()
        _join(pool)
        raise failed.error
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
    except BaseException:
        stop.set()
        _join(pool)
        raise
    _join(pool)
    # Jobs that ended normally while the others were stopping are finished work: keep them.
    for fut, i in futures.items():
        if fut not in handled and fut.done() and not fut.cancelled() and fut.exception() is None:
            text, cpu, wall = fut.result()
            run.finish(i, text, cpu, wall, "thread")
    return interrupted


def _join(pool: ThreadPoolExecutor) -> None:
    """Waits for the pool's threads to end, whatever Ctrl-Cs come meanwhile (the jobs were told to
    stop): an interpreter that exits while a thread is inside the core aborts."""
    while True:
        try:
            pool.shutdown(wait=True, cancel_futures=True)
            return
        except KeyboardInterrupt:
            continue


# -- a local process pool -------------------------------------------------------------------------
def _processes(run: _Run, workers: int) -> bool:
    # spawn, not fork: the parent may hold the core's thread pool (rayon), which a forked child
    # inherits in a broken state; spawn also behaves the same on Linux, macOS and Windows.
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(run.todo)), mp_context=ctx, initializer=_worker_init)
    futures: Dict[Future, int] = {}
    interrupted = False
    try:
        for i in run.todo:
            j = run.jobs[i]
            futures[pool.submit(execute, j.fn, j.args, j.stoppable)] = i
        for fut in as_completed(futures):
            text, cpu, wall = fut.result()
            run.finish(futures[fut], text, cpu, wall, "process")
    except KeyboardInterrupt:
        interrupted = True
        _end(pool, futures)
    except BaseException:
        _end(pool, futures)
        raise
    else:
        pool.shutdown(wait=True)
    return interrupted


def _end(pool: ProcessPoolExecutor, futures: Dict[Future, int]) -> None:
    """Cancels the queued jobs and ends the workers (their jobs under way are not finished)."""
    for fut in futures:
        fut.cancel()
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
    else:
        for p in list(getattr(pool, "_processes", {}).values()):
            p.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


# -- Dask -----------------------------------------------------------------------------------------
def _dask(run: _Run, client: Any) -> bool:
    futures: List[Any] = []
    index: Dict[str, int] = {}
    interrupted = False
    try:
        for i in run.todo:
            j = run.jobs[i]
            fut = client.submit(execute, j.fn, j.args, j.stoppable, pure=False)
            futures.append(fut)
            index[fut.key] = i
        for fut in cluster.as_completed(futures):
            text, cpu, wall = fut.result()
            run.finish(index[fut.key], text, cpu, wall, "dask")
    except KeyboardInterrupt:
        interrupted = True
        client.cancel(futures)
    except BaseException:
        client.cancel(futures)
        raise
    return interrupted
