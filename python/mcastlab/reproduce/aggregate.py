"""Rows of replicates to one table row per grid point: mean, 95% confidence half-width, count.

The confidence interval is Student's t: replicates are few (the papers use 10 random topologies,
100 repetitions) so the normal quantile would understate it. The two-sided 95% quantiles for 1 to
30 degrees of freedom are the standard table's values (scipy would bring a large dependency for
these thirty numbers); beyond 30 the normal quantile differs from t by under 4%, and 40, 60, 120
are tabulated too.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Sequence

from .experiment import REPLICATE, SEED, Experiment

if TYPE_CHECKING:
    import pandas

_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
_T95_LARGE = ((40, 2.021), (60, 2.000), (120, 1.980))
_Z95 = 1.960


def t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (``df`` >= 1)."""
    if df < 1:
        raise ValueError("t95 needs at least one degree of freedom")
    if df <= len(_T95):
        return _T95[df - 1]
    for bound, q in _T95_LARGE:
        if df <= bound:
            return q
    return _Z95


def ci95(values: Sequence[float]) -> float:
    """Half-width of the 95% confidence interval of the mean of ``values`` (0 for one value, NaN
    for none)."""
    n = len(values)
    if n == 0:
        return math.nan
    if n == 1:
        return 0.0
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return t95(n - 1) * math.sqrt(var / n)


def identity_columns(experiment: Experiment, columns: Sequence[str]) -> List[str]:
    """The columns that identify a grid point: all but the measured values, the replicate, the
    seed and the experiment's per-replicate ``details`` (in the rows' column order)."""
    skip = set(experiment.values) | set(experiment.details) | {REPLICATE, SEED}
    return [c for c in columns if c not in skip]


def aggregate(experiment: Experiment, rows: "pandas.DataFrame") -> "pandas.DataFrame":
    """One row per grid point: the identity columns, then for each value column ``v`` its mean
    ``v``, ``v_ci`` (95% half-width over replicates) and ``v_n`` (replicates with a value; a run
    that saturated or failed leaves NaN and is not counted). A value the experiment ``reduce``s
    by ``"max"`` or ``"min"`` is that extreme over the replicates instead, with ``v_ci`` 0."""
    import pandas as pd

    ids = identity_columns(experiment, list(rows.columns))
    out: List[Dict[str, Any]] = []
    groups = rows.groupby(ids, sort=False, dropna=False) if ids else [((), rows)]
    for key, part in groups:
        rec: Dict[str, Any] = dict(zip(ids, key if isinstance(key, tuple) else (key,)))
        for v in experiment.values:
            vals = [float(x) for x in part[v] if x is not None and not (isinstance(x, float) and math.isnan(x))]
            how = experiment.reduce.get(v, "mean")
            if how == "mean":
                rec[v] = sum(vals) / len(vals) if vals else math.nan
                rec[f"{v}_ci"] = ci95(vals)
            elif how in ("max", "min"):
                rec[v] = (max(vals) if how == "max" else min(vals)) if vals else math.nan
                rec[f"{v}_ci"] = 0.0 if vals else math.nan
            else:
                raise ValueError(f"{experiment.key}: reduce {v!r} by {how!r}; known: mean, max, min")
            rec[f"{v}_n"] = len(vals)
        out.append(rec)
    return pd.DataFrame(out)
