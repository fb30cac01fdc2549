"""The comparison's plots (latency versus size, versus load): every scheme distinguishable and
every file byte-reproducible.

A comparison has 15 or more variants, more than any colour cycle: each line gets a colour, a
marker and, past the colours, a line style, so no two lines look alike. Variants whose curves
coincide (a bit-string worm and an MFT multicast both reach everyone in one step) would hide each
other: a later one is drawn with its markers shifted a few points sideways and its legend entry
names the curve it lies on ("ib_opensm (≈ bitstring)"), its markers hollow."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

from ..draw import save_figure

_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h")
_STYLES = ("-", "--", ":", "-.")
# Curves closer than this (relative, at every point) are indistinguishable on a log axis.
_COINCIDE_RTOL = 0.01
_OFFSET_POINTS = 4.0


def line_styles(labels: Sequence[str]) -> Dict[str, Dict[str, Any]]:
    """Plot keywords per label: colour from the 10-colour cycle, marker from an 11-marker cycle
    (so a colour/marker pair repeats only after 110 labels), line style changing every 10."""
    out = {}
    for i, label in enumerate(labels):
        out[label] = dict(color=f"C{i % 10}", marker=_MARKERS[i % len(_MARKERS)],
                          linestyle=_STYLES[(i // 10) % len(_STYLES)])
    return out


def coinciding(curves: Dict[str, Dict[float, float]]) -> Dict[str, str]:
    """For each curve that lies on an earlier one (same x values, y within 1% everywhere), the
    label of the first such earlier curve."""
    out: Dict[str, str] = {}
    seen: List[str] = []
    for label, pts in curves.items():
        for other in seen:
            ref = curves[other]
            if ref.keys() == pts.keys() and all(abs(pts[x] - ref[x]) <= _COINCIDE_RTOL * abs(ref[x]) for x in pts):
                out[label] = out.get(other, other)
                break
        seen.append(label)
    return out


def wrap_title(title: str, width: int = 90) -> str:
    """The title in lines of at most ``width`` characters, broken after the fabric's name (which
    has no spaces) and at spaces, so no part is clipped by the figure."""
    head, sep, rest = title.partition(": ")
    parts = [head + sep.rstrip()] if sep else []
    body = rest if sep else title
    return "\n".join(parts + textwrap.wrap(body, width, break_long_words=True))


def _draw_curves(fig: Any, ax: Any, groups: List[Tuple[str, Any]], x: str, y: str) -> Dict[str, Any]:
    """Plots one line per (label, rows) with distinct styles and shifted coinciding curves;
    returns the style of each label (for markers drawn on top, e.g. saturated points)."""
    from matplotlib.transforms import offset_copy

    styles = line_styles([label for label, _ in groups])
    curves = {label: dict(zip(g[x].astype(float), g[y].astype(float))) for label, g in groups}
    under = coinciding(curves)
    rank: Dict[str, int] = {}
    for label, g in groups:
        base = under.get(label)
        shift = 0
        name = label
        if base is not None:
            rank[base] = rank.get(base, 0) + 1
            shift = rank[base]
            same = all(curves[label][k] == curves[base][k] for k in curves[label])
            name = f"{label} ({'=' if same else '≈'} {base})"
        # Only shifted curves get an offset transform: a line off transData does not count for
        # autoscaling, and a shifted curve lies on its base curve, which does.
        shifted = dict(transform=offset_copy(ax.transData, fig=fig, x=_OFFSET_POINTS * shift, y=0, units="points"),
                       markerfacecolor="none") if shift else {}
        ax.plot(g[x], g[y], label=name, markersize=5, **styles[label], **shifted)
    return styles


def _finish(plt: Any, fig: Any, ax: Any, title: str, path: Path) -> Path:
    """The common look (log latency axis, grid, legend beside the axes, wrapped title), saved
    byte-reproducibly to ``path``."""
    ax.set_yscale("log")
    ax.set_title(wrap_title(title), fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
    return path


def plot(df: Any, out: Path, title: str) -> List[Path]:
    """Latency versus size (and versus load, if measured) as SVGs in ``out``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    single = df[(df["experiment"] == "single") & df["latency_us"].notna()]
    if not single.empty:
        fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
        groups = [(label, g.sort_values("size_bytes")) for label, g in single.groupby("label", sort=False)]
        _draw_curves(fig, ax, groups, "size_bytes", "latency_us")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("multicast latency, last destination (us)")
        paths.append(_finish(plt, fig, ax, title, out / "latency_vs_size.svg"))
    loaded = df[(df["experiment"] == "load") & df["latency_us"].notna()]
    if not loaded.empty:
        fig, ax = plt.subplots(figsize=(10, 5.2), layout="constrained")
        by_label = [(label, g.sort_values("load")) for label, g in loaded.groupby("label", sort=False)]
        stable = [(label, g[~g["saturated"].astype(bool)]) for label, g in by_label]
        styles = _draw_curves(fig, ax, stable, "load", "latency_us")
        for label, g in by_label:
            sat = g[g["saturated"].astype(bool)]
            ax.plot(sat["load"], sat["latency_us"], "x", color=styles[label]["color"], markersize=8)
        ax.set_xlabel("effective applied load (flits/cycle/endpoint)")
        ax.set_ylabel("mean multicast latency (us); x = saturated")
        paths.append(_finish(plt, fig, ax, title, out / "latency_vs_load.svg"))
    return paths
