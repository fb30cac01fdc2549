"""Paper experiments that are not one plan or one run: coll03's Table 1 / Fig. 7 study of hardware
multicast tree depth (`qs_table`). The trials run in the Rust core, in parallel; the rows do not
depend on the number of threads."""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, List, Optional, Sequence

from ._core import qs_table_config_json, qs_table_json
from .inputs import as_list, number_list, once_each

Progress = Callable[[int, int], None]


class Rows(List[Dict[str, Any]]):
    """The rows of an experiment: a list, with ``interrupted`` true when Ctrl-C stopped it (it
    then holds the rows of the configurations that finished, none of the one under way)."""

    interrupted: bool = False


def qs_table(
    preset: str = "table1",
    *,
    sizes: Optional[Sequence[int]] = None,
    fault_percents: Optional[Sequence[float]] = None,
    trials: Optional[int] = None,
    seed: Optional[int] = None,
    budget: Optional[int] = None,
    source: Optional[str] = None,
    join_source: Optional[bool] = None,
    k: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> List[Dict[str, Any]]:
    """coll03's experiment: for each network size and percentage of faulty endpoints, ``trials``
    random fault sets (seeded), the depth of the greedy (Algorithm 2) and optimal (Algorithm 1)
    hardware multicast trees from a random working source to every working endpoint.

    ``preset`` is ``"table1"`` (1024/2048/4096 nodes, 0.2-1% faulty, Table 1) or ``"fig7"`` (16 to
    4096 nodes, 0.1-10%, Fig. 7); keyword arguments replace the preset's values. Each row has
    ``size``, ``levels``, ``fault_percent``, ``faulty``, ``trials``, the depth histograms
    ``optimal`` and ``greedy`` (``[depth, trials]`` pairs), ``greedy_optimal`` (trials where greedy
    is as shallow as optimal), ``unproven`` (optimal searches that hit ``budget``) and
    ``notation`` (Table 1's ``x/y``). ``progress(done, total)`` is called after each configuration.
    Ctrl-C stops the trials under way (before their next trial) and returns the rows of the
    configurations that finished, with ``interrupted`` true (see :class:`Rows`).
    """
    options: Dict[str, Any] = {
        "trials": trials,
        "seed": seed,
        "budget": budget,
        "source": source,
        "join_source": join_source,
        "k": k,
    }
    options = {key: v for key, v in options.items() if v is not None}
    defaults = _preset_lists(preset)
    size_list = as_list("sizes", sizes, "a list of network sizes") if sizes is not None else defaults["sizes"]
    percent_list = number_list("fault_percents", fault_percents) if fault_percents is not None else defaults["fault_percents"]
    # A configuration given twice would run its trials twice, for identical rows.
    once_each("sizes", size_list)
    once_each("fault_percents", percent_list)
    configs = [(s, p) for s in size_list for p in percent_list]
    rows = Rows()
    for i, (s, p) in enumerate(configs):
        one = {**options, "sizes": [s], "fault_percents": [p]}
        try:
            out = json.loads(qs_table_json(preset, json.dumps(one)))
        except KeyboardInterrupt:
            # Ctrl-C between two configurations (the core's run returns partial rows itself).
            out = {"rows": [], "interrupted": True}
        rows.extend(out["rows"])
        if out["interrupted"]:
            rows.interrupted = True
            break
        if progress is not None:
            progress(i + 1, len(configs))
    return rows


def _preset_lists(preset: str) -> Dict[str, List[Any]]:
    """The sizes and fault percentages of a preset (from the core, so there is one source)."""
    cfg = json.loads(qs_table_config_json(preset))
    return {"sizes": cfg["sizes"], "fault_percents": cfg["fault_percents"]}
