"""Rich display in Jupyter: ``_repr_html_`` of fabrics, plans and results.

A notebook shows an object by its HTML: a compact table of the key facts and, for small fabrics
and plans, the drawing as inline SVG. Everything here is bounded whatever the object's size —
no per-switch or per-transmission listing, no drawing above :data:`MAX_DRAWN_NODES` nodes, at most
:data:`MAX_ROWS` rows of a result — so displaying a million-endpoint fabric costs what displaying a
small one does. The API objects hand themselves over (``Fabric._repr_html_`` calls
:func:`fabric_html`); this module never imports the API back.
"""

from __future__ import annotations

import html
import io
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

# Above this many switches + endpoints a drawing is unreadable at notebook size and its SVG
# runs to hundreds of kilobytes: the summary is shown alone.
MAX_DRAWN_NODES = 64
# Rows of a result table: top-level scalars first, then one level of nested scalars.
MAX_ROWS = 40
# Longest value shown in a cell (a long string is cut with an ellipsis).
MAX_CELL = 120


def _cell(value: Any) -> str:
    if isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, (list, tuple)) and len(value) <= 8 and all(isinstance(x, (int, float, str)) for x in value):
        text = ", ".join(map(str, value))  # short lists of numbers (a torus's dims) read inline
    elif isinstance(value, (list, tuple)):
        text = f"list of {len(value)}"
    elif isinstance(value, dict):
        text = f"{len(value)} entries"
    else:
        text = str(value)
    if len(text) > MAX_CELL:
        text = text[: MAX_CELL - 1] + "…"
    return html.escape(text)


def table(title: str, rows: Iterable[Tuple[str, Any]]) -> str:
    """A two-column HTML table with a caption; values escaped and cut to :data:`MAX_CELL`."""
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>{_cell(v)}</td></tr>"
                   for k, v in rows)
    return f"<table><caption style='text-align:left'><b>{html.escape(title)}</b></caption>{body}</table>"


def svg_inline(write: Callable[[Any, str], None]) -> Optional[str]:
    """The SVG that ``write(file, "svg")`` produces, ready to embed in HTML (without the XML
    prolog); None without matplotlib, so a notebook without the extra still gets the table."""
    buf = io.BytesIO()
    try:
        write(buf, "svg")
    except ImportError:
        return None
    text = buf.getvalue().decode("utf-8")
    return text[text.find("<svg"):]


def _with_drawing(summary: str, nodes: int, write: Callable[[Any, str], None]) -> str:
    if nodes > MAX_DRAWN_NODES:
        return summary + f"<p><i>no drawing above {MAX_DRAWN_NODES} switches + endpoints ({nodes} here)</i></p>"
    svg = svg_inline(write)
    return summary if svg is None else summary + f"<div style='max-width:720px'>{svg}</div>"


def fabric_html(f: Any) -> str:
    """Name, topology, counts; the drawing when the fabric is small."""
    topo = f.topology
    rows = [
        ("topology", topo.get("generator") or topo.get("format") or "?"),
        ("switches", f.num_switches),
        ("endpoints", f.num_endpoints),
        ("links", f.num_links),
    ]
    rows += [(k, v) for k, v in topo.items() if k not in ("generator", "format")][:MAX_ROWS]
    from .draw import draw

    return _with_drawing(table(f"Fabric {f.name}", rows), f.num_switches + f.num_endpoints,
                         lambda buf, fmt: draw(f, buf, fmt=fmt))


def plan_html(p: Any) -> str:
    """Scheme, group, packets, discipline, transmissions by carrier kind; the drawing when the
    fabric is small. The plan is not checked here (a check can be costly): ``p.check()`` is."""
    d = p.data
    kinds: Dict[str, int] = {}
    for t in d["transmissions"]:
        kinds[t["carrier"]["kind"]] = kinds.get(t["carrier"]["kind"], 0) + 1
    f = p.fabric
    rows = [
        ("fabric", f.name),
        ("source", f.endpoints[d["source"]]["name"]),
        ("destinations", len(d["destinations"])),
        ("packets", d.get("packets")),
        ("discipline", d.get("discipline")),
        ("transmissions", ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none"),
    ]
    from .draw import draw_plan

    return _with_drawing(table(f"Plan {p.scheme}", rows), f.num_switches + f.num_endpoints,
                         lambda buf, fmt: draw_plan(f, p, buf, fmt=fmt))


def result_rows(d: Dict[str, Any]) -> List[Tuple[str, Any]]:
    """Top-level scalars, then the scalars one level down (``deadlock.status``), at most
    :data:`MAX_ROWS`; lists and deeper dicts are counted, not listed."""
    rows: List[Tuple[str, Any]] = []
    nested: List[Tuple[str, Any]] = []
    for k, v in d.items():
        if isinstance(v, dict):
            nested += [(f"{k}.{kk}", vv) for kk, vv in v.items() if not isinstance(vv, (dict, list))]
            if not v:
                rows.append((k, v))
        else:
            rows.append((k, v))
    out = rows + nested
    if len(out) > MAX_ROWS:
        out = out[: MAX_ROWS - 1] + [("…", f"{len(out) - MAX_ROWS + 1} more entries")]
    return out


class Result(dict):
    """A result dict (a check report, a run) that shows itself as a table in Jupyter. It is a
    plain ``dict`` in every other respect: equality, JSON, indexing."""

    title = "result"

    def __init__(self, data: Dict[str, Any], title: str = "result") -> None:
        super().__init__(data)
        self.title = title

    def _repr_html_(self) -> str:
        return table(self.title, result_rows(self))
