"""Runs independent jobs on threads, a local process pool or a Dask cluster, with a result store
that makes a killed run resume where it stopped. ``mcastlab reproduce``, ``mcastlab compare`` and
``mcastlab sweep`` all run their points through it (see docs/architecture.md, "The runner")."""

from .jobs import Job, Outcome, RunnerError, Stopped, Where, never_stop, to_json
from .run import Progress, run_jobs
from .store import Store, StoreError

__all__ = ["Job", "Outcome", "Progress", "RunnerError", "Stopped", "Store", "StoreError", "Where", "never_stop",
           "run_jobs", "to_json"]
