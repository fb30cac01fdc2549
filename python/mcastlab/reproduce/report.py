"""The report of a reproduction: one self-contained HTML file (figures embedded as data URIs,
styles inline, no script, nothing fetched) and a Markdown summary beside it.

The HTML has: the run (scale, master seed, where it ran, wall and CPU time, points computed and
reused, software versions), the claims table of every experiment (verdict, mcastlab's numbers
beside the paper's, "calibrated: no evidence" where a claim rests on a calibrated parameter),
then a section per experiment: what it varies, its figure, its parameters with their sources
(calibrated ones marked), its claims and its aggregated table.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List

from .experiment import DIFFERS, HOLDS, NOT_APPLICABLE, PENDING
from .figures import table_cells

if TYPE_CHECKING:
    from .results import ExperimentResult, Reproduction

# Rows of an aggregated table shown in the report (the CSV beside it has all of them).
TABLE_ROWS = 60

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1150px;color:#222;
line-height:1.4;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}
h3{font-size:1.05em}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.v{font-weight:600;padding:.1em .45em;border-radius:.3em;white-space:nowrap}
.v-holds{background:#d8f0d8;color:#145214}.v-differs{background:#fde2c8;color:#7a3300}
.v-na{background:#e6e6e6;color:#444}.v-pending{background:#dde6f7;color:#1d3a73}
.cal{color:#8a1c1c;font-weight:600}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
.meta td:first-child{font-weight:600}
.muted{color:#666}
"""

_BADGE = {HOLDS: "v-holds", DIFFERS: "v-differs", NOT_APPLICABLE: "v-na", PENDING: "v-pending"}


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _badge(status: str) -> str:
    return f'<span class="v {_BADGE.get(status, "v-na")}">{_e(status)}</span>'


def _counts(rep: "Reproduction") -> Dict[str, int]:
    out = {s: 0 for s in (HOLDS, DIFFERS, NOT_APPLICABLE, PENDING)}
    for e in rep.experiments:
        for c in e.claims:
            out[c.verdict.status] = out.get(c.verdict.status, 0) + 1
    return out


def _cpu(rep: "Reproduction") -> str:
    return "not measured (threads)" if rep.cpu_s is None else f"{rep.cpu_s:,.1f} s"


def versions() -> Dict[str, str]:
    """The software a report names: mcastlab, Python and the libraries that shape the rows and
    figures (and Dask, when installed)."""
    import platform

    from .._core import __version__

    out = {"mcastlab": __version__, "python": platform.python_version()}
    for mod in ("numpy", "pandas", "pyarrow", "matplotlib", "dask", "distributed"):
        try:
            m = __import__(mod)
        except ImportError:
            continue
        out[mod] = getattr(m, "__version__", "?")
    return out


def _run_facts(rep: "Reproduction") -> List[List[str]]:
    return [
        ["scale", rep.scale + ("" if rep.scale == "full" else " (fewer topologies/trials than the paper; see each experiment's points)")],
        ["master seed", str(rep.seed)],
        ["ran on", rep.where],
        ["wall time", f"{rep.wall_s:,.1f} s"],
        ["CPU time of the points computed", _cpu(rep)],
        ["points", f"{rep.computed:,} computed, {rep.reused:,} reused from the result store"],
        ["interrupted", "yes: unfinished experiments' claims are pending" if rep.interrupted else "no"],
        ["software", ", ".join(f"{k} {v}" for k, v in versions().items())],
    ]


def _figure_html(e: "ExperimentResult") -> str:
    if e.figure is None or not Path(e.figure).exists():
        return ""
    data = base64.b64encode(Path(e.figure).read_bytes()).decode("ascii")
    alt = f"{e.experiment.paper} {e.experiment.label}"
    if e.experiment.figure.kind == "table":
        what = "mcastlab's means, the paper's value in parentheses"
    else:
        what = "mcastlab (lines, 95% intervals) and the paper's stated values (open black markers)"
    return (f'<figure><img class="figure" alt="{_e(alt)}" src="data:image/svg+xml;base64,{data}">'
            f'<figcaption class="muted">{_e(alt)}: {_e(what)}</figcaption></figure>')


def _claims_rows(claims: List[Any], with_experiment: bool) -> str:
    head = ("<tr>" + ("<th>experiment</th>" if with_experiment else "") +
            "<th>claim</th><th>source</th><th>verdict</th><th>mcastlab</th><th>paper</th><th>evidence</th></tr>")
    body = []
    for c in claims:
        ev = f'<span class="cal">{_e(c.evidence)}</span>' if c.evidence else ""
        body.append("<tr>" + (f"<td>{_e(c.experiment)}</td>" if with_experiment else "") +
                    f"<td>{_e(c.claim.text)}</td><td>{_e(c.claim.source)}</td><td>{_badge(c.verdict.status)}</td>"
                    f"<td>{_e(c.verdict.measured)}</td><td>{_e(c.verdict.paper)}</td><td>{ev}</td></tr>")
    return head + "".join(body)


def _params_html(e: "ExperimentResult") -> str:
    if not e.experiment.stated:
        return ""
    rows = []
    for name, s in e.experiment.stated.items():
        cal = ' <span class="cal">calibrated</span>' if s.calibrated else ""
        rows.append(f"<tr><td>{_e(name)}</td><td>{_e(s.value)}</td><td>{_e(s.source)}{cal}</td></tr>")
    return '<table class="params"><tr><th>parameter</th><th>value</th><th>source</th></tr>' + "".join(rows) + "</table>"


def _table_html(e: "ExperimentResult") -> str:
    t = e.table
    if t is None or len(t) == 0:
        return ""
    if e.experiment.figure.kind == "table":
        cols, rows, cells = table_cells(e.experiment, t)
        spec = e.experiment.figure
        head = f"<tr><th>{_e(spec.series or '')} \\ {_e(spec.xlabel or spec.x)}</th>" + "".join(f"<th>{_e(c)}</th>" for c in cols) + "</tr>"
        body = "".join("<tr><th>" + _e(r) + "</th>" + "".join(f'<td class="num">{_e(c)}</td>' for c in line) + "</tr>"
                       for r, line in zip(rows, cells))
        paper_table = f'<table class="paper-table">{head}{body}</table>'
    else:
        paper_table = ""
    shown = t.head(TABLE_ROWS)
    head = "<tr>" + "".join(f"<th>{_e(c)}</th>" for c in shown.columns) + "</tr>"
    body = "".join("<tr>" + "".join(f'<td class="num">{_e(_short(v))}</td>' for v in r) + "</tr>"
                   for r in shown.itertuples(index=False))
    more = f'<p class="muted">first {TABLE_ROWS} of {len(t)} rows; all in rows/</p>' if len(t) > TABLE_ROWS else ""
    return (paper_table + f'<details><summary>aggregated table ({len(t)} grid points)</summary>'
            f'<table class="agg">{head}{body}</table>{more}</details>')


def _short(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _experiment_html(e: "ExperimentResult") -> str:
    x = e.experiment
    status = {"done": f"{e.points:,} points", "pending": f"pending: {x.pending}",
              "incomplete": f"incomplete: {e.finished:,} of {e.points:,} points finished"}[e.status]
    return (f'<section class="experiment" id="{_e(x.key)}"><h2>{_e(x.paper)} {_e(x.label)}: {_e(x.title)}</h2>'
            f'<p><b>{_e(x.key)}</b> ({_e(x.section)}) varies {_e(x.varies)}; metric: {_e(x.metric)}. '
            f'<span class="muted">{_e(status)}</span></p>'
            + _figure_html(e) + "<h3>Claims</h3>" + f'<table class="claims">{_claims_rows(e.claims, False)}</table>'
            + ("<h3>Parameters</h3>" + _params_html(e) if x.stated else "") + _table_html(e) + "</section>")


def html_report(rep: "Reproduction") -> str:
    """The report as one HTML document (see the module doc)."""
    counts = _counts(rep)
    facts = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in _run_facts(rep))
    all_claims = [c for e in rep.experiments for c in e.claims]
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    toc = "".join(f'<li><a href="#{_e(e.experiment.key)}">{_e(e.experiment.key)}</a>: {_e(e.experiment.title)}</li>'
                  for e in rep.experiments)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>mcastlab reproduce: report</title>"
            f"<style>{_CSS}</style></head><body>"
            "<h1>mcastlab reproduce</h1>"
            f"<p>{len(rep.experiments)} experiments, {len(all_claims)} claims: {_e(tally or 'none')}.</p>"
            f'<table class="meta">{facts}</table>'
            "<h2>Claims</h2>"
            "<p class=\"muted\">holds / differs: decided from mcastlab's means (numbers beside the paper's); "
            "not applicable: the data cannot decide; pending: not run (a mechanism not built, or the run was "
            "interrupted). A claim marked calibrated rests on a parameter fitted to one of the paper's own results: "
            "its agreement is no evidence.</p>"
            f'<table id="claims" class="claims">{_claims_rows(all_claims, True)}</table>'
            f"<h2>Experiments</h2><ul>{toc}</ul>"
            + "".join(_experiment_html(e) for e in rep.experiments)
            + "</body></html>\n")


def _md(x: Any) -> str:
    return str("" if x is None else x).replace("|", "\\|").replace("\n", " ")


def markdown_summary(rep: "Reproduction") -> str:
    """The Markdown summary: the run, then one claims table for every experiment."""
    lines = ["# mcastlab reproduce: summary", ""]
    for k, v in _run_facts(rep):
        lines.append(f"- **{k}**: {v}")
    counts = _counts(rep)
    lines += ["", "Claims: " + (", ".join(f"{n} {s}" for s, n in counts.items() if n) or "none"), ""]
    lines += ["| experiment | claim | source | verdict | mcastlab | paper | evidence |", "|---|---|---|---|---|---|---|"]
    for e in rep.experiments:
        for c in e.claims:
            lines.append("| " + " | ".join(_md(x) for x in (c.experiment, c.claim.text, c.claim.source, c.verdict.status,
                                                          c.verdict.measured, c.verdict.paper, c.evidence)) + " |")
    lines += ["", "## Experiments", ""]
    for e in rep.experiments:
        x = e.experiment
        fig = f" — figure `figures/{Path(e.figure).name}`" if e.figure is not None else ""
        state = {"done": f"{e.points} points", "pending": f"pending: {x.pending}",
                 "incomplete": f"incomplete: {e.finished} of {e.points} points"}[e.status]
        lines.append(f"- **{x.key}** {x.label} ({x.section}): {x.title}; varies {x.varies}; {state}{fig}")
    return "\n".join(lines) + "\n"


def write_report(rep: "Reproduction", outdir: Path) -> Dict[str, Path]:
    """Writes ``report.html`` and ``summary.md`` into ``outdir``; returns their paths (and the
    figures' and rows' directories)."""
    html_path = outdir / "report.html"
    md_path = outdir / "summary.md"
    html_path.write_text(html_report(rep), encoding="utf-8")
    md_path.write_text(markdown_summary(rep), encoding="utf-8")
    return {"report": html_path, "summary": md_path, "figures": outdir / "figures", "rows": outdir / "rows"}
