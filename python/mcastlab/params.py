"""The simulator's parameter table: every key a run accepts, with its type, units, doc and value
in each preset, as the Rust core defines them (one definition per key; see docs/params.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List

from ._core import param_table_json

if TYPE_CHECKING:  # pragma: no cover
    import pandas

COLUMNS = ("key", "type", "unit_or_values", "doc")


def param_rows() -> List[Dict[str, Any]]:
    """The rows as dicts: ``key``, ``type``, ``unit_or_values``, ``doc`` and ``presets``
    (preset name -> value text). Simulator keys first (``link.bandwidth``, ...), then the workload
    measurement settings (``measure.batches``, ...), whose value is their default in every preset."""
    return json.loads(param_table_json())


def param_table() -> "pandas.DataFrame":
    """The parameter table as a DataFrame: one row per key, columns ``key``, ``type``,
    ``unit_or_values``, ``doc`` and one column per preset holding that preset's value as text (it
    parses back: ``params={key: value}`` sets it)."""
    import pandas as pd

    rows = param_rows()
    presets = list(rows[0]["presets"]) if rows else []
    records = [{**{c: r[c] for c in COLUMNS}, **r["presets"]} for r in rows]
    return pd.DataFrame.from_records(records, columns=[*COLUMNS, *presets])
