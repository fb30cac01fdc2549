"""An experiment's figure drawn like the paper's, from its aggregated table: the paper's axes,
units and scales (its :class:`~.experiment.FigureSpec`), one curve per series with 95% error bars,
one panel per panel value, and the values the paper states (its :class:`~.experiment.Reference`
points) overlaid as open black markers, so mcastlab's curve and the paper's numbers are read on
one picture. A ``kind="table"`` experiment is drawn as a table of its means instead (the paper's
table, with the paper's value beside each cell where it states one).

Files are byte-reproducible (``draw.save_figure``: no date, fixed SVG hash salt), so the same
rows always give the same picture.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..draw import save_figure
from .experiment import Experiment, Reference

# A paper's reference values: open markers, one shape per series (cycled), black edges.
_REF_MARKERS = ("D", "s", "^", "v", "o", "P", "X", "*")
_PANEL_W, _PANEL_H = 5.2, 3.8
_MAX_COLUMNS = 4


def _sorted_values(values: Sequence[Any]) -> List[Any]:
    vals = list(dict.fromkeys(values))
    try:
        return sorted(vals)
    except TypeError:
        return vals


def _panels(experiment: Experiment, table: Any) -> List[Any]:
    spec = experiment.figure
    if spec.panel is None or spec.panel not in table:
        return [None]
    return _sorted_values(table[spec.panel])


def _finite(v: Any) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def draw(experiment: Experiment, table: Any, path: Path) -> Path:
    """Draws ``experiment``'s figure (or table) from ``table`` into ``path`` (SVG, PNG or PDF by
    extension) and returns ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if experiment.figure.kind == "table":
        fig = _table_figure(plt, experiment, table)
    else:
        fig = _line_figure(plt, experiment, table)
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
    return path


def _title(e: Experiment) -> str:
    return f"{e.paper} {e.label}: {e.title}"


def _line_figure(plt: Any, e: Experiment, table: Any) -> Any:
    """A grid of panels: a column per ``panel`` value, a row per measured column (``y``, then
    ``more_y``); in each, a curve per ``series`` value and the paper's values."""
    spec = e.figure
    panels = _panels(e, table)
    ys = [(spec.y, spec.ylabel or spec.y, spec.yscale), *spec.more_y]
    # A one-measure figure with many panels wraps after _MAX_COLUMNS (sivaram98 Fig. 26 has 8),
    # so that it stays readable on a page; several measures keep one row each.
    ncols = min(len(panels), _MAX_COLUMNS) if len(ys) == 1 else len(panels)
    wrap = -(-len(panels) // ncols)
    fig, grid = plt.subplots(len(ys) * wrap, ncols, figsize=(_PANEL_W * ncols + 2.4, _PANEL_H * len(ys) * wrap),
                             squeeze=False)
    axes = [[grid[r * wrap + i // ncols][i % ncols] for i in range(len(panels))] for r in range(len(ys))]
    for extra in range(len(panels), wrap * ncols):
        for r in range(len(ys)):
            grid[r * wrap + extra // ncols][extra % ncols].set_visible(False)
    series_all = _sorted_values(table[spec.series]) if spec.series and spec.series in table else [None]
    colors = {s: f"C{i % 10}" for i, s in enumerate(series_all)}
    for row, (ycol, ylabel, yscale) in enumerate(ys):
        for ax, panel in zip(axes[row], panels):
            part = table if panel is None else table[table[spec.panel] == panel]
            for s in series_all:
                curve = part if s is None else part[part[spec.series] == s]
                curve = curve[[_finite(v) for v in curve[ycol]]] if ycol in curve else curve.iloc[0:0]
                if len(curve) == 0:
                    continue
                curve = curve.sort_values(spec.x)
                ci = curve[f"{ycol}_ci"].fillna(0.0) if f"{ycol}_ci" in curve else None
                ax.errorbar(curve[spec.x], curve[ycol], yerr=ci, color=colors[s], marker="o", markersize=3.5,
                            linewidth=1.4, capsize=2.5, label=None if s is None else str(s))
            _references(ax, [r for r in e.references if _ref_y(r, ys) == ycol], panel, colors)
            ax.set_xscale(spec.xscale)
            ax.set_yscale(yscale)
            if yscale == "linear" and _non_negative(part, ycol):
                # Latencies, bandwidths, counts: a wide 95% interval over few replicates must not
                # draw the axis below zero; the interval is clipped at the axis, not changed.
                ax.set_ylim(bottom=0)
            ax.set_xlabel(spec.xlabel or spec.x)
            ax.set_ylabel(ylabel)
            if panel is not None:
                ax.set_title(f"{spec.panel} = {panel}", fontsize=9)
            ax.grid(True, alpha=0.3, which="both")
            handles, _ = ax.get_legend_handles_labels()
            if handles and ax is axes[row][min(len(panels), ncols) - 1]:
                # Beside the last panel, not over the curves.
                ax.legend(fontsize=7, title=spec.series, title_fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
            if len(table) == 0:
                ax.text(0.5, 0.5, f"not run: {e.pending}" if e.pending else "no data", transform=ax.transAxes,
                        ha="center", va="center", fontsize=8, wrap=True)
    fig.suptitle(_title(e), fontsize=10)
    fig.tight_layout()
    return fig


def _non_negative(part: Any, ycol: str) -> bool:
    """Whether the measured means of ``ycol`` are all finite and non-negative (and there is one)."""
    if ycol not in part:
        return False
    vals = [float(v) for v in part[ycol] if _finite(v)]
    return bool(vals) and min(vals) >= 0.0


def _ref_y(r: Reference, ys: Sequence[Tuple[str, str, str]]) -> str:
    """The measured column a reference value belongs to: ``Reference.panel`` names it when the
    figure has several measures (``more_y``), else the figure's ``y``."""
    names = [y[0] for y in ys]
    return r.panel if len(ys) > 1 and r.panel in names else names[0]


def _references(ax: Any, refs: Sequence[Reference], panel: Any, colors: Dict[Any, str]) -> None:
    """The paper's values as open markers edged in black over the series' colour, labelled once."""
    shown = [r for r in refs if r.panel is None or r.panel == panel or panel is None]
    by_series: Dict[Any, List[Reference]] = {}
    for r in shown:
        by_series.setdefault(r.series, []).append(r)
    for i, (s, rs) in enumerate(by_series.items()):
        ax.plot([r.x for r in rs], [r.y for r in rs], linestyle="none", marker=_REF_MARKERS[i % len(_REF_MARKERS)],
                markersize=8, markerfacecolor="none", markeredgecolor="black", markeredgewidth=1.3,
                label=f"paper: {s}", zorder=5)
        for r in rs:
            ax.plot([r.x], [r.y], linestyle="none", marker=".", color=colors.get(s, "black"), markersize=3, zorder=6)


def table_cells(e: Experiment, table: Any) -> Tuple[List[str], List[str], List[List[str]]]:
    """A ``kind="table"`` experiment as (column headers, row headers, cells): rows are the
    ``series`` values, columns the ``x`` values, a cell the mean of ``y`` (with the paper's value
    after a slash where it states one). Used by the figure and the HTML report alike."""
    spec = e.figure
    xs = _sorted_values(table[spec.x]) if spec.x in table else []
    rows = _sorted_values(table[spec.series]) if spec.series and spec.series in table else [None]
    refs = {(r.series, r.x): r.y for r in e.references}
    cells: List[List[str]] = []
    for s in rows:
        line = []
        for x in xs:
            part = table[table[spec.x] == x]
            if s is not None:
                part = part[part[spec.series] == s]
            v = part[spec.y].iloc[0] if len(part) else None
            text = _cell(v)
            if (s, x) in refs:
                text += f" (paper {_cell(refs[(s, x)])})"
            line.append(text)
        cells.append(line)
    return [str(x) for x in xs], ["" if s is None else str(s) for s in rows], cells


def _cell(v: Any) -> str:
    if not _finite(v):
        return "-"
    v = float(v)
    return f"{v:.3g}" if v != int(v) else f"{int(v)}"


def _table_figure(plt: Any, e: Experiment, table: Any) -> Any:
    spec = e.figure
    cols, rows, cells = table_cells(e, table)
    fig, ax = plt.subplots(figsize=(max(7.5, 1.6 * len(cols) + 1.5), 0.45 * len(rows) + 1.6))
    ax.axis("off")
    if cells and cols:
        t = ax.table(cellText=cells, rowLabels=rows, colLabels=cols, loc="center", cellLoc="center")
        t.auto_set_font_size(False)
        t.set_fontsize(8)
        t.scale(1.0, 1.3)
    ax.set_title(f"{spec.ylabel or spec.y} by {spec.series or ''} (rows) and {spec.xlabel or spec.x} (columns)",
                 fontsize=8)
    fig.suptitle(_title(e), fontsize=10)
    fig.tight_layout()
    return fig


def figure_name(e: Experiment, ext: str = "svg") -> str:
    """The figure's file name: ``coll03_fig8.svg`` for ``coll03:fig8``."""
    return e.key.replace(":", "_") + f".{ext}"


def panel_count(e: Experiment, table: Optional[Any]) -> int:
    return 1 if table is None else len(_panels(e, table))
