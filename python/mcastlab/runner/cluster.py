"""Connecting to Dask: a scheduler address, a scheduler file, or a LocalCluster (``local``).

Only a ``dask.distributed.Client`` is needed, so any cluster that gives a scheduler address works
the same way: a dask-jobqueue ``SLURMCluster``'s ``scheduler_address``, a ``dask scheduler``
started by hand, Kubernetes. Dask is imported here only, and only when ``--dask`` is given.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from typing import Any, Iterator, Optional

from .jobs import RunnerError

# How long to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT_S = 10
# Scheduler addresses Dask understands: tcp://, tls://, ucx://, inproc:// with host:port, or a
# bare host:port (tcp).
_ADDRESS = re.compile(r"^((tcp|tls|ucx|inproc|ws|wss)://)?[\w.\-\[\]:]+:\d+/?$")


def check_address(address: str) -> None:
    """Refuses, before any work, an address that is neither ``local``, a scheduler file, nor a
    ``[PROTOCOL://]HOST:PORT``."""
    if address == "local" or address.endswith(".json"):
        if address.endswith(".json") and not os.path.isfile(address):
            raise RunnerError(f"--dask {address}: no such scheduler file")
        return
    if not _ADDRESS.match(address):
        raise RunnerError(f"--dask {address}: not a scheduler address; give tcp://HOST:PORT, a scheduler file (*.json) "
                          "or `local`")


def _import() -> Any:
    try:
        import distributed
    except ImportError:  # pragma: no cover - dask[distributed] is a dependency
        raise RunnerError("--dask needs dask.distributed: pip install 'dask[distributed]'") from None
    return distributed


@contextmanager
def session(address: str, workers: Optional[int]) -> Iterator[Any]:
    """A connected ``distributed.Client`` for the block (closed after it, with its LocalCluster
    when ``address`` is ``local``: ``workers`` processes of one thread each, the same pace per
    point as a local pool). An unreachable scheduler is a :class:`RunnerError`, raised before any
    work is sent."""
    check_address(address)
    distributed = _import()
    cluster = None
    try:
        if address == "local":
            n = workers or os.cpu_count() or 1
            # One thread per worker, and the core's own thread pool of one thread, as in the local
            # pool: the cluster is the parallelism (rows never depend on the thread count).
            cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=40,
                                               env={"RAYON_NUM_THREADS": "1"})
            client = distributed.Client(cluster)
        elif address.endswith(".json"):
            client = distributed.Client(scheduler_file=address, timeout=CONNECT_TIMEOUT_S)
        else:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as e:
        if cluster is not None:
            cluster.close()
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise RunnerError(f"--dask {address}: cannot reach the Dask scheduler ({first})") from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def as_completed(futures: Any) -> Any:
    """Dask's ``as_completed`` over ``futures``."""
    return _import().as_completed(futures)
