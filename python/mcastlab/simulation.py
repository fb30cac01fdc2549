"""``mcastlab.simulate``: one front door for both kinds of run, a single multicast (a Plan, or a
scheme built for a group) and traffic over time (a workload spec).

It lives above both `api` (plans) and `workloads` (traffic) because it dispatches between them;
kept inside `api`, it made `api` import `workloads` while `workloads` builds on `api`: a circle.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from ._core import PlanError
from .api import EndpointRef, Fabric, Plan, given_fabric, packets_for
from .workloads import is_workload, run_workload


def simulate(
    fabric_: Union[Fabric, str],
    plan_or_scheme: Union[Plan, str],
    source: Optional[EndpointRef] = None,
    destinations: Optional[List[EndpointRef]] = None,
    size: Union[int, str, None] = None,
    preset: str = "sivaram98",
    params: Optional[Dict[str, Any]] = None,
    seed: int = 1,
    discipline: Optional[str] = None,
    routing: Optional[str] = None,
    progress: Optional[Any] = None,
    load: Union[float, str, None] = None,
    measure: Optional[Dict[str, Any]] = None,
    allow_unchecked: bool = False,
    keep_partial: bool = False,
) -> Dict[str, Any]:
    """Simulate one multicast or a workload.

    - A Plan runs as is; a scheme name is built for ``source`` and ``destinations`` with as many
      packets as ``size`` (default 4 KiB) splits into under the preset, forwarded as
      ``discipline`` says (default ``fpfs``). Returns the RunResult.
    - A workload spec (``"uniform:load=0.2"``, ``"multicast_load:degree=3,scheme=kbinomial"``,
      see :func:`mcastlab.workloads`) runs over time with ``load`` and ``measure`` (see
      :func:`mcastlab.run_workload`); returns ``{"run", "samples", "destinations", "interrupted"}``.

    ``progress`` is the callback of :meth:`Plan.simulate` or :func:`mcastlab.run_workload`; an
    exception it raises stops the run and propagates. ``keep_partial`` (a plan run) returns what
    the run measured when Ctrl-C stops it (a workload run always does).

    The plan (or the plans of the workload's scheme) is checked first and the result's ``check``
    states the verdict; a plan that can deadlock raises PlanError unless ``allow_unchecked=True``.
    """
    f = given_fabric(fabric_)
    workload = isinstance(plan_or_scheme, str) and is_workload(plan_or_scheme)
    _refuse_unused(f, plan_or_scheme, workload, source=source, destinations=destinations, size=size,
                   discipline=discipline, routing=routing, load=load, measure=measure, keep_partial=keep_partial)
    if workload:
        return run_workload(
            f, plan_or_scheme, load=load, preset=preset, params=params, seed=seed, measure=measure,
            routing=routing, progress=progress, allow_unchecked=allow_unchecked,
        )
    size = "4KiB" if size is None else size  # (not `size or`: 0 is bhoedjang98's null message)
    if isinstance(plan_or_scheme, Plan):
        p = plan_or_scheme
    else:
        if source is None or destinations is None:
            raise PlanError("give source and destinations with a scheme name")
        packets = packets_for(size, preset, params)
        p = f.plan(plan_or_scheme, source, destinations, packets=packets, discipline=discipline or "fpfs",
                   routing=routing)
    return p.simulate(size=size, preset=preset, params=params, seed=seed, progress=progress,
                      allow_unchecked=allow_unchecked, keep_partial=keep_partial)


def _refuse_unused(f: Fabric, what: Union[Plan, str], workload: bool, **given: Any) -> None:
    """Arguments the run would not read are refused, naming them: each used to be dropped without
    a word (a workload ran its own scheme and size; a Plan ran on its own fabric, with its own
    source, destinations and routing, whatever was passed)."""
    def refuse(names: List[str], why: str) -> None:
        # (`is`, not `in`: a source 0 equals False.)
        names = [n for n in names if given[n] is not None and given[n] is not False]
        if names:
            raise PlanError(f"{', '.join(names)}: {why}")

    if workload:
        refuse(["source", "destinations", "size", "discipline", "keep_partial"],
               "a single multicast's arguments, not a workload's: a workload takes its scheme, discipline and "
               "message size as options of its spec (e.g. multicast_load:degree=3,scheme=kbinomial,bytes=4KiB)")
        return
    refuse(["load", "measure"], "go with a workload spec (a single multicast is timed whole)")
    if isinstance(what, Plan):
        refuse(["source", "destinations", "discipline", "routing"], "the Plan gives them (it was built with them)")
        if what.fabric.name != f.name:
            raise PlanError(f"the plan was built for fabric {what.fabric.name}, not {f.name}")
