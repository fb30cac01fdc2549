"""Pictures of fabrics with matplotlib: a layered layout for fat-trees, a grid for tori, meshes
and hypercubes, a spring layout for irregular and imported fabrics. Endpoints sit next to their
switch."""

from __future__ import annotations

import math
import os
from typing import Any, Dict, Optional, Tuple

from ._core import SpecError

Pos = Dict[Tuple[str, int], Tuple[float, float]]


def _layered(f) -> Pos:
    """Switches in rows by level (top of the tree at the top), endpoints in the bottom row."""
    topo = f.topology
    levels = [s.get("level") or 0 for s in f.switches]
    top_is_zero = topo.get("generator") == "mport_ntree"
    depth = [lv if top_is_zero else max(levels) - lv for lv in levels]
    rows: Dict[int, list] = {}
    for i, d in enumerate(depth):
        rows.setdefault(d, []).append(i)
    bottom = max(depth) + 1
    width = max(f.num_endpoints, 1)
    pos: Pos = {}
    for d, members in rows.items():
        for j, i in enumerate(members):
            pos[("s", i)] = ((j + 0.5) * width / len(members), -d)
    for e in range(f.num_endpoints):
        pos[("e", e)] = (e + 0.5, -bottom)
    return pos


def _grid(f) -> Pos:
    pos: Pos = {}
    for i, s in enumerate(f.switches):
        c = s["coords"]
        if f.topology.get("generator") == "hypercube":
            half = (len(c) + 1) // 2
            x = sum(b << k for k, b in enumerate(c[:half]))
            y = sum(b << k for k, b in enumerate(c[half:]))
            # Gray-code order puts hypercube neighbours next to each other.
            x, y = x ^ (x >> 1), y ^ (y >> 1)
        else:
            x = c[0]
            y = c[1] if len(c) > 1 else 0
            for k, ck in enumerate(c[2:]):
                x += ck * 0.25 * (k + 1)
                y += ck * 0.25 * (k + 1)
        pos[("s", i)] = (x * 3.0, y * 3.0)
    return pos


def _spring(f) -> Pos:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(f.num_switches))
    for l in f.links:
        a, b = l["a"], l["b"]
        if "switch" in a and "switch" in b and a["switch"] != b["switch"]:
            g.add_edge(a["switch"], b["switch"])
    p = nx.spring_layout(g, seed=0, k=2.0 / math.sqrt(max(f.num_switches, 1)))
    scale = 3.0 * math.sqrt(max(f.num_switches, 1))
    return {("s", i): (float(x) * scale, float(y) * scale) for i, (x, y) in p.items()}


def _place_endpoints(f, pos: Pos) -> None:
    """Endpoints on a small circle around their switch."""
    per: Dict[int, list] = {}
    for l in f.links:
        a, b = l["a"], l["b"]
        if "endpoint" in a and "switch" in b:
            a, b = b, a
        if "switch" in a and "endpoint" in b:
            per.setdefault(a["switch"], []).append(b["endpoint"])
    for s, eps in per.items():
        x, y = pos[("s", s)]
        for j, e in enumerate(sorted(eps)):
            ang = 2 * math.pi * j / len(eps) - math.pi / 2
            pos[("e", e)] = (x + 0.9 * math.cos(ang), y + 0.9 * math.sin(ang))


def layout(f) -> Pos:
    """Node positions keyed by ``("s", switch index)`` and ``("e", endpoint index)``."""
    gen = f.topology.get("generator")
    if gen in ("mport_ntree", "kary_ntree"):
        return _layered(f)
    pos = _grid(f) if gen in ("torus", "mesh", "hypercube") else _spring(f)
    _place_endpoints(f, pos)
    return pos


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("drawing needs matplotlib: pip install 'mcastlab[plot]'") from e
    return plt


# What makes a saved picture depend on when it was made: matplotlib stamps SVG and PDF files
# with the date, and salts SVG clip-path and glyph ids with a random value unless told one.
_NO_DATE = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}
_SALT = "mcastlab"


def save_figure(fig, target: Any, fmt: Optional[str] = None) -> None:
    """Saves ``fig`` to a path (format by extension) or a binary file object (``fmt`` given) so
    that the same figure gives the same bytes: no date stamp and a fixed ``svg.hashsalt``. The
    salt is scoped with ``rc_context``, so the caller's matplotlib settings are left alone."""
    import matplotlib

    if fmt is None:
        fmt = os.path.splitext(os.fspath(target))[1].lower().lstrip(".")
    with matplotlib.rc_context({"svg.hashsalt": _SALT}):
        fig.savefig(target, format=fmt, metadata=_NO_DATE.get(fmt))


def picture_formats() -> Tuple[str, ...]:
    """The file extensions a picture can be written as (matplotlib picks the format by extension):
    ``("eps", "jpeg", ..., "pdf", "png", "svg", ...)``. Asked from matplotlib rather than listed
    here, so the list is always what this installation writes."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise ImportError("drawing needs matplotlib: pip install 'mcastlab[plot]'") from e
    return tuple(sorted(FigureCanvasBase.get_supported_filetypes()))


def check_picture_path(path: "os.PathLike[str] | str", what: str = "path") -> None:
    """Raises SpecError naming ``what`` (the parameter or option) when ``path``'s extension is no
    picture format: checked before a layout is computed or a run is made, since matplotlib only
    finds out when it saves, after all the work."""
    ext = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    formats = picture_formats()
    if ext not in formats:
        got = f"extension `.{ext}`" if ext else "no extension"
        raise SpecError(f"{what} {os.fspath(path)}: {got}; a picture is one of .{', .'.join(formats)}")
    # Before the layout and the drawing, not when matplotlib saves after them.
    parent = os.path.dirname(os.fspath(path)) or "."
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"{what} {os.fspath(path)}: directory {parent} does not exist")
    if os.path.isdir(path):  # d.svg a directory: matplotlib's bare `[Errno 21]`, after the layout
        raise IsADirectoryError(f"{what} {os.fspath(path)}: is a directory, not a file")


def _key(t: Dict[str, int]):
    return ("s", t["switch"]) if "switch" in t else ("e", t["endpoint"])


def _canvas(f, pos: Pos, faint: bool):
    """A figure with every link and node of the fabric drawn (greyed when ``faint``)."""
    plt = _pyplot()
    n = f.num_switches + f.num_endpoints
    size = min(40.0, max(6.0, math.sqrt(n) * 1.6))
    fig, ax = plt.subplots(figsize=(size, size * 0.75))
    grey = "0.85" if faint else "0.55"
    for l in f.links:
        (x0, y0), (x1, y1) = pos[_key(l["a"])], pos[_key(l["b"])]
        if l.get("directed"):
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0), arrowprops=dict(arrowstyle="->", color=grey, lw=0.8))
        else:
            ax.plot([x0, x1], [y0, y1], color=grey, lw=0.6, zorder=1)
    sx = [pos[("s", i)][0] for i in range(f.num_switches)]
    sy = [pos[("s", i)][1] for i in range(f.num_switches)]
    ax.scatter(sx, sy, marker="s", s=120, color="lightsteelblue" if faint else "tab:blue", zorder=2, label="switch")
    ex = [pos[("e", i)][0] for i in range(f.num_endpoints)]
    ey = [pos[("e", i)][1] for i in range(f.num_endpoints)]
    ax.scatter(ex, ey, marker="o", s=30, color="navajowhite" if faint else "tab:orange", zorder=3, label="endpoint")
    return plt, fig, ax


def _labels(f, ax, pos: Pos) -> None:
    if f.num_switches + f.num_endpoints > 400:
        return
    for i, s in enumerate(f.switches):
        ax.annotate(s["name"], pos[("s", i)], fontsize=6, ha="center", va="bottom", xytext=(0, 5), textcoords="offset points")
    if f.num_endpoints <= 200:
        for i, e in enumerate(f.endpoints):
            ax.annotate(e["name"], pos[("e", i)], fontsize=5, ha="center", va="top", xytext=(0, -4), textcoords="offset points")


def _save(plt, fig, ax, title: str, path, fmt: Optional[str] = None) -> None:
    ax.set_title(title, fontsize=9)
    ax.set_axis_off()
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    try:
        save_figure(fig, path if fmt else os.fspath(path), fmt)
    finally:
        plt.close(fig)


def draw(f, path: Any, labels: bool = True, fmt: Optional[str] = None, **_: Any) -> None:
    """The fabric to a picture file (format by extension), or to a binary file object as ``fmt``."""
    if fmt is None:
        check_picture_path(path)
    pos = layout(f)
    plt, fig, ax = _canvas(f, pos, faint=False)
    if labels:
        _labels(f, ax, pos)
    _save(plt, fig, ax, f.name, path, fmt)


def draw_plan(f, plan, path: Any, labels: bool = True, fmt: Optional[str] = None, **_: Any) -> None:
    """The plan over its fabric: every channel a carrier crosses as an arrow coloured by the step
    its transmission starts in (labelled with that step), the source and destinations marked.
    ``path`` and ``fmt`` as for :func:`draw`."""
    if fmt is None:
        check_picture_path(path)
    pos = layout(f)
    plt, fig, ax = _canvas(f, pos, faint=True)
    trees = plan.trees()
    last = max([t["step"] for t in trees] + [1])
    cmap = plt.get_cmap("viridis")
    links = f.links
    drawn = 0
    for t in trees:
        colour = cmap(0.05 + 0.85 * (t["step"] - 1) / max(last - 1, 1))
        for link, d in t["channels"]:
            l = links[link]
            a, b = (l["a"], l["b"]) if d == 0 else (l["b"], l["a"])
            (x0, y0), (x1, y1) = pos[_key(a)], pos[_key(b)]
            ax.annotate("", xy=(x1, y1), xytext=(x0, y0),
                        arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.6, shrinkA=6, shrinkB=6), zorder=4)
            if drawn < 600:
                ax.annotate(str(t["step"]), ((x0 + x1) / 2, (y0 + y1) / 2), fontsize=6, color="black",
                            ha="center", va="center", zorder=5,
                            bbox=dict(boxstyle="round,pad=0.1", fc="white", ec=colour, lw=0.5))
            drawn += 1
    data = plan.data
    dx = [pos[("e", e)][0] for e in data["destinations"]]
    dy = [pos[("e", e)][1] for e in data["destinations"]]
    ax.scatter(dx, dy, marker="o", s=60, color="tab:green", zorder=6, label="destination")
    sx, sy = pos[("e", data["source"])]
    ax.scatter([sx], [sy], marker="*", s=220, color="tab:red", zorder=7, label="source")
    if labels:
        _labels(f, ax, pos)
    kinds = sorted({t["kind"] for t in trees})
    _save(plt, fig, ax, f"{plan.scheme}\non {f.name}\n{len(trees)} transmissions ({', '.join(kinds)}), "
          f"{last} step(s); labels are steps", path, fmt)
