"""Traffic over time: workload runs (one load) and load sweeps, as tidy rows.

A workload is a spec string, e.g. ``uniform:load=0.2`` (BookSim's uniform random unicasts),
``multicast_load:degree=3,load=0.1,scheme=kbinomial`` (sivaram98 §6.5), ``many_to_many:senders_pct=40,
group_pct=10`` (zhou07 §4), ``all_to_all`` or ``blast:count=16`` (bhoedjang98 §5); see
:func:`workloads`. Loads are in flits per cycle per endpoint (a cycle is one flit time), or a rate
such as ``load=40MB/s``. Measurement follows BookSim: warm-up, batches, drain, saturation rules.
"""

from __future__ import annotations

import copy
import decimal
import hashlib
import json
import math
import numbers
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union

from ._core import McastlabError, SimError, __version__, estimate_json, run_workload_json, sweep_json, workload_json, workloads_json
from .api import packets_for, param_overrides, whole_number
from .inputs import flag, number_list, once_each
from .verdict import ALLOW_UNCHECKED, check_summary, require_deadlock_free
from .display import Result
from .params import param_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .api import Fabric

# What the core's outcome says of a run that Ctrl-C (or a progress callback) stopped early.
STOPPED_BY_CALLER = "stopped by the caller before the end"
# Sources whose plans are checked before a run: this many, spread over the endpoints.
CHECKED_SOURCES = 8

# The measurement settings' names, from the core's parameter table (keys `measure.*`).
MEASURE_KEYS = tuple(
    r["key"].split(".", 1)[1] for r in param_rows() if r["key"].startswith("measure.")
)
# Their types as the table gives them (`number`, `count`, `time or none`, ...).
MEASURE_TYPES = {r["key"].split(".", 1)[1]: r["type"] for r in param_rows() if r["key"].startswith("measure.")}


def workloads() -> List[Dict[str, str]]:
    """Registered workload kinds with their parameters."""
    return json.loads(workloads_json())


def is_workload(spec: str) -> bool:
    """True when ``spec`` names a workload kind (rather than a multicast scheme)."""
    name = spec.split(":", 1)[0].strip().replace("-", "_")
    return any(w["name"] == name for w in workloads())


def _with_load(workload: str, load: Union[float, str, None]) -> str:
    if load is None:
        return workload
    sep = "," if ":" in workload else ":"
    return f"{workload}{sep}load={_load_text(load)}"


def _load_text(load: Union[float, str]) -> str:
    """A load as spec text: a finite number (numpy's too) written out in full (``0.00005``;
    ``str`` gives ``5e-05``; numpy 2's ``repr`` gives ``np.float64(0.1)``, which Decimal refused),
    a text as given (``"40MB/s"``, ``"1e-3"``: the core reads a number in any notation and refuses
    one that is not finite). Another type is a TypeError naming ``load``."""
    if isinstance(load, str):
        return load
    if isinstance(load, bool) or not isinstance(load, numbers.Real):
        raise TypeError(f"load: expected a number (flits per cycle per endpoint) or a text such as '40MB/s', "
                        f"not {type(load).__name__}")
    if isinstance(load, numbers.Integral):
        return str(int(load))
    if not math.isfinite(float(load)):
        # Refused here as the number given (Decimal would write it `Infinity`); the core refuses it too.
        raise SimError(f"parameter `load`: {float(load)} is not a finite number")
    try:
        # A numpy float's str is its shortest text at its own precision (np.float32(0.1): 0.1).
        return format(decimal.Decimal(str(load)), "f")
    except decimal.InvalidOperation:  # a Fraction's 1/10
        return format(decimal.Decimal(repr(float(load))), "f")


def _spec_keys(workload: str) -> List[str]:
    """The keys a workload spec gives (``uniform:load=0.1,bytes=64`` has ``load`` and ``bytes``)."""
    _, _, rest = workload.partition(":")
    return [kv.split("=", 1)[0].strip() for kv in rest.split(",") if kv.strip()]


def _measure_json(measure: Optional[Dict[str, Any]]) -> str:
    """The measurement settings as the core's JSON. Refused here, naming the setting: a non-dict
    (an AttributeError otherwise) and a nan or infinite number (JSON has none, and the core's
    parser would blame a column of the JSON text)."""
    if measure is not None and not isinstance(measure, dict):
        raise TypeError(f"measure: expected a dict of setting -> value, e.g. {{'batches': 10}}, not {type(measure).__name__}")
    m = dict(measure or {})
    for k, v in m.items():
        # numpy's numbers are numbers (`np.int64(1)` batches were refused as not whole).
        if isinstance(v, numbers.Real) and not isinstance(v, bool):
            v = m[k] = int(v) if isinstance(v, numbers.Integral) else float(v)
        if isinstance(v, float) and not math.isfinite(v):
            raise SimError(f"parameter `measure.{k}`: {v} is not a finite number")
        kind = MEASURE_TYPES.get(k, "")
        # A bare number of a duration is refused as its text is ("1000" needs a unit), not read
        # as picoseconds, which the core's JSON reader would do; 0 is 0 in any unit.
        if kind.startswith("time") and isinstance(v, (int, float)) and not isinstance(v, bool):
            if v != 0:
                n = int(v) if v == int(v) else v
                raise SimError(f"parameter `measure.{k}`: {v} needs a unit, e.g. '{n}cycles' or '{n}us'")
            v = m[k] = "0"
        # (The core's JSON reader would answer `invalid type: string "abc", expected f64`.)
        wants = {"number": (int, float), "count": (int,)}.get(kind)
        if wants and (isinstance(v, bool) or not isinstance(v, wants)):
            raise SimError(f"parameter `measure.{k}`: {v!r} is not a {'whole ' if wants == (int,) else ''}number")
    unknown = sorted(set(m) - set(MEASURE_KEYS))
    if unknown:
        raise SimError(f"parameter `measure.{unknown[0]}`: unknown; known: {', '.join(MEASURE_KEYS)}")
    return json.dumps(m)


def _routing(fabric: "Fabric", routing: Optional[str]) -> Any:
    return fabric.routing(routing)._core


def check_plans(
    fabric: "Fabric",
    workload: str,
    *,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    seed: int = 1,
    routing: Optional[str] = None,
) -> Optional[Dict[str, Any]]:
    """The check of the plans a workload's scheme builds, before a run (None for plain unicast
    traffic, which has no plans). The run draws its own destination sets message by message, so
    this checks a sample: from up to ``CHECKED_SOURCES`` sources spread over the endpoints (and
    the workload's own ``source``), a group of the workload's size drawn from ``seed`` and a
    broadcast to every other endpoint. Returns the check summary of the first sampled plan that
    fails (else of the last one) with ``plans``, the number checked."""
    w = json.loads(workload_json(workload))
    traffic = w["traffic"]
    if traffic["kind"] in ("uniform", "permutation"):  # the kinds that send plain unicasts (no scheme)
        return None
    n = fabric.num_endpoints
    sources = {i * n // CHECKED_SOURCES for i in range(min(CHECKED_SOURCES, n))}
    if "source" in traffic and traffic["source"] < n:
        sources.add(traffic["source"])
    # The sample's group has the workload's size: its degree or exact count, else its percentage.
    count = traffic.get("degree") or traffic.get("group")
    group_pct = traffic.get("group_pct") or 100.0
    packets = 1 if w["message_bytes"] is None else packets_for(w["message_bytes"], preset, params)
    first = None
    checked = 0
    for s in sorted(sources):
        groups = [[d for d in range(n) if d != s]]
        if count is not None and 0 < count < n - 1:
            groups.append(fabric.random_group(s, seed=seed, count=count))
        elif count is None and group_pct < 100.0:
            groups.append(fabric.random_group(s, group_pct, seed))
        for dests in groups:
            try:
                plan = fabric.plan(w["scheme"], s, dests, packets=packets, discipline=w["discipline"], routing=routing)
                rep = plan.verdict_check()
            except McastlabError:
                continue  # a group this scheme cannot serve: the run says so if it draws one
            checked += 1
            if first is None or (first["deadlock"]["status"] != "cycle" and not rep["ok"]):
                first = rep
    if first is None:
        return None
    summary = check_summary(first)
    summary["verdict"] = f"{checked} sampled plans of {first['scheme']}: {summary['verdict']}"
    return {**summary, "plans": checked, "report": first}


def _check_key(workload: str, kw: Dict[str, Any]) -> str:
    """What a plan check depends on: the workload without its injection (load, process, count:
    they change when messages start, not which plans are built), the preset, parameters, seed and
    routing."""
    w = json.loads(workload_json(workload))
    w.pop("inject", None)
    return json.dumps([w, {k: kw.get(k) for k in sorted(kw)}], sort_keys=True, default=str)


def _checked(fabric: "Fabric", workload: str, allow_unchecked: bool, **kw: Any) -> Optional[Dict[str, Any]]:
    """:func:`check_plans` for a run, refusing a workload whose plans can deadlock unless
    ``allow_unchecked``; returns the summary the result carries (without the whole report).
    The check is done once per fabric object and :func:`_check_key` (a copy is returned)."""
    allow_unchecked = flag("allow_unchecked", allow_unchecked)
    cache: Dict[str, Any] = fabric._plan_checks
    key = _check_key(workload, kw)
    if key not in cache:
        cache[key] = check_plans(fabric, workload, **kw)
    summary = copy.deepcopy(cache[key])
    if summary is None:
        return None
    rep = summary.pop("report")
    if not allow_unchecked:
        require_deadlock_free(rep, f"workload `{workload}`: a plan of scheme `{rep['scheme']}`",
                              ALLOW_UNCHECKED)
    return summary


def run_workload(
    fabric: "Fabric",
    workload: str,
    *,
    load: Union[float, str, None] = None,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    seed: int = 1,
    measure: Optional[Dict[str, Any]] = None,
    routing: Optional[str] = None,
    progress: Optional[Callable[..., None]] = None,
    allow_unchecked: bool = False,
) -> Dict[str, Any]:
    """Runs one workload and returns ``{"run": row, "samples": [...], "destinations": [...],
    "interrupted": bool, "check": ...}``. ``check`` is the verdict on the plans the workload's
    scheme builds (:func:`check_plans`; None for unicast traffic); a workload whose plans can
    deadlock raises PlanError unless ``allow_unchecked=True``. ``load`` is appended to the spec (``uniform`` + ``load=0.2``).
    ``measure`` sets ``warmup``/``batch`` (``"50us"``, ``"10000cycles"``), ``batches``,
    ``latency_limit``, ``latency_factor``, ``accepted_margin``, ``drain_limit`` and ``detail``
    (``"none"``, ``"messages"``: one sample row per message, ``"destinations"``: and per
    destination), ``ages`` (``"message"``; ``"flit"``: BookSim's unstable-run test, one age per
    flit of every unfinished message) and ``stop`` (``"tick"``; ``"exact"``: generation stops the
    instant the last measured message finishes, as BookSim does). Left unset, ``latency_limit``,
    ``ages`` and ``stop`` follow the preset: BookSim's 500 cycles, ``flit`` and ``exact`` under the
    ``booksim_*`` presets, ``latency_factor`` × zero-load, ``message`` and ``tick`` otherwise. ``progress(now_ps, window_end_ps, messages, finished, events)`` is called a few
    times a second; Ctrl-C stops the run and returns what it measured with ``interrupted`` true.
    An exception ``progress`` raises (``KeyboardInterrupt`` too) stops the run at its next stop
    check (the next measurement tick, a tenth of a batch, at the latest) and propagates as is."""
    spec = _with_load(workload, load)
    checked = _checked(fabric, spec, allow_unchecked, preset=preset, params=params, seed=seed, routing=routing)
    out = json.loads(
        run_workload_json(
            _routing(fabric, routing),
            _with_load(workload, load),
            preset,
            param_overrides(params),
            _measure_json(measure),
            whole_number("seed", seed),
            progress,
        )
    )
    return Result({**out["result"], "interrupted": out["interrupted"], "check": checked}, f"run of {workload}")


def estimate(
    fabric: "Fabric",
    workload: str,
    loads: Optional[Sequence[float]] = None,
    *,
    load: Union[float, str, None] = None,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    seed: int = 1,
    measure: Optional[Dict[str, Any]] = None,
    routing: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """The expected work of each run before any is run, one dict per load of ``loads`` (or one for
    ``load``): ``span_ps`` (warm-up and window), ``messages``, ``flit_hops_per_message`` (alone on
    the network) and ``events`` (a floor: a saturated run takes more). A run whose estimate exceeds
    ``limits.max_events`` is refused by :func:`run_workload` and :func:`sweep` with these numbers."""
    loads = list(loads or [])
    spec = workload if "load" in _spec_keys(workload) or not loads else _with_load(workload, loads[0])
    return json.loads(
        estimate_json(
            _routing(fabric, routing),
            _with_load(spec, load),
            [float(x) for x in loads],
            preset,
            param_overrides(params),
            _measure_json(measure),
            whole_number("seed", seed),
        )
    )


def sweep_results(
    fabric: "Fabric",
    workload: str,
    loads: Sequence[float],
    *,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    seed: int = 1,
    measure: Optional[Dict[str, Any]] = None,
    routing: Optional[str] = None,
    progress: Optional[Callable[[int], None]] = None,
    allow_unchecked: bool = False,
    points: Optional[Callable[[int, int], None]] = None,
    workers: Optional[int] = None,
    dask: Optional[str] = None,
    store: Optional[str] = None,
) -> Dict[str, Any]:
    """The runs of a sweep, in the order of ``loads``: ``{"results": [...], "interrupted": bool,
    "check": ...}``. Each load is one runner job (:mod:`mcastlab.runner`): on ``workers`` threads
    by default (one per core), on Dask with ``dask`` (a scheduler address, a scheduler file or
    ``"local"``); ``store`` (a directory) keeps each finished point and reuses it in a later
    sweep with the same inputs. Every run is single-threaded and seeded, so the rows do not
    depend on where or in how many workers they ran. Every point's budget is checked before any
    runs (the sweep is refused whole). ``points(finished, total)`` gets the points that have
    ended and ``progress(events)`` the events of the finished points, a few times a second (on
    threads; an exception it raises stops the sweep and is raised as is). Ctrl-C and the check of
    the plans (``check``, ``allow_unchecked``) behave as in :func:`run_workload`. After Ctrl-C,
    the points the run did not finish have outcome ``budget`` with ``STOPPED_BY_CALLER``
    (``complete`` false in :func:`run_rows`): on threads with what they measured so far, on
    Dask with no numbers."""
    from .portable import FabricRef
    from .runner import Job, Store, Where, run_jobs

    if "load" in _spec_keys(workload):
        # Each point's load is one of `loads`: the spec's own would be silently dropped.
        raise SimError(f"parameter `load`: workload `{workload}` gives a load of its own; a sweep's loads are "
                       "its `loads` (--loads): leave load= out of the workload")
    loads = number_list("loads", loads)
    once_each("loads", loads)
    if workers is not None:
        whole_number("workers", workers, 1)
    spec = workload if not loads else _with_load(workload, loads[0])
    checked = _checked(fabric, spec, allow_unchecked, preset=preset, params=params, seed=seed, routing=routing)
    seed = whole_number("seed", seed)
    measure_json = _measure_json(measure)
    overrides = param_overrides(params)
    # Refused whole, before any point runs: a non-positive load (the core's own check, which runs
    # nothing), then any point beyond the budgets (the estimate).
    bad = [x for x in loads if not (x > 0 and math.isfinite(x))]
    if bad:
        sweep_json(_routing(fabric, routing), spec, bad, preset, overrides, measure_json, seed, None)
    estimate_json(_routing(fabric, routing), spec, loads, preset, overrides, measure_json, seed)
    ref = FabricRef(fabric)
    jobs = []
    for i, load in enumerate(loads):
        args = (ref, spec, load, preset, overrides, measure_json, seed, routing)
        if store is None:
            key = str(i)
            inputs = None
        else:
            inputs = {"job": "sweep.point", "revision": SWEEP_REVISION, "version": __version__, "fabric": ref.digest,
                      "args": list(args[1:])}
            key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
        jobs.append(Job(key=key, fn=_sweep_point, args=args, label=f"load {load}", inputs=inputs, stoppable=True,
                        complete=lambda r: is_complete(r["run"]["outcome"])))
    events = [0]

    def tell(done: int, total: int, _: str) -> None:
        if points is not None:
            points(done, total)

    finished_events = [0]

    def arrived(_: int, res: Dict[str, Any]) -> None:
        finished_events[0] += int(res["run"].get("events") or 0)

    def poll() -> None:
        if progress is not None:
            progress(finished_events[0])

    where = Where("dask", workers, dask) if dask is not None else Where("threads", workers)
    out = run_jobs(jobs, where, store=Store(store) if store is not None else None, progress=tell,
                   poll=poll if progress is not None else None, on_result=arrived)
    results = []
    for load, res in zip(loads, out.results):
        if res is None:  # not started, or ended with its worker (Dask, processes): nothing measured
            res = {"run": {"offered_load": load, "outcome": {"kind": "budget", "message": STOPPED_BY_CALLER},
                           "params": params or {}, "measure": measure or {}, "saturated": False}}
        else:
            events[0] += int(res["run"].get("events") or 0)
        results.append(res)
    if progress is not None:
        progress(events[0])
    return {"results": results, "interrupted": out.interrupted, "check": checked}


# Bumped when a sweep point's content changes, so a result store does not reuse old points.
SWEEP_REVISION = 1


def _sweep_point(ref: Any, spec: str, load: float, preset: str, overrides: List[str], measure_json: str, seed: int,
                 routing: Optional[str], stop: Callable[[], bool]) -> Dict[str, Any]:
    """One load of a sweep (a runner job): the core's sweep of that one load, so the run is the
    very one a sweep of many loads makes. ``stop()`` true makes the core stop the run and return
    what it measured (the progress callback answers False)."""
    f = ref.get()
    out = json.loads(sweep_json(_routing(f, routing), spec, [load], preset, overrides, measure_json, seed,
                                lambda *_: not stop()))
    return out["results"][0]


def sweep(fabric: "Fabric", workload: str, loads: Sequence[float], **kwargs: Any) -> "pandas.DataFrame":
    """Latency and throughput versus offered load: one row per load (see :func:`run_rows`)."""
    return run_rows([r["run"] for r in sweep_results(fabric, workload, loads, **kwargs)["results"]])


def run_rows(rows: List[Dict[str, Any]]) -> "pandas.DataFrame":
    """Run rows as a DataFrame: the outcome flattened to ``outcome`` (its kind) and
    ``outcome_detail``; ``params`` and ``measure`` kept as JSON text (every input stays in the row);
    latencies also in microseconds (``*_us``); ``complete`` false, and ``outcome``
    ``interrupted``, for a run Ctrl-C stopped before its end (its numbers are partial and prove
    nothing about saturation)."""
    import pandas as pd

    flat = []
    for r in rows:
        r = dict(r)
        o = r.pop("outcome")
        complete = is_complete(o)
        # A stopped run is no budget reached: named as compare's rows name it.
        r["outcome"] = o["kind"] if complete else "interrupted"
        r["complete"] = complete
        r["outcome_detail"] = json.dumps({k: v for k, v in o.items() if k != "kind"}) if len(o) > 1 else ""
        r["params"] = json.dumps(r["params"], sort_keys=True)
        r["measure"] = json.dumps(r["measure"], sort_keys=True)
        for k in list(r):
            if k.endswith("_ps") and k.startswith(("latency", "destination_latency", "zero_load")):
                v = r[k]
                r[k[:-3] + "_us"] = None if v is None else v / 1e6
        flat.append(r)
    return pd.DataFrame(flat)


def is_complete(outcome: Dict[str, Any]) -> bool:
    """Whether a run's outcome (its ``outcome`` dict) is the end of the run, not Ctrl-C or a
    progress callback stopping it early."""
    return not (outcome["kind"] == "budget" and outcome.get("message") == STOPPED_BY_CALLER)
