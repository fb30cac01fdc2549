"""What a run states about its plan's check, and the refusal of a plan that can deadlock: shared by
:meth:`mcastlab.Plan.simulate`, workload runs and the command line (issue 13: simulate states the
check's verdict and refuses a deadlock-prone plan unless asked)."""

from __future__ import annotations

from typing import Any, Dict

from ._core import PlanError


# How to run a plan that fails the deadlock check anyway, in the API and on the command line.
ALLOW_UNCHECKED = "to simulate it anyway, pass allow_unchecked=True (mcastlab simulate/sweep: --allow-unchecked)"


def check_summary(rep: Dict[str, Any]) -> Dict[str, Any]:
    """What a run states about its plan's check (a :meth:`Plan.check` report): ``exactly_once``,
    ``conforms``, ``deadlock`` (the status) and ``verdict``, one line naming the three properties."""
    dl = rep["deadlock"]
    if dl["status"] == "free":
        dead = "deadlock-free yes"
    elif dl["status"] == "cycle":
        dead = "deadlock-free NO (a cycle of channel dependencies)"
    else:
        dead = f"deadlock-free not checked ({dl.get('reason', dl['status'])})"
    verdict = (f"exactly-once {'yes' if rep['exactly_once'] else 'NO'}, "
               f"conforms to {rep['routing']} {'yes' if rep['conforms'] else 'NO'}, {dead}")
    return {"exactly_once": rep["exactly_once"], "conforms": rep["conforms"], "deadlock": dl["status"],
            "verdict": verdict}


def require_deadlock_free(rep: Dict[str, Any], what: str, way_out: str) -> None:
    """Raises PlanError when the check report ``rep`` found a cycle of channel dependencies (the
    plan can deadlock): names ``what`` failed deadlock freedom, the start of the cycle, and
    ``way_out`` (how to run it anyway: ``allow_unchecked=True``, ``--allow-unchecked``)."""
    dl = rep["deadlock"]
    if dl["status"] != "cycle":
        return
    cycle = " -> ".join(dl["rendered"][:2]) + " -> ..."
    raise PlanError(
        f"{what} fails the deadlock check: its carriers and {rep['routing']} close a cycle of channel "
        f"dependencies ({cycle}); not simulated (`mcastlab plan`/`mcastlab check` show the whole cycle); {way_out}"
    )
