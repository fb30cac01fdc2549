"""Experiments' points as runner jobs, and the jobs' results back as tidy rows.

A point's job is the experiment's own ``run`` function with the point as its one argument, keyed
by :func:`~.experiment.point_key` (the experiment, its revision, the point's inputs, the mcastlab
version), so the result store reuses exactly the points whose inputs did not change. Each row is
the point's inputs, then what ``run`` measured, then the columns that say where it comes from
(experiment, paper, scale, master seed, revision, version, point key).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from .._core import __version__
from ..runner import Job
from .experiment import Experiment, Point, Scale, point_key

if TYPE_CHECKING:
    import pandas

# Columns every row carries besides the point's inputs and measured values.
PROVENANCE = ("experiment", "paper", "scale", "master_seed", "revision", "mcastlab_version", "point_key")


def jobs(experiment: Experiment, scale: Scale, seed: int, version: str = __version__) -> Tuple[List[Point], List[Job]]:
    """The points of ``experiment`` at ``scale`` under master ``seed``, and a job per point."""
    points = experiment.points(scale, seed)
    out = []
    for p in points:
        key = point_key(experiment, p, version)
        label = f"{experiment.key} " + " ".join(f"{k}={v}" for k, v in p.items() if k != "seed")
        out.append(Job(key=key, fn=experiment.run, args=(p,), label=label,
                       inputs={"experiment": experiment.key, "revision": experiment.revision, "point": p,
                               "version": version}))
    return points, out


def rows(experiment: Experiment, scale: Scale, seed: int, points: Sequence[Point], jobs_: Sequence[Job],
         results: Sequence[Optional[Any]], version: str = __version__) -> "pandas.DataFrame":
    """The tidy rows of the points that finished (``results[i]`` the rows ``run`` returned for
    ``points[i]``, None if it did not finish), in point order."""
    import pandas as pd

    out: List[Dict[str, Any]] = []
    for p, j, res in zip(points, jobs_, results):
        if res is None:
            continue
        for r in res:
            out.append({**p, **r, "experiment": experiment.key, "paper": experiment.paper, "scale": scale,
                        "master_seed": seed, "revision": experiment.revision, "mcastlab_version": version,
                        "point_key": j.key})
    return pd.DataFrame(out)


def measured_rows(experiment: Experiment, rows_: "pandas.DataFrame") -> "pandas.DataFrame":
    """The rows without the provenance columns: what :func:`~.serial.run_serial` gives, and what
    :func:`~.aggregate.aggregate` groups."""
    return rows_.drop(columns=[c for c in PROVENANCE if c in rows_.columns])
