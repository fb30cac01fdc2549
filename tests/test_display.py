"""Rich display in Jupyter: fabrics, plans and results show an HTML summary, with the drawing for
small fabrics and plans, bounded in size for large ones."""

from html.parser import HTMLParser

import mcastlab
from mcastlab.display import MAX_DRAWN_NODES, MAX_ROWS, table

VOID = {"br", "hr", "img", "meta", "link", "input", "col"}


class _Balanced(HTMLParser):
    """Parses HTML, checking every element is closed in order; collects text and cells."""

    def __init__(self) -> None:
        super().__init__()
        self.stack, self.text, self.rows = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.stack.append(tag)
        self.rows += tag == "tr"

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(text: str) -> _Balanced:
    p = _Balanced()
    p.feed(text)
    p.close()
    assert not p.stack, p.stack
    return p


def test_small_fabric_shows_its_facts_and_its_drawing():
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    h = f._repr_html_()
    text = " ".join(parse(h).text)
    for fact in (f.name, "mport_ntree", "switches", "20", "endpoints", "16", "links", "48"):
        assert fact in text, fact
    assert "<svg" in h and h.index("<svg") > h.index("</table>")
    assert "<?xml" not in h, "the SVG is embedded without its XML prolog"


def test_large_fabric_shows_a_bounded_summary_without_drawing():
    f = mcastlab.fabric("torus:256x256")
    h = f._repr_html_()
    assert "<svg" not in h and len(h) < 4000
    text = " ".join(parse(h).text)
    assert "65536" in text and "256, 256" in text and f"above {MAX_DRAWN_NODES}" in text


def test_plan_shows_scheme_group_and_carriers():
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    p = f.plan("ib_cyclic", "P(000)", ["P(200)", "P(201)", "P(210)", "P(211)"])
    h = p._repr_html_()
    text = " ".join(parse(h).text)
    for fact in (p.scheme, "P(000)", "destinations", "4", "1 mft", "fpfs"):
        assert fact in text, fact
    assert "<svg" in h
    big = mcastlab.fabric("torus:16x16").plan("binomial", 0, range(1, 256))
    hb = big._repr_html_()
    assert "<svg" not in hb and len(hb) < 4000 and "255 unicast" in " ".join(parse(hb).text)


def test_results_are_dicts_that_show_a_bounded_table():
    f = mcastlab.fabric("torus:4x4")
    p = f.plan("binomial", 0, range(1, 16))
    rep = p.check()
    assert isinstance(rep, dict) and dict(rep) == rep and rep["ok"]
    parsed = parse(rep._repr_html_())
    text = " ".join(parsed.text)
    assert "exactly_once" in text and "deadlock.status" in text and "free" in text
    run = p.simulate(size="128B", params={"switch.vcs": 2})
    assert len(run["per_destination"]) == 15
    parsed = parse(run._repr_html_())
    assert parsed.rows <= MAX_ROWS and "completion_ps" in " ".join(parsed.text)
    assert "routing check" in f.check()._repr_html_()


def test_values_are_escaped_and_cut():
    h = table("<t>", [("name", "<script>alert(1)</script>"), ("long", "x" * 500)])
    assert "<script>" not in h and "&lt;script&gt;" in h
    assert len(h) < 600
    parse(h)
