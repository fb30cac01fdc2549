"""Traffic over time: workload runs (one load) and load sweeps, as tidy rows.

A workload is a spec string, e.g. ``uniform:load=0.2`` (BookSim's uniform random unicasts),
``multicast_load:degree=3,load=0.1,scheme=kbinomial`` (sivaram98 §6.5), ``many_to_many:senders_pct=40,
group_pct=10`` (zhou07 §4), ``all_to_all`` or ``blast:count=16`` (bhoedjang98 §5); see
:func:`workloads`. Loads are in flits per cycle per endpoint (a cycle is one flit time), or a rate
such as ``load=40MB/s``. Measurement follows BookSim: warm-up, batches, drain, saturation rules.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union

from ._core import SimError, estimate_json, run_workload_json, sweep_json, workloads_json
from .api import param_overrides, whole_number
from .display import Result
from .params import param_rows

if TYPE_CHECKING:  # pragma: no cover
    import pandas

    from .api import Fabric

# The measurement settings' names, from the core's parameter table (keys `measure.*`).
MEASURE_KEYS = tuple(
    r["key"].split(".", 1)[1] for r in param_rows() if r["key"].startswith("measure.")
)


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
    return f"{workload}{sep}load={load}"


def _measure_json(measure: Optional[Dict[str, Any]]) -> str:
    """The measurement settings as the core's JSON. Refused here, naming the setting: a non-dict
    (an AttributeError otherwise) and a nan or infinite number (JSON has none, and the core's
    parser would blame a column of the JSON text)."""
    if measure is not None and not isinstance(measure, dict):
        raise TypeError(f"measure: expected a dict of setting -> value, e.g. {{'batches': 10}}, not {type(measure).__name__}")
    m = dict(measure or {})
    for k, v in m.items():
        if isinstance(v, float) and not math.isfinite(v):
            raise SimError(f"parameter `measure.{k}`: {v} is not a finite number")
    unknown = sorted(set(m) - set(MEASURE_KEYS))
    if unknown:
        raise SimError(f"parameter `measure.{unknown[0]}`: unknown; known: {', '.join(MEASURE_KEYS)}")
    return json.dumps(m)


def _routing(fabric: "Fabric", routing: Optional[str]) -> Any:
    return fabric.routing(routing)._core


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
) -> Dict[str, Any]:
    """Runs one workload and returns ``{"run": row, "samples": [...], "destinations": [...],
    "interrupted": bool}``. ``load`` is appended to the spec (``uniform`` + ``load=0.2``).
    ``measure`` sets ``warmup``/``batch`` (``"50us"``, ``"10000cycles"``), ``batches``,
    ``latency_limit``, ``latency_factor``, ``accepted_margin``, ``drain_limit`` and ``detail``
    (``"none"``, ``"messages"``: one sample row per message, ``"destinations"``: and per
    destination). ``progress(now_ps, window_end_ps, messages, finished, events)`` is called a few
    times a second; Ctrl-C stops the run and returns what it measured with ``interrupted`` true.
    An exception ``progress`` raises (``KeyboardInterrupt`` too) stops the run at its next stop
    check (the next measurement tick, a tenth of a batch, at the latest) and propagates as is."""
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
    return Result({**out["result"], "interrupted": out["interrupted"]}, f"run of {workload}")


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
    spec = workload if "load=" in workload or not loads else _with_load(workload, loads[0])
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
) -> Dict[str, Any]:
    """The runs of a sweep, in the order of ``loads`` (run in parallel, one thread each; the rows
    do not depend on the number of threads): ``{"results": [...], "interrupted": bool}``.
    ``progress(events)`` gets the events of all points so far, a few times a second; Ctrl-C and
    an exception from ``progress`` behave as in :func:`run_workload`."""
    return json.loads(
        sweep_json(
            _routing(fabric, routing),
            workload if "load=" in workload or not loads else _with_load(workload, loads[0]),
            [float(x) for x in loads],
            preset,
            param_overrides(params),
            _measure_json(measure),
            whole_number("seed", seed),
            progress,
        )
    )


def sweep(fabric: "Fabric", workload: str, loads: Sequence[float], **kwargs: Any) -> "pandas.DataFrame":
    """Latency and throughput versus offered load: one row per load (see :func:`run_rows`)."""
    return run_rows([r["run"] for r in sweep_results(fabric, workload, loads, **kwargs)["results"]])


def run_rows(rows: List[Dict[str, Any]]) -> "pandas.DataFrame":
    """Run rows as a DataFrame: the outcome flattened to ``outcome`` (its kind) and
    ``outcome_detail``; ``params`` and ``measure`` kept as JSON text (every input stays in the row);
    latencies also in microseconds (``*_us``)."""
    import pandas as pd

    flat = []
    for r in rows:
        r = dict(r)
        o = r.pop("outcome")
        r["outcome"] = o["kind"]
        r["outcome_detail"] = json.dumps({k: v for k, v in o.items() if k != "kind"}) if len(o) > 1 else ""
        r["params"] = json.dumps(r["params"], sort_keys=True)
        r["measure"] = json.dumps(r["measure"], sort_keys=True)
        for k in list(r):
            if k.endswith("_ps") and k.startswith(("latency", "destination_latency", "zero_load")):
                v = r[k]
                r[k[:-3] + "_us"] = None if v is None else v / 1e6
        flat.append(r)
    return pd.DataFrame(flat)
