"""How a paper experiment is declared: once, as data plus a few plain functions.

An :class:`Experiment` is one figure or table of one of the five papers. It states the paper's
parameters with the section each comes from (:class:`Stated`), the grid of inputs it varies at
each :data:`Scale`, the function that computes one point (``run``), how points are aggregated
over random replicates (topologies, groups, fault maps, trials), how to draw it like the paper
(:class:`FigureSpec`), the values the paper states in its text or tables (:class:`Reference`) and
the paper's qualitative claims about it (:class:`Claim`), each evaluated from the data.

Nothing here runs anything: the runner (pool, Dask, result store) and the report build on these
values. A point is a plain JSON-able dict, so it can be hashed for the result store, pickled to a
worker process or shipped to a Dask worker; ``run`` must be a module-level function that depends
only on the point (its ``seed`` included), so every machine and worker count gives the same rows.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

# How much of the paper's own counts to run. "full" is the paper's (10 random topologies, 1,000
# fault maps, ...); "quick" a few minutes per paper on a laptop; "tiny" seconds per experiment
# (CI runs every experiment at "tiny"; the CLI's `--quick --tiny`).
SCALES = ("tiny", "quick", "full")
Scale = str

Point = Dict[str, Any]
Row = Dict[str, Any]

# The input keys every point carries besides the experiment's own grid keys.
REPLICATE = "replicate"
SEED = "seed"

# Verdicts of a claim.
HOLDS = "holds"
DIFFERS = "differs"
NOT_APPLICABLE = "not applicable"
PENDING = "pending"
VERDICTS = (HOLDS, DIFFERS, NOT_APPLICABLE, PENDING)


@dataclass(frozen=True)
class Stated:
    """One parameter of an experiment and where its value comes from.

    ``source`` is the paper's section, table or figure ("§6.1", "Table 2"), or "chosen: <why>"
    where the paper is silent. ``calibrated`` marks a value fitted to one of the paper's own
    results (named in ``source``): a claim that rests on that result is then no evidence."""

    value: Any
    source: str
    calibrated: bool = False


@dataclass(frozen=True)
class Reference:
    """A value the paper states in its text or a table, drawn on the figure as a reference point
    (``series`` at ``x``; ``panel`` when the figure has several)."""

    series: str
    x: Any
    y: float
    source: str
    panel: Optional[Any] = None


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict with the deciding numbers (``measured``) beside the paper's (``paper``)."""

    status: str
    measured: str
    paper: str = ""

    def __post_init__(self) -> None:
        if self.status not in VERDICTS:
            raise ValueError(f"verdict status {self.status!r} is not one of {', '.join(VERDICTS)}")


@dataclass(frozen=True)
class Claim:
    """One qualitative claim of the paper about this figure, written from the paper.

    ``evaluate(table, rows)`` gets the aggregated table (one row per grid point, with
    ``<value>``, ``<value>_ci`` and ``<value>_n`` columns for each value column) and the raw rows
    (the points' inputs and measured values; :mod:`.claims` has generic evaluators), and returns the
    :class:`Verdict`. ``calibrated_from`` names the calibrated parameter (a key of the
    experiment's ``stated``, or a tuple of keys) the claim rests on; its verdict is then reported
    as no evidence."""

    id: str
    text: str
    source: str
    evaluate: Callable[[Any, Any], Verdict]
    calibrated_from: Union[None, str, Tuple[str, ...]] = None

    @property
    def calibrated_keys(self) -> Tuple[str, ...]:
        """The ``stated`` keys this claim's verdict is calibrated from (empty when none)."""
        if not self.calibrated_from:
            return ()
        if isinstance(self.calibrated_from, str):
            return (self.calibrated_from,)
        return tuple(self.calibrated_from)


@dataclass(frozen=True)
class FigureSpec:
    """How the paper draws it: ``y`` against ``x``, one curve per value of ``series``, one panel
    per value of ``panel`` (if any); axis labels with units and scales as in the paper. ``kind``
    "table" renders a table (coll03's Table 1) instead of a plot."""

    x: str
    y: str
    series: Optional[str] = None
    panel: Optional[str] = None
    xlabel: str = ""
    ylabel: str = ""
    xscale: str = "linear"
    yscale: str = "linear"
    kind: str = "line"
    # More panels side by side, each another measured column against the same x, as
    # ``(column, ylabel, yscale)`` (coll03 Fig. 9: (a) bandwidth, (b) latency). Added after the
    # first contract: optional, empty for a one-measure figure.
    more_y: Sequence[Tuple[str, str, str]] = ()


@dataclass(frozen=True)
class Experiment:
    """One figure or table of a paper (see the module doc)."""

    key: str
    paper: str
    label: str
    title: str
    section: str
    varies: str
    metric: str
    stated: Mapping[str, Stated]
    # scale -> the grid points (dicts of the experiment's own inputs, without replicate and seed).
    grid: Callable[[Scale], List[Point]]
    # scale -> number of random replicates per grid point (random topologies, groups, trials).
    replicates: Mapping[Scale, int]
    run: Callable[[Point], List[Row]]
    figure: FigureSpec
    # The columns that hold measured values (aggregated: mean, 95% CI, n). The others identify
    # the point.
    values: Sequence[str]
    references: Sequence[Reference] = ()
    claims: Sequence[Claim] = ()
    # Estimated CPU seconds of the whole experiment at each scale (one core).
    cost_s: Mapping[Scale, float] = field(default_factory=dict)
    # Why the experiment cannot run yet (a mechanism not built); None when it can.
    pending: Optional[str] = None
    # Bumped when ``run`` changes what it computes, so stored results of the old code are not reused.
    revision: int = 1
    # How a value column is reduced over replicates when not by its mean: ``"max"`` or ``"min"``
    # (coll03 Fig. 7 draws the worst case over all trials; the 95% interval is then 0). Added
    # after the first contract: optional, every value is a mean unless named here.
    reduce: Mapping[str, str] = field(default_factory=dict)
    # Columns ``run`` returns that describe one replicate only (its fault map, its outcome): kept in
    # the rows, left out of the aggregated table (as identity columns they would split the
    # replicates of a grid point apart). Added after the first contract: optional.
    details: Sequence[str] = ()

    def points(self, scale: Scale, seed: int) -> List[Point]:
        """Every point at ``scale``: the grid × replicates. A replicate's seed depends on the master
        seed, the experiment and the replicate index only, so every grid point of one replicate sees
        the same random topology / group / faults (common random numbers, as the papers compare
        schemes on the same networks)."""
        if scale not in SCALES:
            raise ValueError(f"scale {scale!r} is not one of {', '.join(SCALES)}")
        out: List[Point] = []
        for g in self.grid(scale):
            for r in range(self.replicates[scale]):
                p = dict(g)
                p[REPLICATE] = r
                p[SEED] = replicate_seed(seed, self.key, r)
                out.append(p)
        return out


def replicate_seed(master: int, key: str, replicate: int) -> int:
    """A 63-bit seed for replicate ``replicate`` of experiment ``key`` under master seed ``master``
    (SHA-256 of the three: stable across Python versions and machines, unlike ``hash``)."""
    digest = hashlib.sha256(f"{master}/{key}/{replicate}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def point_key(experiment: Experiment, point: Point, version: str) -> str:
    """The result store's key of one point: a hash of everything its rows depend on (the
    experiment, its revision, the point's inputs and the mcastlab version)."""
    text = json.dumps(
        {"experiment": experiment.key, "revision": experiment.revision, "point": point, "version": version},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()
