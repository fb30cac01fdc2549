"""``mcastlab.reproduce(...)`` and ``mcastlab reproduce``: run experiments, write their rows,
figures, claims and the report.

Every experiment's points become runner jobs (:mod:`.points`); all of them run in one pass on the
chosen backend, so a pool or a cluster stays busy across experiments; each finished point is in
the result store at once. Then, per experiment: its rows, the aggregated table (mean and 95% CI
per grid point), the figure, and each claim's verdict. A claim that rests on a calibrated
parameter keeps its verdict but is marked "calibrated: no evidence".
"""

from __future__ import annotations

import difflib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union

from .._core import __version__
from ..runner import Job, Outcome, RunnerError, Store, Where, run_jobs
from ..runner import cluster
from ..runner.store import make_directory
from . import points as pts
from . import registry
from .aggregate import aggregate
from .experiment import NOT_APPLICABLE, PENDING, SCALES, Claim, Experiment, Scale, Verdict
from .figures import draw, figure_name
from .report import versions, write_report
from .results import ClaimResult, ExperimentResult, Reproduction

if TYPE_CHECKING:
    import pandas

DEFAULT_OUT = "mcastlab-reproduce"
Progress = Callable[[int, int, str], None]


class ReproduceError(ValueError):
    """A user error (unknown experiment, bad scale or seed, unwritable output): one line."""


# -- choosing experiments -------------------------------------------------------------------------
def select(names: Union[str, Sequence[str]]) -> List[Experiment]:
    """The experiments ``names`` ask for (see :func:`registry.select`); an unknown name is a
    :class:`ReproduceError` naming the closest keys."""
    if isinstance(names, str):
        names = [names]
    names = list(names)
    if not names:
        raise ReproduceError("name the experiments to run: a key (coll03:fig8), a paper (coll03), a pattern "
                             "('zhou07:fig1*') or `all`; `mcastlab reproduce --list` lists them")
    try:
        return registry.select(names)
    except KeyError as e:
        bad = e.args[0]
        known = [x.key for x in registry.EXPERIMENTS] + list(registry.PAPERS) + ["all"]
        close = difflib.get_close_matches(bad, known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `mcastlab reproduce --list` lists them"
        raise ReproduceError(f"unknown experiment `{bad}`{hint}") from None


def check_scale(scale: str) -> Scale:
    if scale not in SCALES:
        raise ReproduceError(f"scale {scale!r} is not one of {', '.join(SCALES)}")
    return scale


def _prepare_out(out: Union[str, "os.PathLike[str]"]) -> Path:
    path = make_directory(out, "--out", ReproduceError)
    for sub in ("figures", "rows"):
        make_directory(path / sub, "--out", ReproduceError)
    return path


def check_inputs(names: Union[str, Sequence[str]], scale: str, out: Union[str, "os.PathLike[str]", None],
                 dask: Optional[str]) -> List[Experiment]:
    """Everything a run checks before any work, in the order a user reads it: the names, the
    scale, the Dask address's form, the output directory (created). Returns the experiments."""
    chosen = select(names)
    check_scale(scale)
    if dask is not None:
        cluster.check_address(dask)
    if out is not None:
        _prepare_out(out)
    return chosen


def _where(workers: Optional[int], dask: Optional[str], serial: bool) -> Where:
    if dask is not None:
        cluster.check_address(dask)
        return Where("dask", workers, dask)
    return Where("threads" if serial else "processes", 1 if serial else workers)


# -- the run --------------------------------------------------------------------------------------
def reproduce(
    names: Union[str, Sequence[str]] = "all",
    *,
    scale: Scale = "full",
    out: Union[str, "os.PathLike[str]", None] = DEFAULT_OUT,
    seed: int = 1,
    workers: Optional[int] = None,
    dask: Optional[str] = None,
    store: Union[str, "os.PathLike[str]", None, bool] = True,
    serial: bool = False,
    progress: Optional[Progress] = None,
) -> Reproduction:
    """Runs the experiments ``names`` (``"all"``, a paper ``"zhou07"``, a key ``"coll03:fig8"``, a
    pattern ``"zhou07:fig1*"``, or a list of those) at ``scale`` (``"tiny"``, ``"quick"``,
    ``"full"`` = the paper's own counts) and master ``seed``.

    Points run on a local process pool of ``workers`` (default: one per core), or on Dask with
    ``dask`` (a scheduler address, a scheduler file, or ``"local"`` for a LocalCluster of
    ``workers``), or one after the other in this process with ``serial=True``; the rows are the
    same on all. ``store``: the result store directory (True: ``OUT/store``; None or False: no
    store): finished points are reused, new ones written as soon as they finish. ``out``: where
    rows (``rows/<key>.csv|parquet``), figures (``figures/<key>.svg``), ``report.html`` and
    ``summary.md`` go (None: nothing written). ``progress(done, total, label)`` follows the points.

    Returns a :class:`Reproduction`: ``rows`` (DataFrame), ``tables`` (aggregated, by key),
    ``verdicts`` (DataFrame of claims), ``experiments`` (per experiment), ``paths`` (written
    files). Ctrl-C keeps what finished (``interrupted`` true; unfinished experiments' claims are
    pending)."""
    from ..api import whole_number

    chosen = check_inputs(names, scale, out, dask)
    whole_number("seed", seed)
    where = _where(workers, dask, serial)
    outdir = _prepare_out(out) if out is not None else None
    the_store = _open_store(store, outdir)
    t0 = time.perf_counter()
    plan = []
    all_jobs: List[Job] = []
    for e in chosen:
        if e.pending:
            plan.append((e, [], [], 0))
            continue
        p, j = pts.jobs(e, scale, seed)
        plan.append((e, p, j, len(all_jobs)))
        all_jobs.extend(j)
    if where.kind == "dask":
        # Connect first: a scheduler that cannot be reached is a one-line error before any work.
        with cluster.session(where.address or "local", where.workers) as client:
            outcome = run_jobs(all_jobs, where, store=the_store, progress=progress, client=client)
    else:
        outcome = run_jobs(all_jobs, where, store=the_store, progress=progress)
    results = []
    for e, p, j, start in plan:
        results.append(_finish(e, scale, seed, p, j, outcome.results[start:start + len(j)], outdir))
    rep = Reproduction(results, scale, seed, outdir, outcome.where, time.perf_counter() - t0, outcome.cpu_s,
                       outcome.computed, outcome.reused, outcome.interrupted)
    if outdir is not None:
        rep.paths.update(write_report(rep, outdir))
    return rep


def _open_store(store: Union[str, "os.PathLike[str]", None, bool], outdir: Optional[Path]) -> Optional[Store]:
    if store is None or store is False:
        return None
    if store is True:
        if outdir is None:
            return None
        store = outdir / "store"
    try:
        return Store(store)
    except Exception as e:  # StoreError: a user error
        raise ReproduceError(str(e)) from None


def _finish(e: Experiment, scale: Scale, seed: int, points: Sequence[Any], jobs_: Sequence[Job],
            results: Sequence[Optional[Any]], outdir: Optional[Path]) -> ExperimentResult:
    import pandas as pd

    if e.pending:
        claims = [ClaimResult(e.key, c, Verdict(PENDING, f"not run: {e.pending}"), _evidence(e, c)) for c in e.claims]
        fig = outdir / "figures" / figure_name(e) if outdir is not None else None
        if fig is not None:
            draw(e, pd.DataFrame(), fig)
        return ExperimentResult(e, pd.DataFrame(), pd.DataFrame(), claims, fig, 0, 0, "pending")
    rows = pts.rows(e, scale, seed, points, jobs_, results)
    finished = sum(1 for r in results if r is not None)
    measured = pts.measured_rows(e, rows)
    table = aggregate(e, measured) if len(measured) else pd.DataFrame()
    complete = finished == len(points)
    claims = []
    for c in e.claims:
        if not complete:
            v = Verdict(PENDING, f"run interrupted: {finished} of {len(points)} points finished")
        else:
            v = _evaluate(c, table, measured)
        claims.append(ClaimResult(e.key, c, v, _evidence(e, c)))
    fig = None
    if outdir is not None:
        stem = figure_name(e, "")[:-1]
        if len(rows):
            rows.to_csv(outdir / "rows" / f"{stem}.csv", index=False)
            rows.to_parquet(outdir / "rows" / f"{stem}.parquet", index=False)
            table.to_csv(outdir / "rows" / f"{stem}.table.csv", index=False)
        fig = draw(e, table, outdir / "figures" / figure_name(e))
    return ExperimentResult(e, rows, table, claims, fig, len(points), finished, "done" if complete else "incomplete")


def _evaluate(c: Claim, table: Any, rows: Any) -> Verdict:
    """A claim's verdict; an evaluator that fails says so in the verdict (and the tests, which
    run every claim, fail on it) rather than losing a long run's report."""
    try:
        v = c.evaluate(table, rows)
    except Exception as err:  # noqa: BLE001 - reported in the verdict, never hidden
        return Verdict(NOT_APPLICABLE, f"evaluation failed: {type(err).__name__}: {err}")
    if not isinstance(v, Verdict):
        return Verdict(NOT_APPLICABLE, f"evaluation failed: returned {type(v).__name__}, not a Verdict")
    return v


def _evidence(e: Experiment, c: Claim) -> str:
    if not c.calibrated_keys:
        return ""
    parts = []
    for key in c.calibrated_keys:
        s = e.stated.get(key)
        parts.append(f"{key}: {s.source}" if s is not None else key)
    return f"calibrated: no evidence ({'; '.join(parts)})"


# -- listing --------------------------------------------------------------------------------------
def listing(scale: Scale = "quick", names: Union[str, Sequence[str]] = "all") -> List[Dict[str, Any]]:
    """One dict per experiment: key, label, title, what it varies, points and cost estimate (CPU
    seconds on one core) at ``scale``, and why it is pending (None when it runs)."""
    check_scale(scale)
    out = []
    for e in select(names):
        n = len(e.grid(scale)) * e.replicates.get(scale, 0) if not e.pending else 0
        out.append({"key": e.key, "paper": e.paper, "label": e.label, "title": e.title, "varies": e.varies,
                    "points": n, "cost_s": e.cost_s.get(scale), "claims": len(e.claims), "pending": e.pending})
    return out


__all__ = ["DEFAULT_OUT", "ClaimResult", "ExperimentResult", "Reproduction", "ReproduceError", "Outcome", "RunnerError",
           "listing", "reproduce", "select", "versions"]
