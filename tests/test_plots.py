"""The comparison plots: every scheme distinguishable, coinciding curves named, the title whole,
and every SVG writer byte-reproducible."""

import pandas as pd
import pytest

import mcastlab
from mcastlab.cli.plots import coinciding, line_styles, plot, wrap_title
from mcastlab.cli.sweep import plot_sweep


def test_fifteen_schemes_get_fifteen_different_looks():
    labels = [f"scheme {i}" for i in range(15)]
    styles = line_styles(labels)
    looks = {(s["color"], s["marker"], s["linestyle"]) for s in styles.values()}
    assert len(looks) == 15
    # No colour/marker pair repeats in a long list either (11 markers against 10 colours).
    many = line_styles([str(i) for i in range(110)]).values()
    assert len({(s["color"], s["marker"]) for s in many}) == 110


def test_coinciding_curves_point_at_the_first_one():
    curves = {
        "bitstring": {128.0: 21.68, 4096.0: 176.68},
        "binomial": {128.0: 47.9, 4096.0: 667.9},
        "ib_opensm": {128.0: 21.66, 4096.0: 176.66},
        "copy": {128.0: 21.68, 4096.0: 176.68},
        "near_once": {128.0: 21.68, 4096.0: 300.0},
    }
    assert coinciding(curves) == {"ib_opensm": "bitstring", "copy": "bitstring"}


def test_wrapped_title_keeps_every_word_within_the_width():
    title = ("irregular:switches=8,ports=8,endpoints=32,connectivity=80,seed=1: p0.1 -> 12 destinations, "
             "routing updown:root=s7, preset sivaram98, seed 1")
    lines = wrap_title(title, 60).splitlines()
    assert lines[0] == "irregular:switches=8,ports=8,endpoints=32,connectivity=80,seed=1:"
    assert all(len(line) <= 66 for line in lines) and len(lines) >= 3
    assert " ".join(lines).split() == title.split()


@pytest.fixture(scope="module")
def rows():
    return mcastlab.compare(sizes=["128B", "1KiB"], schemes=["binomial", "bitstring", "ib_opensm", "multidrop"])


def test_latency_plot_names_the_curve_a_hidden_one_lies_on(rows, tmp_path):
    (path,) = plot(rows, tmp_path, "t")
    text = path.read_text()
    # matplotlib keeps every text as a comment next to its glyphs.
    assert "ib_opensm (≈ bitstring)" in text or "ib_opensm (= bitstring)" in text
    assert "binomial (NI fpfs)" in text


def test_every_svg_writer_gives_the_same_bytes_twice(rows, tmp_path):
    def twice(write):
        a, b = tmp_path / "a", tmp_path / "b"
        a.mkdir(exist_ok=True), b.mkdir(exist_ok=True)
        write(a), write(b)
        for pa in sorted(a.iterdir()):
            assert pa.read_bytes() == (b / pa.name).read_bytes(), pa.name
            assert b"<dc:date>" not in pa.read_bytes()
        for p in list(a.iterdir()) + list(b.iterdir()):
            p.unlink()

    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    p = f.plan("ib_cyclic", "P(000)", ["P(200)", "P(201)", "P(210)", "P(211)"])
    twice(lambda d: f.draw(d / "fabric.svg"))
    twice(lambda d: p.draw(d / "plan.svg"))
    twice(lambda d: plot(rows, d, "compare"))
    sweep = pd.DataFrame({"offered_load": [0.1, 0.2], "latency_mean_us": [1.0, 3.0],
                          "latency_ci95_us": [0.1, 0.2], "saturated": [False, True], "complete": [True, True]})
    twice(lambda d: plot_sweep(sweep, str(d / "sweep.svg"), "sweep"))


def test_reproducible_saving_leaves_the_global_settings_alone(tmp_path):
    import matplotlib

    before = matplotlib.rcParams["svg.hashsalt"]
    mcastlab.fabric("torus:2x2").draw(tmp_path / "f.svg")
    assert matplotlib.rcParams["svg.hashsalt"] == before
