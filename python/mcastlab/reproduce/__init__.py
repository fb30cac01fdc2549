"""``mcastlab reproduce``: the five papers' figures and tables as declared experiments, run on a
local pool or a Dask cluster, with their claims evaluated and a report.

The package is also callable, as the one-call Python entry point::

    import mcastlab
    r = mcastlab.reproduce("coll03:fig8", scale="tiny", out="out")   # = mcastlab.reproduce.api.reproduce
    r.rows, r.tables, r.verdicts, r.paths

(a module cannot be called by default; the package's class is switched to a callable subclass of
``ModuleType``, which Python supports for exactly this, rather than naming the function
differently from the command).
"""

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .api import reproduce

        return reproduce(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
