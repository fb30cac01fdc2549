"""The main job: every multicast scheme that applies to a fabric, checked and simulated side by
side (`mcastlab compare`, `mcastlab.compare()`).

For one source and destination set, each applicable scheme is planned for every message size
(with as many packets as the size needs under the preset), checked (exactly-once delivery, base-
routing conformance, deadlock freedom) and simulated alone. Unicast trees run twice: forwarded
by the host (software tree) and by the NI (FPFS, sivaram98 §4.2); worm and hardware schemes run
as their papers describe. With ``loads``, each variant also runs as ``multicast_load`` traffic
(same message size as the first size, degree = number of destinations) at each load.

Runs are independent jobs of the runner (:mod:`mcastlab.runner`): on threads by default (each
run releases the GIL), or on Dask with ``dask=``, with the result store with ``store=``; the rows
are the same whatever the backend and the number of workers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ._core import McastlabError, PlanError, SimError, __version__, schemes_json
from ._core import Plan as _CorePlan
from .api import EndpointRef, Fabric, fabric as _fabric, param_overrides, size_bytes, whole_number
from .inputs import as_list, endpoint_list, number_list, once_each, percentage
from .portable import FabricRef
from .runner import Job, Stopped, Store, Where, run_jobs
from .workloads import run_workload

if TYPE_CHECKING:  # pragma: no cover
    import os

    import pandas

DEFAULT_SIZES = ("128B", "4KiB", "64KiB")
DEFAULT_GROUP_PCT = 40.0

# Families by the carriers a plan uses (the literature's classes of multicast).
_FAMILY_BY_CARRIER = {
    "mft": "hardware multicast (switch tables)",
    "range": "hardware multicast (contiguous range)",
    "bitstring": "tree-based worm",
    "path": "path-based worm",
    "ssr": "path-based worm",
    "multidrop": "path-based worm",
}


@dataclass(frozen=True)
class Variant:
    """A scheme with the discipline it runs under and the family it belongs to."""

    scheme: str
    discipline: str
    family: str

    @property
    def label(self) -> str:
        if self.family == "software tree":
            return f"{self.scheme} (host)"
        if self.family == "NI tree":
            return f"{self.scheme} (NI {self.discipline})"
        return self.scheme


def _family(plan_json: Dict[str, Any]) -> Optional[str]:
    kinds = {t["carrier"]["kind"] for t in plan_json["transmissions"]}
    for kind in ("mft", "range", "bitstring", "multidrop", "ssr", "path"):
        if kind in kinds:
            return _FAMILY_BY_CARRIER[kind]
    return None


def variants(f: Fabric, source: int, dests: List[int], schemes: Sequence[str], routing: Optional[str]) -> Tuple[List[Variant], List[Dict[str, Any]]]:
    """The variants to run and a row for each scheme that cannot serve this group (with why)."""
    out: List[Variant] = []
    skipped: List[Dict[str, Any]] = []
    for name in schemes:
        try:
            p = f.plan(name, source, dests, packets=1, discipline="fpfs", routing=routing)
        except McastlabError as e:
            skipped.append({"scheme": name, "label": name, "verdict": f"not applicable: {e}"})
            continue
        pj = json.loads(p.to_json())
        fam = _family(pj)
        forwards = any(t["sender"] != pj["source"] for t in pj["transmissions"])
        if fam is None and not forwards:
            # Only the source sends: nothing is forwarded, so one run. It is the host-discipline
            # run: every copy its own host send (for `separate`, pipelined=false, oral §4.1).
            out.append(Variant(name, "host", "unicasts from the source"))
        elif fam is None:
            out.append(Variant(name, "host", "software tree"))
            out.append(Variant(name, "fpfs", "NI tree"))
        else:
            out.append(Variant(name, "fpfs", fam))
    return out, skipped


def _verdict(rep: Dict[str, Any]) -> str:
    if rep["ok"]:
        return "ok"
    bad = []
    if not rep["exactly_once"]:
        bad.append("not exactly-once")
    if not rep["conforms"]:
        bad.append("leaves the base routing")
    if rep["deadlock"]["status"] == "cycle":
        bad.append("deadlock possible")
    if rep["problems"]:
        bad.append(rep["problems"][0])
    return "; ".join(bad) or "check failed"


def _spec_k(spec: str) -> Optional[int]:
    """The ``k=`` parameter of a scheme spec (``kbinomial:k=3,order=index`` -> 3), else None."""
    _, _, params = spec.partition(":")
    for item in params.split(","):
        key, _, value = item.partition("=")
        if key == "k" and value.isdigit():
            return int(value)
    return None


# Bumped when a compare row's content changes, so a result store does not reuse old rows.
ROW_REVISION = 1


def _stopper(stop: Callable[[], bool]) -> Callable[..., None]:
    """A progress callback that ends its run (within one slice of events) once ``stop()`` is
    true: Ctrl-C reaches only the main thread, the runs go on in the runner's threads."""

    def check(*_: Any) -> None:
        if stop():
            raise Stopped()

    return check


def _single(ref: FabricRef, v: Variant, src: int, dests: List[int], size: str, preset: str, params: Optional[Dict[str, Any]],
            seed: int, routing: Optional[str], stop: Callable[[], bool]) -> Dict[str, Any]:
    """One variant at one size, planned, checked and simulated alone (a runner job)."""
    f = ref.get()
    _stopper(stop)()
    overrides = param_overrides(params)
    nbytes = size_bytes(size)
    packets = _CorePlan.packets_for(preset, overrides, nbytes)
    plan = f.plan(v.scheme, src, dests, packets=packets, discipline=v.discipline, routing=routing)
    rep = plan.check()
    # The verdict is this row's (`verdict`), so a plan that can deadlock is run and shown as such.
    run = plan.simulate(size=nbytes, preset=preset, params=params, seed=seed, progress=_stopper(stop),
                        allow_unchecked=True)
    lat = [d["latency_ps"] for d in run["per_destination"] if d.get("latency_ps") is not None]
    done = run["completion_ps"]
    return {
        "experiment": "single",
        "scheme": v.scheme,
        "label": v.label,
        "family": v.family,
        "discipline": v.discipline,
        # The plan's full spec names what the scheme chose for this size (kbinomial's k depends
        # on the packets and the discipline); ``k`` repeats it as a number where there is one.
        "plan": plan.scheme,
        "k": _spec_k(plan.scheme),
        "size": size,
        "size_bytes": nbytes,
        "packets": packets,
        "destinations": len(dests),
        "steps": rep["steps"],
        "messages": rep["messages"],
        "unicasts": rep["unicasts"],
        "worms": rep["worms"],
        "hardware_multicasts": rep["hardware_multicasts"],
        "packets_sent": rep["packets_sent"],
        "link_visits": rep["link_visits"],
        "used_links": rep["used_links"],
        "max_step_contention": rep["max_step_contention"],
        "ni_buffer_packets": rep["ni_buffer_packets"],
        "exactly_once": rep["exactly_once"],
        "conforms": rep["conforms"],
        "deadlock": rep["deadlock"]["status"],
        "verdict": _verdict(rep),
        "outcome": run["outcome"]["kind"],
        "latency_us": None if done is None else done / 1e6,
        "destination_latency_mean_us": (sum(lat) / len(lat) / 1e6) if lat else None,
        # Bytes delivered to all destinations together per second of completion latency: the
        # copies travel in parallel, so this exceeds one link's rate for the good schemes.
        "delivered_MBps": (nbytes * len(dests) / (done / 1e12) / 1e6) if done else None,
        "events": run["events"],
        "granularity": run["granularity"],
        "flit_hops": run["flit_hops"],
    }


def _loaded(ref: FabricRef, v: Variant, dests: List[int], size: str, load: float, preset: str, params: Optional[Dict[str, Any]],
            seed: int, routing: Optional[str], measure: Optional[Dict[str, Any]], stop: Callable[[], bool]) -> Dict[str, Any]:
    """One variant under multicast load (a runner job)."""
    f = ref.get()
    _stopper(stop)()
    spec = f"multicast_load:degree={len(dests)},scheme={v.scheme},discipline={v.discipline},bytes={size_bytes(size)}"
    # The single rows state each scheme's verdict; the loaded run of a scheme that can deadlock shows it.
    res = run_workload(f, spec, load=load, preset=preset, params=params, seed=seed, measure=measure, routing=routing,
                       progress=_stopper(stop), allow_unchecked=True)
    r = res["run"]
    ps = r["latency_mean_ps"]
    return {
        "experiment": "load",
        "scheme": v.scheme,
        "label": v.label,
        "family": v.family,
        "discipline": v.discipline,
        "size": size,
        "size_bytes": size_bytes(size),
        "destinations": len(dests),
        "load": load,
        "latency_us": None if ps is None else ps / 1e6,
        "latency_ci95_us": None if r["latency_ci95_ps"] is None else r["latency_ci95_ps"] / 1e6,
        "accepted_load": r["accepted_load"],
        "generated_load": r["generated_load"],
        "saturated": r["saturated"],
        "saturation": r["saturation"],
        "outcome": r["outcome"]["kind"],
        "events": r["events"],
        "flit_hops": r["flit_hops"],
    }


def compare(
    fabric: Union[Fabric, str, None] = None,
    source: EndpointRef = 0,
    destinations: Optional[List[EndpointRef]] = None,
    group: Union[float, str, None] = None,
    sizes: Sequence[str] = DEFAULT_SIZES,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    loads: Optional[Sequence[float]] = None,
    schemes: Optional[Sequence[str]] = None,
    seed: int = 1,
    routing: Optional[str] = None,
    measure: Optional[Dict[str, Any]] = None,
    workers: Optional[int] = None,
    progress: Optional[Callable[[int, int, str], None]] = None,
    dask: Optional[str] = None,
    store: Union[str, "os.PathLike[str]", None] = None,
    group_count: Optional[int] = None,
) -> "pandas.DataFrame":
    """Every applicable scheme (or ``schemes``) from ``source`` to ``destinations`` (default: a random
    ``group`` percent of the other endpoints, ``40`` or ``"40%"`` (default 40), or exactly
    ``group_count`` of them, drawn from ``seed``), checked and simulated for each message size; with
    ``loads``, also under multicast load. Returns one row per (variant, size) with
    ``experiment="single"`` — steps, messages, link visits, the check's verdict, completion latency
    (µs, last destination), mean destination latency, ``delivered_MBps`` (size × destinations /
    completion latency: the bytes delivered to all destinations together per second, which exceeds a
    link's rate when copies travel in parallel) — and one per (variant, load) with
    ``experiment="load"``. Schemes that cannot serve the group get a row whose ``verdict`` says why.
    ``progress(done, total, label)`` follows the runs. Every row carries the fabric, routing,
    preset, seed and source.

    The runs are runner jobs: on ``workers`` threads by default, on Dask with ``dask`` (a
    scheduler address, a scheduler file or ``"local"``); ``store`` (a directory) keeps each
    finished run and reuses it in a later comparison with the same inputs. The rows are the same
    on every backend.

    Ctrl-C stops the runs under way (within a slice of events) and returns what finished: every
    row has ``complete``, false for a run that did not finish (only the columns saying which run
    it is are filled, ``outcome`` is ``interrupted``); ``df.attrs`` holds ``interrupted``,
    ``runs`` and ``finished``."""
    import pandas as pd

    f = fabric if isinstance(fabric, Fabric) else _fabric(fabric)
    f.routing(routing)  # build (and cache) once, before any thread uses it
    param_overrides(params)  # a wrong type fails here, not in every thread
    whole_number("seed", seed)
    if workers is not None:
        whole_number("workers", workers, 1)
    src = f.endpoint(source)
    if sum(x is not None for x in (destinations, group, group_count)) > 1:
        raise PlanError("give one of destinations, group (percent) and group_count")
    if destinations is None and group_count is not None:
        dests = f.random_group(src, seed=seed, count=group_count)
    elif destinations is None:
        dests = f.random_group(src, DEFAULT_GROUP_PCT if group is None else percentage("group", group), seed)
    else:
        dests = [f.endpoint(d) for d in endpoint_list("destinations", destinations)]
    sizes = as_list("sizes", sizes, "a list of message sizes, e.g. ['4KiB', '64KiB']")
    if not sizes:
        raise SimError("parameter `sizes`: give at least one message size")
    once_each("sizes", sizes, size_bytes)
    if loads is not None:
        loads = number_list("loads", loads)
        once_each("loads", loads)
    names = as_list("schemes", schemes, "a list of scheme names") if schemes is not None else f.applicable_schemes()
    once_each("schemes", names)
    known = {s["name"] for s in _schemes()}
    for n in names:
        if n.split(":", 1)[0] not in known:
            raise PlanError(f"unknown scheme `{n}`; known: {', '.join(sorted(known))}")
    vs, skipped = variants(f, src, dests, names, routing)
    if not vs:
        # Nothing to run: a table of only "not applicable" rows has no latency or step columns to
        # show, so say why instead (schemes usually fail for the same reason: name it once).
        why = [s["verdict"].removeprefix("not applicable: ") for s in skipped]
        more = ""
        if len(skipped) > 1:
            more = f" (and {len(skipped) - 1} more scheme(s){', same reason' if len(set(why)) == 1 else ''})"
        why_first = f"{skipped[0]['scheme']}: {why[0]}" if skipped else "no scheme given"
        raise PlanError(f"no scheme can serve this group: {why_first}{more}")
    ref = FabricRef(f)
    # (progress label, what identifies the row if the run never finishes, the job)
    jobs: List[Tuple[str, Dict[str, Any], Job]] = []
    for v in vs:
        who = {"scheme": v.scheme, "label": v.label, "family": v.family, "discipline": v.discipline, "destinations": len(dests)}
        for size in sizes:
            args = (ref, v, src, dests, size, preset, params, seed, routing)
            jobs.append((f"{v.label} {size}", dict(who, experiment="single", size=size, size_bytes=size_bytes(size)),
                         _job(len(jobs), _single, args, f"{v.label} {size}", store is not None)))
        for load in loads or []:
            args = (ref, v, dests, sizes[0], float(load), preset, params, seed, routing, measure)
            jobs.append((f"{v.label} load {load}", dict(who, experiment="load", size=sizes[0], size_bytes=size_bytes(sizes[0]), load=float(load)),
                         _job(len(jobs), _loaded, args, f"{v.label} load {load}", store is not None)))
    where = Where("dask", workers, dask) if dask is not None else Where("threads", workers)
    out = run_jobs([j for _, _, j in jobs], where, store=Store(store) if store is not None else None, progress=progress)
    interrupted = out.interrupted
    rows = [dict(res, complete=True) if res is not None else dict(who, outcome="interrupted", complete=False)
            for (_, who, _), res in zip(jobs, out.results)]
    common = {
        "fabric": f.name,
        "routing": f.routing(routing).spec,
        "preset": preset,
        "params": json.dumps(params or {}, sort_keys=True),
        "seed": seed,
        "source": f.endpoints[src]["name"],
    }
    table = [dict(common, **r) for r in rows]
    table += [dict(common, experiment="single", destinations=len(dests), complete=True, **s) for s in skipped]
    df = pd.DataFrame(table)
    df.attrs["interrupted"] = interrupted
    df.attrs["runs"] = len(jobs)
    df.attrs["finished"] = sum(1 for r in rows if r["complete"])
    return df


def _job(index: int, fn: Callable[..., Dict[str, Any]], args: Tuple[Any, ...], label: str, keyed: bool) -> Job:
    """A compare run as a runner job. With a store, its key hashes every input (the fabric by the
    digest of its JSON) with the mcastlab version and :data:`ROW_REVISION`; without one, the
    index is key enough."""
    if not keyed:
        return Job(key=str(index), fn=fn, args=args, label=label, stoppable=True)
    ref, rest = args[0], args[1:]
    inputs = {"job": f"compare.{fn.__name__.lstrip('_')}", "revision": ROW_REVISION, "version": __version__,
              "fabric": ref.digest, "args": [a.__dict__ if isinstance(a, Variant) else a for a in rest]}
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True, default=str).encode()).hexdigest()
    return Job(key=key, fn=fn, args=args, label=label, inputs=inputs, stoppable=True)


def _schemes() -> List[Dict[str, Any]]:
    return json.loads(schemes_json())
