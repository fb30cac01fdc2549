"""`mcastlab fabric draw` writes real pictures for every layout family."""

import pytest

pytest.importorskip("matplotlib")

import mcastlab
from mcastlab.cli import main
from mcastlab.draw import layout

from conftest import assert_svg


@pytest.mark.parametrize(
    "spec",
    ["irregular", "torus:4x4", "torus:4x4,unidirectional", "mesh:3x5", "hypercube:dim=3,endpoints_per_switch=2", "mport_ntree:m=4,n=3", "kary_ntree:k=2,n=3"],
)
def test_draw_svg_and_png(spec, tmp_path):
    f = mcastlab.fabric(spec)
    svg = tmp_path / "f.svg"
    f.draw(svg)
    assert_svg(svg)
    png = tmp_path / "f.png"
    assert main(["fabric", "draw", spec, "-o", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_drawing_onto_a_directory_is_refused_naming_it(tmp_path):
    # A directory named like a picture (d.svg) was a bare `[Errno 21] Is a directory` from
    # matplotlib, after the layout and the drawing.
    d = tmp_path / "d.svg"
    d.mkdir()
    f = mcastlab.fabric("mesh:2x2")
    with pytest.raises(IsADirectoryError, match="path .*d.svg: is a directory, not a file"):
        f.draw(d)
    with pytest.raises(IsADirectoryError, match="path .*d.svg: is a directory, not a file"):
        f.plan("binomial", 0, [1, 2]).draw(str(d))


def test_grid_layout_uses_coordinates():
    f = mcastlab.fabric("torus:4x4")
    pos = layout(f)
    # Router (c0, c1) sits at (3*c0, 3*c1).
    assert pos[("s", 6)] == (6.0, 3.0)
    assert len(pos) == f.num_switches + f.num_endpoints


def test_fat_tree_layout_is_layered():
    f = mcastlab.fabric("mport_ntree:m=4,n=3")
    pos = layout(f)
    # zhou07 level 0 (roots) on top, leaves lower, endpoints at the bottom.
    ys = {s["level"]: pos[("s", i)][1] for i, s in enumerate(f.switches)}
    assert ys[0] > ys[1] > ys[2] > pos[("e", 0)][1]
