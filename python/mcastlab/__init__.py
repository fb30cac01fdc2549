"""mcastlab: design, verify and simulate multicast on HPC cluster interconnects.

Quick tour::

    import mcastlab
    f = mcastlab.fabric("torus:4x4")          # generate from a spec, or pass a file path
    f.route(0, 5)["deterministic"]["text"]    # the route and its adaptive alternatives
    f.check()["deadlock"]["status"]            # 'free' or 'cycle' (with the witness)
    g = f.to_networkx()
    f.save("torus.json"); mcastlab.load("torus.json") == f
    p = f.plan("kbinomial", 0, range(1, 16), packets=4); p.check()["ok"]
    r = mcastlab.simulate(f, "kbinomial", 0, range(1, 16), size="16KiB")   # timed run
    r = mcastlab.reproduce("coll03:fig8", scale="tiny")                      # a paper's figure, claims, report
"""

from ._core import (
    DEFAULT_SPEC,
    FabricError,
    InternalError,
    McastlabError,
    PlanError,
    RoutingError,
    SimError,
    SpecError,
    __version__,
)
from .api import (
    Fabric,
    Plan,
    Routing,
    fabric,
    generators,
    kbinomial_covered,
    kbinomial_optimal,
    load,
    plan,
    routings,
    schemes,
    sim_params,
    ni_protocols,
    sim_presets,
    size_bytes,
)
from .compare import compare
from .experiments import qs_table
from .params import param_table
from . import reproduce  # callable: mcastlab.reproduce("coll03", scale="quick")
from .simulation import simulate
from .workloads import estimate, run_workload, sweep, workloads

__all__ = [
    "DEFAULT_SPEC",
    "Fabric",
    "FabricError",
    "InternalError",
    "McastlabError",
    "Plan",
    "PlanError",
    "Routing",
    "RoutingError",
    "SimError",
    "SpecError",
    "__version__",
    "compare",
    "estimate",
    "fabric",
    "generators",
    "kbinomial_covered",
    "kbinomial_optimal",
    "load",
    "param_table",
    "plan",
    "qs_table",
    "reproduce",
    "routings",
    "run_workload",
    "schemes",
    "sim_params",
    "ni_protocols",
    "sim_presets",
    "simulate",
    "size_bytes",
    "sweep",
    "workloads",
]
