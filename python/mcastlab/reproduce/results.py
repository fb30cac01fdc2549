"""What a reproduction gives back: per claim its verdict, per experiment its rows, table, figure
and claims, and the whole :class:`Reproduction` (what ``mcastlab.reproduce`` returns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional

from .experiment import Claim, Experiment, Scale, Verdict

if TYPE_CHECKING:
    import pandas


@dataclass
class ClaimResult:
    """A claim with its verdict. ``evidence`` is "calibrated: no evidence (...)" when the claim
    rests on a parameter fitted to one of the paper's own results, else empty."""

    experiment: str
    claim: Claim
    verdict: Verdict
    evidence: str = ""


@dataclass
class ExperimentResult:
    """One experiment's outcome: ``rows`` (tidy, every finished point), ``table`` (aggregated),
    the claims' verdicts, the figure's path, and how many points ran, were reused or are missing."""

    experiment: Experiment
    rows: "pandas.DataFrame"
    table: "pandas.DataFrame"
    claims: List[ClaimResult]
    figure: Optional[Path]
    points: int
    finished: int
    status: str  # "done", "pending" (cannot run yet), "incomplete" (interrupted)


@dataclass
class Reproduction:
    """What :func:`reproduce` returns (see its doc)."""

    experiments: List[ExperimentResult]
    scale: Scale
    seed: int
    out: Optional[Path]
    where: str
    wall_s: float
    cpu_s: Optional[float]
    computed: int
    reused: int
    interrupted: bool
    paths: Dict[str, Path] = field(default_factory=dict)

    @property
    def rows(self) -> "pandas.DataFrame":
        """Every experiment's rows in one DataFrame (columns are the union; see also ``tables``)."""
        import pandas as pd

        parts = [e.rows for e in self.experiments if len(e.rows)]
        return pd.concat(parts, ignore_index=True, sort=False) if parts else pd.DataFrame()

    @property
    def tables(self) -> Dict[str, "pandas.DataFrame"]:
        """Each experiment's aggregated table (mean, ``*_ci``, ``*_n`` per grid point), by key."""
        return {e.experiment.key: e.table for e in self.experiments}

    @property
    def verdicts(self) -> "pandas.DataFrame":
        """One row per claim: experiment, claim id, text, source, status, measured, paper, evidence."""
        import pandas as pd

        return pd.DataFrame([
            {"experiment": c.experiment, "claim": c.claim.id, "text": c.claim.text, "source": c.claim.source,
             "status": c.verdict.status, "measured": c.verdict.measured, "paper": c.verdict.paper,
             "evidence": c.evidence}
            for e in self.experiments for c in e.claims
        ], columns=["experiment", "claim", "text", "source", "status", "measured", "paper", "evidence"])
