"""The Python API: thin, typed wrappers over the Rust core (`mcastlab._core`).

Structured results come back as plain dicts and lists (parsed from the core's JSON), so they
print, serialize and compare easily. Endpoints can be given as an index ``0..N-1`` or as any name
the fabric knows (``"P(200)"``, ``"n(1,2)"``, a GUID, an ibnetdiscover description).
"""

from __future__ import annotations

import json
import operator
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

# The core's names are imported one by one, not `from . import _core`: import-linter cannot see the
# compiled module and would take that line for an import of the whole package.
from ._core import (
    DEFAULT_SPEC,
    PLAN_MAX_DEPTH,
    PlanError,
    RoutingError,
    SpecError,
    generators_json,
    routings_json,
    schemes_json,
    sim_params_json,
    protocols_json,
    sim_presets_json,
)
from ._core import Fabric as _CoreFabric
from ._core import Plan as _CorePlan
from ._core import kbinomial_covered as _kbinomial_covered
from ._core import kbinomial_optimal as _kbinomial_optimal
from .display import Result, fabric_html, plan_html
from .inputs import SL_MAX, U32_MAX, U64_MAX, as_list, check_input_file, endpoint_list, flag, json_text, nested_beyond, param_overrides, percentage, read_input_file, repeated, size_bytes, whole_number  # re-exported
from .verdict import ALLOW_UNCHECKED, check_summary, require_deadlock_free

EndpointRef = Union[int, str]
# The extensions `Fabric.save` writes (the core's `io::save` picks the format by them); listed here
# so that the command line can refuse another one before it builds the fabric.
FABRIC_FORMATS = ("json", "dot", "gv", "topo", "ibnd", "txt", "ibnetdiscover")
PathLike = Union[str, "os.PathLike[str]"]


def generators() -> List[Dict[str, str]]:
    """Registered fabric generators with their parameters and defaults."""
    return json.loads(generators_json())


def schemes() -> List[Dict[str, str]]:
    """Registered multicast schemes with their options and the fabrics they apply to."""
    return json.loads(schemes_json())


def kbinomial_optimal(n: int, m: int) -> Dict[str, int]:
    """sivaram98 Theorem 3 for ``n`` nodes (source included) and ``m`` packets:
    ``{"k": ..., "L1": ..., "steps": L1 + (m-1)k}``. ``n`` is at least 2 and ``m`` at least 1
    (PlanError otherwise)."""
    k, l1, total = _kbinomial_optimal(whole_number("n", n), whole_number("m", m, 0, U32_MAX))
    return {"k": k, "L1": l1, "steps": total}


def kbinomial_covered(s: int, k: int) -> int:
    """sivaram98 Lemma 4: N(s, k), nodes a k-binomial tree covers in s steps (source included);
    ``k`` is at least 1 (PlanError otherwise). The value is exact: one past 2^128 - 1 (from
    ``s`` = 128 for large ``k``) is a PlanError naming ``s``, never a capped number."""
    return int(_kbinomial_covered(whole_number("s", s, 0, U32_MAX), whole_number("k", k, 0, U32_MAX)))


def routings() -> List[Dict[str, str]]:
    """Registered routing engines with their options and the fabrics they apply to."""
    return json.loads(routings_json())


class Routing:
    """A unicast routing of one fabric (built by :meth:`Fabric.routing`)."""

    def __init__(self, fabric: "Fabric", core: Any) -> None:
        self._fabric = fabric
        self._core = core

    @property
    def engine(self) -> str:
        return self._core.engine

    @property
    def spec(self) -> str:
        """Canonical spec with every option spelled out, e.g. ``updown:root=s3``."""
        return self._core.spec

    @property
    def vc_classes(self) -> int:
        return self._core.vc_classes

    @property
    def num_addresses(self) -> int:
        return self._core.num_addresses

    def facts(self) -> Dict[str, str]:
        """Key facts of the routing (root, levels, LMC, datelines, ...)."""
        return dict(self._core.facts())

    def address(self, src: EndpointRef, dst: EndpointRef) -> int:
        """The address (LID - 1 for ``mport_lmc``; the endpoint index otherwise) src uses for dst."""
        return self._core.address(self._fabric.endpoint(src), self._fabric.endpoint(dst))

    def dlid(self, src: EndpointRef, dst: EndpointRef) -> Optional[int]:
        """The InfiniBand DLID src puts in a packet for dst (zhou07's numbering: ``mport_lmc``
        LIDs start at 1, LID 0 being reserved), or None when the routing has no LIDs."""
        return self._core.dlid(self._fabric.endpoint(src), self._fabric.endpoint(dst))

    def next_hops(self, switch: Union[int, str], in_port: int, address: int, in_vc: int = 0) -> List[tuple]:
        """Legal ``(port, vc)`` choices at a switch, the deterministic one first, for a packet that
        arrived on ``in_port`` (1 to the switch's ports; 0 is a packet its own endpoint injects) and
        virtual channel ``in_vc`` (below the routing's ``vc_classes``), bound for ``address``."""
        sw = self._fabric.switch(switch)
        info = self._fabric.switches[sw]
        try:
            in_port = whole_number("in_port", in_port, 0, info["ports"])
        except SpecError:
            raise SpecError(f"parameter `in_port`: {in_port} is out of range: switch {info['name']} has ports 1 to "
                            f"{info['ports']} (0 is a packet injected at the switch)") from None
        in_vc = whole_number("in_vc", in_vc, 0, self.vc_classes - 1)
        address = whole_number("address", address, 0, self.num_addresses - 1)
        return self._core.next_hops(sw, in_port, in_vc, address)

    def route(self, src: EndpointRef, dst: EndpointRef, max_paths: int = 16) -> Dict[str, Any]:
        """The deterministic route from src to dst and up to ``max_paths`` adaptive routes.

        Returns a dict with ``deterministic`` and ``paths`` (each with ``hops``, ``links`` and a
        rendered ``text``), ``total_paths`` (an int), the ``address`` used and its ``dlid`` (the
        InfiniBand DLID for LID-addressed routings such as ``mport_lmc``, else None).
        """
        max_paths = whole_number("max_paths", max_paths, 0, U32_MAX)
        r = json.loads(self._core.route_json(self._fabric.endpoint(src), self._fabric.endpoint(dst), max_paths))
        r["total_paths"] = int(r["total_paths"])
        return r

    def check_work(self) -> int:
        """The work units (addresses x states) the check's exploration costs at most, known before
        it runs; above ``max_work`` the check skips the exploration."""
        return self._core.check_work()

    def lfts_dump(self) -> str:
        """This routing's unicast LFTs in OpenSM's ``opensm-lfts.dump`` format (docs/formats.md)."""
        return self._core.lfts_dump()

    def joint_deadlock(self, plans: Sequence["Plan"] = (), unicast_sl: int = 0, plan_sls: Optional[List[int]] = None,
                       sl2vl: Optional[PathLike] = None, mfts: Optional[PathLike] = None,
                       mfts_sl: int = 0) -> Dict[str, Any]:
        """One deadlock check for this unicast routing and multicast trees together: the MFT
        trees of ``plans`` and every MLID of an MFT dump ``mfts`` (``opensm.mcfdbs`` or
        ``ibroute -M``, e.g. what :meth:`Fabric.mcast` wrote).

        Unicast travels on SL ``unicast_sl``, plan ``i`` on ``plan_sls[i]`` (default 0), the
        dump's trees on ``mfts_sl``; an SL->VL file (docs/formats.md) maps SLs to VLs, otherwise
        everything shares VL 0. The result's ``deadlock`` is ``free`` or a ``cycle`` whose
        ``rendered`` channels name switches and ports.
        """
        plans = as_list("plans", plans, "a list of Plans")
        for i, p in enumerate(plans):
            require_mft_tree(p, f"plans[{i}]")
        unicast_sl = whole_number("unicast_sl", unicast_sl, 0, SL_MAX)
        mfts_sl = whole_number("mfts_sl", mfts_sl, 0, SL_MAX)
        if plan_sls is not None:
            plan_sls = [whole_number("plan_sls", x, 0, SL_MAX) for x in as_list("plan_sls", plan_sls, "a list of SLs")]
        text = None if sl2vl is None else read_input_file(sl2vl, RoutingError)
        name = "<sl2vl>" if sl2vl is None else os.fspath(sl2vl)
        dump = None if mfts is None else read_input_file(mfts, PlanError)
        dump_name = "<mfts>" if mfts is None else os.fspath(mfts)
        r = json.loads(self._core.joint_deadlock_json([p._core for p in plans], unicast_sl, plan_sls, text, name,
                                                      dump, dump_name, mfts_sl))
        r["ok"] = r["deadlock"]["status"] == "free"
        return r

    def check(self, max_work: Optional[int] = None) -> Dict[str, Any]:
        """Reachability and deadlock freedom (channel dependency graph) of this routing.

        ``result["ok"]`` is True when the routing is deadlock-free and no routing problem was
        found. ``max_work`` bounds the exhaustive exploration (addresses x states).
        """
        max_work = None if max_work is None else whole_number("max_work", max_work)
        r = json.loads(self._core.check_json(max_work))
        r["ok"] = r["deadlock"]["status"] == "free" and r["reachability"]["status"] != "failed"
        return Result(r, f"routing check of {self.spec} on {self._fabric.name}")

    def __repr__(self) -> str:
        return f"Routing({self.spec!r})"


def require_mft_tree(plan: "Plan", label: str) -> None:
    """Refuses a plan without MFT rows for the joint deadlock check: a software or unicast-carried
    plan programs no switch multicast state, so it would join the check as nothing and the verdict
    would seem to cover it."""
    if isinstance(plan, Plan) and plan._core.num_mft_rows == 0:
        raise PlanError(f"{label}: plan `{plan.scheme}` has no MFT tree (it programs no switch multicast "
                        "state), so it adds nothing to the deadlock check; give a plan of an InfiniBand "
                        "MFT scheme (ib_*)")


GroupsInput = Union[str, "os.PathLike[str]", List[Dict[str, Any]]]


def groups_text(groups: GroupsInput) -> Tuple[str, Optional[str]]:
    """The text of a groups argument and the file it was read from: a file, or a list of dicts
    (no file). The core refuses a file with no group at all (PlanError ``FILE: no groups``):
    `mfts` wrote an empty dump for it, `capacity` admitted nothing and `check --groups` checked
    the dump against nothing. An empty Python list stays no groups: a program may well have none
    to give."""
    if isinstance(groups, list):
        return json_text("groups", {"groups": groups}), None
    return read_input_file(groups, PlanError), os.fspath(groups)


# A transmission's fields (docs/formats.md); `delivers` may be left out for a transmission that
# delivers to no host.
_TRANSMISSION_FIELDS = ("sender", "trigger", "carrier", "delivers")


def _transmission(i: int, t: Any, ep: Callable[[EndpointRef], int]) -> Dict[str, Any]:
    """Transmission ``i`` of :meth:`Plan.from_transmissions` as the plan file has it, endpoints
    resolved to indices. A missing field or one of the wrong type names the transmission and the
    field (a missing sender was a KeyError, a text of destinations read letter by letter)."""
    name = f"transmissions[{i}]"
    if not isinstance(t, Mapping):
        raise TypeError(f"{name}: expected a dict with {', '.join(_TRANSMISSION_FIELDS)}, not {type(t).__name__}")
    missing = [k for k in _TRANSMISSION_FIELDS[:3] if k not in t]
    if missing:
        raise PlanError(f"{name}: missing field{'s' * (len(missing) > 1)} {', '.join(f'`{k}`' for k in missing)}")
    unknown = [str(k) for k in t if k not in _TRANSMISSION_FIELDS]
    if unknown:
        raise PlanError(f"{name}: unknown field{'s' * (len(unknown) > 1)} {', '.join(f'`{k}`' for k in unknown)}; "
                        f"the fields are {', '.join(_TRANSMISSION_FIELDS)}")
    for field in ("trigger", "carrier"):
        if not isinstance(t[field], Mapping):
            raise TypeError(f"{name}.{field}: expected a dict such as {{'kind': ...}}, not {type(t[field]).__name__}")
        if not isinstance(t[field].get("kind"), str):
            raise PlanError(f"{name}.{field}: missing field `kind` (a str)")
    out = json.loads(json_text(name, dict(t)))
    out["sender"] = ep(t["sender"])
    c, given = out["carrier"], t["carrier"]
    for key in ("dst", "lo", "hi"):
        if key in given:
            c[key] = ep(given[key])
    if "dests" in given:
        c["dests"] = [ep(d) for d in endpoint_list(f"{name}.carrier.dests", given["dests"])]
    out["delivers"] = [ep(d) for d in endpoint_list(f"{name}.delivers", t.get("delivers", []))]
    return out


class Plan:
    """A multicast plan: transmissions with sender, trigger, carrier and delivered endpoints."""

    def __init__(self, fabric: "Fabric", core: Any) -> None:
        self.fabric = fabric
        self._core = core
        self._data: Optional[Dict[str, Any]] = None
        # Check reports already computed, by (max_work, ns_per_op): a plan is immutable, so its
        # check never changes, and on a large fabric it costs seconds (simulate reuses it).
        self._checks: Dict[Tuple[Optional[int], Optional[float]], str] = {}
        self._verdict: Optional[Dict[str, Any]] = None

    @property
    def scheme(self) -> str:
        return self._core.scheme

    @property
    def data(self) -> Dict[str, Any]:
        """The plan as its JSON schema describes it."""
        if self._data is None:
            self._data = json.loads(self._core.to_json())
        return self._data

    @property
    def transmissions(self) -> List[Dict[str, Any]]:
        return self.data["transmissions"]

    def to_json(self) -> str:
        return self._core.to_json()

    def save(self, path: PathLike) -> None:
        """Writes the plan's JSON (docs/formats.md) to the file ``path``; a directory or a file
        that cannot be written raises PlanError naming it (as :meth:`Fabric.save` raises
        FabricError), not a bare OSError."""
        name = os.fspath(path)
        if os.path.isdir(name):
            raise PlanError(f"{name}: is a directory; give a file name such as {os.path.join(name, 'plan.json')}")
        try:
            Path(name).write_text(self.to_json())
        except OSError as e:
            raise PlanError(f"{name}: {e.strerror}") from None

    def check(self, max_work: Optional[int] = None, ns_per_op: Optional[float] = None) -> Dict[str, Any]:
        """The CheckReport: ``exactly_once``, ``duplicates``/``missing``/``extra``, ``problems``
        (decoding problems, carriers reaching other endpoints than claimed), ``conforms``,
        ``deadlock``, ``steps``, ``messages``, ``link_visits``, ``used_links``,
        ``fabric_link_fraction`` (used links / all links), oral §4.5's ``oral_link_visits``,
        ``oral_used_links``, ``oral_link_utilization`` (visits per used link, per message over
        switch-to-switch channels; None when none is used), ``max_concurrency`` and
        ``mean_concurrency`` (transfers in flight per step of the step model),
        ``max_step_contention``, ``creation`` (oral §4.4 tree-creation work: ``ordering_ops``,
        ``partitioning_ops``, ``operations``, ``ns_per_op``, ``latency_ns``; None when the scheme's
        construction is not modelled), ... and ``ok``. ``ns_per_op`` is the host time of one
        elementary operation of tree creation (default 2 ns, chosen, not from a paper)."""
        max_work = None if max_work is None else whole_number("max_work", max_work)
        key = (max_work, ns_per_op)
        if key not in self._checks:
            self._checks[key] = self._core.check_json(max_work, ns_per_op)
        r = json.loads(self._checks[key])
        r["ok"] = r["exactly_once"] and not r["problems"] and r["conforms"] and r["deadlock"]["status"] == "free"
        return Result(r, f"check of {self.scheme}")

    def verdict_check(self) -> Dict[str, Any]:
        """A check report for a run's verdict: one :meth:`check` already computed (whatever its
        options: exactly-once, conformance and the deadlock cycle do not depend on them), else
        the check of this plan's one-packet twin (the same carriers; the per-packet step model,
        which the verdict does not need, costs seconds for a long message). Cached either way."""
        if self._checks:
            max_work, ns_per_op = next(iter(self._checks))
            return self.check(max_work, ns_per_op)
        if self._verdict is None:
            self._verdict = Plan(self.fabric, self._core.one_packet()).check()
        return self._verdict

    def trees(self) -> List[Dict[str, Any]]:
        """Per transmission, the channels its carrier crosses (decoded switch by switch), the step
        its first packet is sent in, and the endpoints it reaches."""
        return json.loads(self._core.trees_json())

    def simulate(
        self,
        size: Union[int, str] = "4KiB",
        preset: str = "sivaram98",
        params: Optional[Dict[str, Any]] = None,
        seed: int = 1,
        progress: Optional[Any] = None,
        allow_unchecked: bool = False,
        keep_partial: bool = False,
    ) -> Dict[str, Any]:
        """Run the plan in the discrete-event simulator and return its RunResult (completion
        latency in picoseconds, per-destination latencies, events, link and endpoint busy time,
        buffer occupancy, the parameters and seed). ``params`` overrides preset values
        (``{"link.bandwidth": "1Gb/s"}``); the plan must have been built for as many packets as
        ``size`` splits into (``mcastlab.simulate`` does that for you). ``progress(events, now_ps,
        done)`` is called a few times a second while the run goes on and once with ``done`` true at
        its end. Ctrl-C, or an exception ``progress`` raises, stops the run within a few
        milliseconds of work and is raised (the callback's exception as is); with
        ``keep_partial=True`` Ctrl-C instead returns what the run measured so far, with
        ``interrupted`` true and outcome ``budget`` ("stopped by the caller before the end").

        The plan is checked first (the report :meth:`check` computed is reused) and the result's
        ``check`` states the verdict: ``exactly_once``, ``conforms`` (to the base routing),
        ``deadlock`` (``free``, ``cycle``, ``skipped``) and a one-line ``verdict``. A plan that can
        deadlock (a cycle of channel dependencies) raises PlanError unless ``allow_unchecked=True``."""
        nbytes = size_bytes(size)
        overrides = param_overrides(params)
        seed = whole_number("seed", seed)
        rep = self.verdict_check()
        if not flag("allow_unchecked", allow_unchecked):
            require_deadlock_free(rep, f"plan `{self.scheme}`", ALLOW_UNCHECKED)
        keep_partial = flag("keep_partial", keep_partial)
        out = json.loads(self._core.simulate_json(preset, overrides, nbytes, seed, progress, keep_partial))
        run = {**out["result"], "interrupted": out["interrupted"], "check": check_summary(rep)}
        return Result(run, f"run of {self.scheme}, {nbytes} bytes, preset {preset}")

    def mft_dump(self) -> str:
        """The plan's InfiniBand MFTs in OpenSM's ``opensm.mcfdbs`` dump layout (empty tables for
        plans without hardware multicast)."""
        return self._core.mft_dump()

    def draw(self, path: PathLike, **kwargs: Any) -> None:
        """Draw the plan over its fabric (SVG, PNG or PDF by the file's extension)."""
        from .draw import draw_plan

        draw_plan(self.fabric, self, path, **kwargs)

    def steps(self) -> Dict[str, Any]:
        """The step model (sivaram98 §4): ``completion`` and the step of every packet send."""
        return json.loads(self._core.steps_json())

    @classmethod
    def from_transmissions(
        cls,
        fabric: "Fabric",
        source: EndpointRef,
        destinations: List[EndpointRef],
        transmissions: List[Dict[str, Any]],
        packets: int = 1,
        discipline: str = "ni_fpfs",
        scheme: str = "custom",
        routing: Optional[str] = None,
        switch_state: Optional[Dict[str, Any]] = None,
    ) -> "Plan":
        """A plan from transmissions you wrote, e.g. a custom tree::

            {"sender": 0, "trigger": {"kind": "start"},
             "carrier": {"kind": "unicast", "dst": 5}, "delivers": [5]}

        Triggers: ``start``, ``after_message`` / ``per_packet`` with ``"from": <index>``. Carriers:
        ``unicast`` (``dst``), ``path`` / ``bitstring`` (``dests``), ``ssr`` (``drop``: ``switch``,
        ``ports``), ``multidrop`` (``drops``), ``mft`` (``mlid``, with MFT rows in
        ``switch_state={"mft": [{"mlid", "switch", "ports"}]}``). Endpoints may be names. The plan is
        validated and checked exactly like a scheme's. ``scheme`` labels the plan: ``custom`` or a
        registered scheme's spec. Transmissions and switch state nest as a plan file does, at
        most ``PLAN_MAX_DEPTH`` levels deep in the file.
        """
        # One level for the plan object around them: the same limit as when the file is read.
        for name, value in (("transmissions", transmissions), ("switch_state", switch_state)):
            if nested_beyond(value, PLAN_MAX_DEPTH - 1):
                raise PlanError(f"{name}: nested more than {PLAN_MAX_DEPTH} levels deep, the limit of a plan")

        transmissions = as_list("transmissions", transmissions, "a list of transmissions (dicts)")
        destinations = endpoint_list("destinations", destinations)
        packets = whole_number("packets", packets, 1, U32_MAX)
        for name, value in (("discipline", discipline), ("scheme", scheme)):
            if not isinstance(value, str):
                raise TypeError(f"{name}: expected a str, not {type(value).__name__}")
        if switch_state is not None and not isinstance(switch_state, Mapping):
            raise TypeError(f"switch_state: expected a dict such as {{'mft': [...]}}, not {type(switch_state).__name__}")
        ep = fabric.endpoint
        data = {
            "format": "mcastlab-plan",
            "version": 1,
            "scheme": scheme,
            "fabric": fabric.name,
            "source": ep(source),
            "destinations": [ep(d) for d in destinations],
            "packets": packets,
            "discipline": {"fpfs": "ni_fpfs", "fcfs": "ni_fcfs"}.get(discipline, discipline),
            "transmissions": [_transmission(i, t, ep) for i, t in enumerate(transmissions)],
        }
        if switch_state:
            data["switch_state"] = switch_state
        text = json_text("switch_state", data)
        return cls(fabric, fabric.routing(routing)._core.plan_from_json(text, "<transmissions>"))

    def __repr__(self) -> str:
        return repr(self._core)

    def _repr_html_(self) -> str:
        return plan_html(self)


class Fabric:
    """A validated, immutable fabric: switches, endpoints and the links between their ports."""

    def __init__(self, core: Any) -> None:
        self._core = core
        self._data: Optional[Dict[str, Any]] = None
        self._routings: Dict[Optional[str], Routing] = {}
        # The plan checks of workloads run on this fabric (``workloads.run_workload``), keyed by
        # everything a check depends on: a sweep or an experiment that runs one workload at many
        # loads checks its plans once (0.6 s a time on mport_ntree:m=8,n=3).
        self._plan_checks: Dict[str, Any] = {}

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def generate(cls, spec: str) -> "Fabric":
        """Builds a fabric from a spec string (``mcastlab.generators()`` lists them)."""
        return cls(_CoreFabric.generate(spec))

    @classmethod
    def load(cls, path: PathLike) -> "Fabric":
        """Loads an mcastlab JSON or ibnetdiscover file."""
        return cls(_CoreFabric.load(check_input_file(path)))

    @classmethod
    def parse(cls, text: str, name: str = "<string>") -> "Fabric":
        """Parses fabric text (JSON or ibnetdiscover)."""
        return cls(_CoreFabric.parse(text, name))

    # -- basic facts --------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._core.name

    @property
    def num_switches(self) -> int:
        return self._core.num_switches

    @property
    def num_endpoints(self) -> int:
        return self._core.num_endpoints

    @property
    def num_links(self) -> int:
        return self._core.num_links

    @property
    def topology(self) -> Dict[str, Any]:
        """How the fabric was made: ``{"generator": "torus", "dims": [4, 4], ...}``."""
        return json.loads(self._core.topology_json())

    @property
    def data(self) -> Dict[str, Any]:
        """The whole fabric as the JSON schema describes it (switches, endpoints, links)."""
        if self._data is None:
            self._data = json.loads(self._core.to_json())
        return self._data

    @property
    def switches(self) -> List[Dict[str, Any]]:
        return self.data["switches"]

    @property
    def endpoints(self) -> List[Dict[str, Any]]:
        return self.data["endpoints"]

    @property
    def links(self) -> List[Dict[str, Any]]:
        return self.data["links"]

    def stats(self) -> Dict[str, Any]:
        """Counts, degree statistics and diameters."""
        return json.loads(self._core.stats_json())

    def endpoint(self, ref: EndpointRef) -> int:
        """Endpoint index for an index or a name / label / GUID / description."""
        if isinstance(ref, str):
            return self._core.find_endpoint(ref)
        # An integer (numpy's too) is an index; a string that is a bare number is refused on a
        # fabric with LIDs (it could be either; write ``lid:33`` or ``index:33``).
        if isinstance(ref, bool):
            raise TypeError("endpoint reference must be an int or a str, not bool")
        try:
            i = operator.index(ref)
        except TypeError:
            raise TypeError(f"endpoint reference must be an int or a str, not {type(ref).__name__}") from None
        return self._core.find_endpoint(f"index:{i}")

    def switch(self, ref: Union[int, str]) -> int:
        """Switch index for an index, a name or a GUID."""
        return self._core.find_switch(str(ref))

    def attachment(self, ref: EndpointRef) -> tuple:
        """``(switch index, port)`` an endpoint is attached to."""
        return self._core.attachment(self.endpoint(ref))

    # -- routing ------------------------------------------------------------------------------
    def routing(self, spec: Optional[str] = None) -> Routing:
        """A routing of this fabric (cached per spec); ``None`` is the fabric's default engine."""
        if spec not in self._routings:
            self._routings[spec] = Routing(self, self._core.routing(spec))
        return self._routings[spec]

    def load_lfts(self, path: PathLike) -> Routing:
        """A routing read from an OpenSM LFT dump (``opensm-lfts.dump``) of this fabric."""
        return Routing(self, self._core.load_lfts(read_input_file(path, RoutingError), os.fspath(path)))

    def applicable_routings(self) -> List[str]:
        return list(self._core.applicable_routings())

    def applicable_schemes(self) -> List[str]:
        """The multicast schemes that apply to this fabric, in registry order."""
        return list(self._core.applicable_schemes())

    def route(self, src: EndpointRef, dst: EndpointRef, routing: Optional[str] = None, max_paths: int = 16) -> Dict[str, Any]:
        """Route from src to dst under ``routing`` (default engine if None); see :meth:`Routing.route`."""
        return self.routing(routing).route(src, dst, max_paths)

    def check(self, routing: Optional[str] = None, max_work: Optional[int] = None) -> Dict[str, Any]:
        """Reachability and deadlock check of ``routing``; see :meth:`Routing.check`."""
        return self.routing(routing).check(max_work)

    def plan(
        self,
        scheme: str,
        source: EndpointRef,
        destinations: List[EndpointRef],
        packets: int = 1,
        discipline: str = "fpfs",
        routing: Optional[str] = None,
    ) -> Plan:
        """A multicast plan built by ``scheme`` (``mcastlab.schemes()`` lists them)."""
        packets = whole_number("packets", packets, 1, U32_MAX)
        dests = [self.endpoint(d) for d in endpoint_list("destinations", destinations)]
        core = self.routing(routing)._core.plan(scheme, self.endpoint(source), dests, packets, discipline)
        return Plan(self, core)

    def load_plan(self, path: PathLike, routing: Optional[str] = None) -> Plan:
        """Reads a plan file saved with :meth:`Plan.save` and validates it on this fabric."""
        text = read_input_file(path, PlanError)
        return Plan(self, self.routing(routing)._core.plan_from_json(text, os.fspath(path)))

    # -- InfiniBand multicast groups ------------------------------------------------------------
    def mcast(
        self,
        groups: GroupsInput,
        routing: Optional[str] = None,
        mft_cap: Optional[int] = None,
        hca_groups: Optional[int] = None,
        brief: bool = False,
        switchinfo: Optional[PathLike] = None,
    ) -> Dict[str, Any]:
        """OpenSM's MFTs for many groups at once (docs/formats.md, "Multicast groups").

        ``groups`` is a groups file path, or a list of groups (dicts as in the JSON format, e.g.
        ``{"name": "g", "members": ["lid:3", "H-..."]}``). Returns ``groups`` (per group: MLID,
        root, switches programmed, a note for one-member groups), ``mft`` (rows), ``mcfdbs`` (the
        ``opensm.mcfdbs`` text), ``ibroute`` (``ibroute -M`` text of every switch with a row;
        ``brief`` = ``-n``) and ``capacity`` (which groups get hardware multicast under
        ``mft_cap`` = MulticastFDBCap and ``hca_groups`` = groups an HCA port can receive;
        ``switchinfo``, a file of ``smpquery switchinfo`` output, gives switches their own cap).
        ``routing`` names the unicast engine whose hop matrix the trees use (default: minhop)."""
        text, name = groups_text(groups)
        caps = [None if v is None else whole_number(k, v, 1, U32_MAX) for k, v in (("mft_cap", mft_cap), ("hca_groups", hca_groups))]
        si = None if switchinfo is None else read_input_file(switchinfo, PlanError)
        si_name = "<switchinfo>" if switchinfo is None else os.fspath(switchinfo)
        return json.loads(self._core.mcast_json(text, name, routing, caps[0], caps[1], bool(brief), si, si_name))

    def capacity(self, groups: GroupsInput, mft_cap: Optional[int] = None, hca_groups: Optional[int] = None,
                 routing: Optional[str] = None, switchinfo: Optional[PathLike] = None) -> Dict[str, Any]:
        """The admission report of :meth:`mcast`: per group ``hardware``, ``software`` (and why)
        or ``none`` (fewer than two members), and the first limit hit; the trees (and so the MFT
        blocks each switch needs) follow ``routing``'s hop matrix (default: minhop). Switches
        named in ``switchinfo`` (``smpquery switchinfo`` output) use their own MulticastFDBCap,
        the others ``mft_cap``."""
        return self.mcast(groups, routing=routing, mft_cap=mft_cap, hca_groups=hca_groups,
                          switchinfo=switchinfo)["capacity"]

    def check_mfts(self, dump: PathLike, groups: Optional[GroupsInput] = None) -> List[Dict[str, Any]]:
        """Verifies an ``opensm.mcfdbs`` or ``ibroute -M`` dump, MLID by MLID: from every member,
        every other member reached exactly once, no switch entered twice (``ok``; else
        ``unreached``, ``duplicates``, ``loops``, ``strays``). Members come from ``groups`` when
        given (MLIDs allocated as :meth:`mcast` does), else from the dump."""
        text = read_input_file(dump, PlanError)
        gt, gn = groups_text(groups) if groups is not None else (None, None)
        return json.loads(self._core.check_mfts_json(text, os.fspath(dump), gt, gn))

    def plan_from_mfts(self, dump: PathLike, mlid: int, source: EndpointRef,
                       groups: Optional[GroupsInput] = None, routing: Optional[str] = None, packets: int = 1) -> Plan:
        """A one-packet plan from ``source`` over the MFTs of a dump for ``mlid``, to check or
        simulate like any plan."""
        text = read_input_file(dump, PlanError)
        gt, gn = groups_text(groups) if groups is not None else (None, None)
        mlid = whole_number("mlid", mlid, 0xC000, 0xFFFE)
        packets = whole_number("packets", packets, 1, U32_MAX)
        core = self.routing(routing)._core.plan_from_mfts(text, os.fspath(dump), mlid, self.endpoint(source), gt, gn, packets)
        return Plan(self, core)

    def random_group(self, source: EndpointRef, percent: Optional[float] = None, seed: int = 1, *,
                     count: Optional[int] = None) -> List[int]:
        """A random group of the endpoints other than ``source``, drawn deterministically from
        ``seed``: ``percent``% of them (rounded half away from zero, at least one: 95.24% of the 63
        others of 64 endpoints is 60), or exactly ``count`` of them. For one seed a smaller group
        is a subset of a larger one."""
        if (percent is None) == (count is None):
            raise PlanError("random_group: give percent or count, not both (nor neither)")
        n = None if count is None else whole_number("count", count, 1, U32_MAX)
        pct = 100.0 if percent is None else percentage("percent", percent)
        return list(self.routing()._core.random_group(self.endpoint(source), pct, whole_number("seed", seed), n))

    # -- output -------------------------------------------------------------------------------
    def to_json(self) -> str:
        return self._core.to_json()

    def to_dot(self) -> str:
        return self._core.to_dot()

    def to_ibnetdiscover(self) -> str:
        return self._core.to_ibnetdiscover()

    def save(self, path: PathLike) -> None:
        """Writes the fabric; the extension picks the format (.json, .dot, .topo)."""
        self._core.save(os.fspath(path))

    def to_networkx(self):
        """A ``networkx.MultiGraph`` (``MultiDiGraph`` if some links are directed).

        Nodes are the switch and endpoint names with attributes ``kind`` (``"switch"`` or
        ``"endpoint"``), ``index``, and for switches ``ports``, ``level``, ``coords``. Each link is
        an edge keyed by its link index with ``ports`` (port at each end, None for endpoints),
        ``directed``, ``width`` and ``speed``.
        """
        import networkx as nx

        directed = any(l.get("directed", False) for l in self.links)
        g = nx.MultiDiGraph() if directed else nx.MultiGraph()
        g.graph["name"] = self.name
        g.graph["topology"] = self.topology
        for i, s in enumerate(self.switches):
            g.add_node(s["name"], kind="switch", index=i, ports=s["ports"], level=s.get("level"), coords=s.get("coords"))
        for i, e in enumerate(self.endpoints):
            if e["name"] in g:
                raise ValueError(f"endpoint name {e['name']!r} equals a switch name; cannot key nodes by name")
            g.add_node(e["name"], kind="endpoint", index=i)

        def end(t: Dict[str, int]):
            if "switch" in t:
                return self.switches[t["switch"]]["name"], t["port"]
            return self.endpoints[t["endpoint"]]["name"], None

        for i, l in enumerate(self.links):
            (a, pa), (b, pb) = end(l["a"]), end(l["b"])
            g.add_edge(a, b, key=i, ports=(pa, pb), directed=l.get("directed", False), width=l.get("width"), speed=l.get("speed"))
            if directed and not l.get("directed", False):
                g.add_edge(b, a, key=i, ports=(pb, pa), directed=False, width=l.get("width"), speed=l.get("speed"))
        return g

    def draw(self, path: PathLike, **kwargs: Any) -> None:
        """Draws the fabric to an SVG/PNG/PDF file (needs matplotlib: ``pip install mcastlab[plot]``)."""
        from .draw import draw

        draw(self, path, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fabric) and self._core == other._core

    def __repr__(self) -> str:
        return f"Fabric({self.name!r}: {self.num_switches} switches, {self.num_endpoints} endpoints, {self.num_links} links)"

    def _repr_html_(self) -> str:
        return fabric_html(self)


def fabric(spec_or_path: Union[str, "os.PathLike[str]", None] = None) -> Fabric:
    """A fabric from a spec string (``"torus:4x4"``) or an existing file path.

    With no argument, the built-in default: sivaram98's 32 endpoints on eight 8-port switches.
    """
    if spec_or_path is None:
        return Fabric.generate(DEFAULT_SPEC)
    if not isinstance(spec_or_path, (str, os.PathLike)):
        raise TypeError(f"fabric: expected a spec string or a file path, not {type(spec_or_path).__name__}")
    text = os.fspath(spec_or_path)
    if isinstance(spec_or_path, os.PathLike) or Path(text).is_file():
        return Fabric.load(text)
    # Something that is not a generator's spec but exists (a directory, a FIFO) or looks like a
    # path is a file the user meant: load it, so the error says what it is.
    generator = text.split(":", 1)[0].strip()
    if (os.sep in text or text.lower().endswith(_FILE_SUFFIXES)
            or (os.path.exists(text) and generator not in {g["name"] for g in generators()})):
        return Fabric.load(text)
    return Fabric.generate(text)


def given_fabric(fabric_: Union[Fabric, str, "os.PathLike[str]"]) -> Fabric:
    """The fabric a function was given (a Fabric, a spec or a path). None is refused: where the
    fabric is a required argument, a None is a mistake (a variable never set), and quietly using
    the default fabric would run on something the caller never asked for."""
    if fabric_ is None:
        raise TypeError("fabric: got None; pass a Fabric, a spec or a file path (mcastlab.fabric() is the default fabric)")
    return fabric_ if isinstance(fabric_, Fabric) else fabric(fabric_)


_FILE_SUFFIXES = (".json", ".topo", ".txt", ".ibnd", ".net", ".topofile")


def plan(
    fabric_: Union[Fabric, str],
    scheme: str,
    source: EndpointRef,
    destinations: List[EndpointRef],
    packets: int = 1,
    discipline: str = "fpfs",
    routing: Optional[str] = None,
) -> Plan:
    """``mcastlab.plan(fabric, "kbinomial", src, dests, packets=4)``; ``fabric`` may be a spec."""
    f = given_fabric(fabric_)
    return f.plan(scheme, source, destinations, packets, discipline, routing)


def packets_for(size: Union[int, str], preset: str = "sivaram98", params: Optional[Dict[str, Any]] = None) -> int:
    """How many packets a message of ``size`` splits into under ``preset`` (after ``params``
    overrides): a plan must be built for that many packets before it can simulate ``size``."""
    return int(_CorePlan.packets_for(preset, param_overrides(params), size_bytes(size)))


def ni_protocols() -> List[Dict[str, str]]:
    """The NI send protocols (values of the ``ni.send`` parameter), with what each does."""
    return json.loads(protocols_json())


def sim_presets() -> List[Dict[str, Any]]:
    """The simulator presets (sivaram98, oral, zhou07, bhoedjang98, coll03) with every value."""
    return json.loads(sim_presets_json())


def sim_params(preset: str = "sivaram98", params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A preset's parameters after overrides, validated (raises SimError naming a bad one)."""
    return json.loads(sim_params_json(preset, param_overrides(params)))


def load(path: PathLike) -> Fabric:
    """Loads an mcastlab JSON or ibnetdiscover file."""
    return Fabric.load(path)
