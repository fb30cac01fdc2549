"""mcastlab: design, verify and simulate multicast on HPC cluster interconnects.

Quick tour::

    import mcastlab
    f = mcastlab.fabric("torus:4x4")          # generate from a spec, or pass a file path
    f.route(0, 5)["deterministic"]["text"]    # the route and its adaptive alternatives
    f.check()["deadlock"]["status"]            # 'free' or 'cycle' (with the witness)
    g = f.to_networkx()
    f.save("torus.json"); mcastlab.load("torus.json") == f
"""

from ._core import (
    DEFAULT_SPEC,
    FabricError,
    McastlabError,
    PlanError,
    RoutingError,
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
)

__all__ = [
    "DEFAULT_SPEC",
    "Fabric",
    "FabricError",
    "McastlabError",
    "Plan",
    "PlanError",
    "Routing",
    "RoutingError",
    "SpecError",
    "__version__",
    "fabric",
    "generators",
    "kbinomial_covered",
    "kbinomial_optimal",
    "load",
    "plan",
    "routings",
    "schemes",
]
