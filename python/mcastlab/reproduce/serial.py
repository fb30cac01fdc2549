"""The simplest way to run an experiment: every point in this process, one after the other.

For tests of one experiment and for writing one; ``mcastlab reproduce`` uses the runner (local
pool or Dask, result store), which gives the same rows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Tuple

from ..runner import to_json
from .aggregate import aggregate
from .experiment import Experiment, Scale, Verdict

if TYPE_CHECKING:
    import pandas


def run_serial(experiment: Experiment, scale: Scale = "tiny", seed: int = 1) -> "pandas.DataFrame":
    """All rows of ``experiment`` at ``scale``: each point's rows carry the point's inputs (the
    rows :func:`~.api.reproduce` gives, without its provenance columns)."""
    import pandas as pd

    import json

    rows: List[Dict[str, Any]] = []
    for p in experiment.points(scale, seed):
        # Through JSON, as the runner sends every result (from a worker or the store): the same
        # values bit for bit, and the same types (a tuple becomes a list), as `reproduce` gives.
        for r in json.loads(to_json(experiment.run(p))):
            rows.append({**p, **r})
    return pd.DataFrame(rows)


def evaluate(experiment: Experiment, rows: "pandas.DataFrame") -> Tuple["pandas.DataFrame", List[Tuple[str, Verdict]]]:
    """The aggregated table and each claim's verdict."""
    table = aggregate(experiment, rows)
    return table, [(c.id, c.evaluate(table, rows)) for c in experiment.claims]
