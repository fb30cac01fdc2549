"""Every example in the README runs as written, and says what it prints.

The commands are read from the README itself (not copied here), so a new example is run as soon as
it is written. Where the README states what a command shows ("43.0 cycles at 0.1", "8 steps", "the
cycle is shown"), `CLAIMS` checks that text against the output. docs/: the runnable commands of
docs/performance.md that take seconds run too; its benchmark reruns (minutes each, by design) are
checked for the example binaries they name; docs/formats.md's plan example loads.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO

README = REPO / "README.md"
PERFORMANCE = REPO / "docs" / "performance.md"
FINDINGS = REPO / "docs" / "findings.md"
FORMATS = REPO / "docs" / "formats.md"
REPRODUCTION = REPO / "docs" / "reproduction.md"

# A trailing comment in a shell example: whitespace, `#`, a space (never inside the commands here).
COMMENT = re.compile(r"\s+#\s.*$")


def fenced_blocks(path: Path, lang: str) -> List[str]:
    """The bodies of the ```lang blocks of a Markdown file, in order."""
    return re.findall(rf"^```{lang}\n(.*?)^```", path.read_text(), flags=re.S | re.M)


def commands(block: str) -> List[str]:
    """Shell commands of an example block: comment-only lines (a comment carried to the next line)
    dropped, trailing comments cut, backslash continuations joined."""
    joined = block.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append(COMMENT.sub("", line).strip())
    return out


def readme_section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def readme_examples() -> List[str]:
    blocks = re.findall(r"^```sh\n(.*?)^```", readme_section("Examples"), flags=re.S | re.M)
    assert len(blocks) == 1, "the README's Examples section has one shell block"
    return commands(blocks[0])


# What the README says a command shows: a piece of the command -> (exit code, texts in its output).
# Checking a fabric or plan exits 1 when the check fails, which is what these examples demonstrate.
CLAIMS: Dict[str, Tuple[int, List[str]]] = {
    # "BookSim's iq router and protocol: 43.0 cycles at 0.1"
    "--preset booksim_iq": (0, ["0.1000           0.043     0.000       43.0"]),
    # "65,535 destinations ... packet trains"
    "m=64,n=3 --scheme ib_cyclic": (0, ["65535 destinations", "(packet trains)"]),
    # "the deadlock cycle without them"
    "dor:datelines=false": (1, ["deadlock      POSSIBLE: cycle of 4 channel dependencies"]),
    "torus:4x4 -r minhop": (1, ["deadlock      POSSIBLE: cycle of 4 channel dependencies"]),
    # "zhou07's path Q": the ports of zhou07 §3's worked example, P(000) to P(200)
    "'P(000)' 'P(200)'": (
        0,
        ["P(000) -> SW<00,2>[1>3] -> SW<00,1>[1>3] -> SW<00,0>[1>3] -> SW<20,1>[3>1] -> SW<20,2>[3>1] -> P(200)"],
    ),
    # "sivaram98 Fig. 8: 8 steps, checked"
    "--dests 1-7 -m 3": (0, ["steps           8 ", "exactly once    yes", "deadlock        free"]),
    # "oral §4.5: concurrency at most k = 4, tree creation" (§4.4)
    "--scheme mdtorus --src 0 --dests 1-15": (0, ["concurrency     max 4, ", "tree creation   128 operations"]),
    # "LFC credits: chains deadlock, the NI cycle is named" (exit 1: the run did not drain)
    "lfc.recovery=off": (1, ["outcome         deadlock", "waits for a credit of NI"]),
    # "... and complete with §4's recovery (counted)"
    "lfc.recovery=eager": (0, ["outcome         drained", "recovery        "]),
    "bhoedjang98_fmmc": (0, ["FM/MC credits   ", "FM/MC token     "]),
    # "oral's root CPU load, startup and concurrency"
    "--scheme utorus --discipline host": (0, ["oral metrics    root CPU ", "transfers in flight max "]),
    # "worms leave DOR: the cycle is shown"
    "plan torus:4x4 --scheme storus:variant=worm": (
        1, ["conforms        NO: transmission 0", "deadlock        cycle", "cycle           ", " channels: r("]
    ),
    # "refused without --allow-unchecked; the verdict is printed"
    "--allow-unchecked": (0, ["checks          exactly-once yes, conforms to dor:datelines=true NO, deadlock-free NO"]),
}


def claim_for(command: str) -> Tuple[int, List[str]]:
    hits = [key for key in CLAIMS if key in command]
    assert len(hits) <= 1, f"{command!r} matches several claims: {hits}"
    return CLAIMS[hits[0]] if hits else (0, [])


def test_every_claim_names_exactly_one_readme_example():
    # A claim whose command left the README (or now matches two) would check nothing.
    for key in CLAIMS:
        assert sum(key in c for c in readme_examples()) == 1, key


def test_quick_start_has_two_commands_and_ci_runs_the_second():
    quick = readme_section("Quick start")
    blocks = re.findall(r"^```sh\n(.*?)^```", quick, flags=re.S | re.M)
    assert [commands(b) for b in blocks] == [["make run", "make test"]]
    make = (REPO / "Makefile").read_text()
    assert re.search(r"^run:\n(\t.*\n)*\tmcastlab compare\n", make, flags=re.M), "make run runs the main job"
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, flags=re.M), ci


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, topologies) -> Path:
    """One directory for all the examples, in README order (`fabric convert f.json` reads what
    `fabric generate` wrote). `my-cluster.topo` is a real ibnetdiscover dump from shared/."""
    d = tmp_path_factory.mktemp("readme")
    (d / "my-cluster.topo").symlink_to(topologies / "ltaulell-HPC_toolset" / "X5.topofile")
    return d


def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """`command` as a user types it: bash, with this interpreter's `mcastlab` and `python3` first
    on PATH."""
    bindir = Path(sys.executable).parent
    if shutil.which("mcastlab", path=str(bindir)) is None:
        pytest.fail(f"no mcastlab script beside {sys.executable}: install with `pip install -e .`")
    shim = cwd / ".bin"
    shim.mkdir(exist_ok=True)
    if not (shim / "python3").exists():
        # A script, not a symlink: a virtual environment's interpreter finds its environment by
        # the path it is started as, so a symlink elsewhere would start it without mcastlab.
        (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        (shim / "python3").chmod(0o755)
    env = dict(os.environ, PATH=f"{shim}{os.pathsep}{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.parametrize("command", readme_examples())
def test_readme_example_runs_as_written(command, workdir):
    code, texts = claim_for(command)
    r = run_shell(command, workdir)
    shown = r.stdout + r.stderr
    assert r.returncode == code, f"{command}\nexit {r.returncode}\n{shown}"
    assert "Traceback" not in shown, shown
    for text in texts:
        assert text in shown, f"{command}: README says the output shows {text!r}\n{shown}"


def test_readme_python_example_runs_as_written(tmp_path, monkeypatch):
    # The InfiniBand section's Python runs after its commands, in its own test below; every
    # other Python block of the README is this one.
    ib = re.findall(r"^```python\n(.*?)^```", readme_section("InfiniBand multicast groups"), flags=re.S | re.M)
    blocks = [b for b in fenced_blocks(README, "python") if b not in ib]
    assert len(ib) == 1 and len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], str(README), "exec"), {})
    # What it says it writes.
    for name in ["qs.json", "tree.svg"]:
        assert (tmp_path / name).stat().st_size > 0, name


# docs/performance.md: commands that take seconds run; `qs-table` reruns a paper's table (minutes
# with --preset fig7) and is a benchmark: the README's `mcastlab qs-table` already runs above; the
# 64 KB all-to-alls under LFC take half a minute each (the README runs the same at 8 KiB);
# bench_speed_series builds the release examples and runs 33 rounds (tests/test_bench_speed_series.py
# runs it on the dev build).
PERFORMANCE_SLOW = ("qs-table", "bytes=64KiB", "bench_reproduce", "bench_speed_series")


def performance_commands() -> List[str]:
    return [c for doc in (PERFORMANCE, FINDINGS) for b in fenced_blocks(doc, "sh") for c in commands(b)]


@pytest.mark.parametrize(
    "command",
    [
        c
        for c in performance_commands()
        if (c.startswith("mcastlab ") or c.startswith("python3 ")) and not any(s in c for s in PERFORMANCE_SLOW)
    ],
)
def test_performance_doc_command_runs(command, tmp_path):
    r = run_shell(command, tmp_path)
    assert r.returncode == 0, f"{command}\n{r.stdout}{r.stderr}"


def test_performance_doc_names_only_examples_that_exist():
    named = {m for c in performance_commands() for m in re.findall(r"--example (\w+)", c)}
    named |= {m for c in performance_commands() for m in re.findall(r"examples/(\w+)", c)}
    assert len(named) >= 8, named  # the doc's benchmarks: route, plan, mft, bitstring, qs, sim, ...
    examples = REPO / "crates" / "mcastlab-core" / "examples"
    missing = sorted(n for n in named if not (examples / f"{n}.rs").is_file())
    assert not missing, f"docs/performance.md names examples that do not exist: {missing}"


def test_formats_doc_plan_example_loads(tmp_path):
    import mcastlab

    plans = [b for b in fenced_blocks(FORMATS, "json") if '"mcastlab-plan"' in b]
    assert len(plans) == 1
    (tmp_path / "plan.json").write_text(plans[0])
    spec = json.loads(plans[0])
    p = mcastlab.fabric(spec["fabric"]).load_plan(tmp_path / "plan.json")
    # The example shows the format, not a complete multicast: destination 1 is never delivered.
    assert p.check()["exactly_once"] is False


# docs/reproduction.md: its shell examples run in order in one directory (the second reuses the
# first's result store), and its Python example.
def test_reproduction_doc_examples_run(tmp_path, monkeypatch):
    cmds = [c for b in fenced_blocks(REPRODUCTION, "sh") for c in commands(b)]
    assert any("--dask local" in c for c in cmds)
    for c in cmds:
        r = run_shell(c, tmp_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, f"{c}\n{r.stdout}{r.stderr}"
        if "--dask local" in c:
            assert "0 points computed" in r.stdout, r.stdout  # everything came from the store
    assert (tmp_path / "repro-tiny" / "report.html").stat().st_size > 0
    (block,) = fenced_blocks(REPRODUCTION, "python")[:1]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, str(REPRODUCTION), "exec"), {})
    assert (tmp_path / "repro-py" / "report.html").exists()


# docs/reliability.md: the fuzzing reruns take a minute and more (a benchmark, not a test; a short
# run of the same harness is part of `cargo test`), so what is checked is that they name what
# exists: `make fuzz` is the documented command, and the tests it selects are in the harness.
RELIABILITY = REPO / "docs" / "reliability.md"


def test_reliability_doc_rerun_commands_name_what_exists():
    cmds = [c for b in fenced_blocks(RELIABILITY, "sh") for c in commands(b)]
    assert cmds[0] == "make fuzz"
    makefile = (REPO / "Makefile").read_text()
    assert f"fuzz:\n\t{cmds[1]}\n" in makefile, "`make fuzz` runs the command the doc shows"
    harness = (REPO / "crates" / "mcastlab-core" / "tests" / "fuzz_parsers.rs").read_text()
    selected = {m for c in cmds[1:] for m in re.findall(r"--ignored (\w+)", c)}
    assert selected == {"long_fuzz", "replay"}
    assert all(f"fn {name}()" in harness for name in selected)


# The README's long reproduction runs (minutes: `mcastlab reproduce all --quick`) are not run here;
# every experiment runs at --tiny scale in tests/test_reproduce*.py. What is checked is that each
# command as written names experiments that exist at that scale: the same line with --list.
def test_readme_reproduce_commands_name_what_exists(tmp_path):
    blocks = re.findall(r"^```text\n(.*?)^```", readme_section("Examples"), flags=re.S | re.M)
    cmds = [c for b in blocks for c in commands(b) if c.startswith("mcastlab reproduce")]
    assert any(" all --quick" in c for c in cmds), cmds
    for c in cmds:
        listing = re.sub(r"\s--(out|dask)\s+\S+", "", c) + " --list"
        r = run_shell(listing, tmp_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, f"{listing}\n{r.stdout}{r.stderr}"
        assert "experiments at scale quick" in r.stdout, r.stdout
    assert [p.name for p in tmp_path.iterdir()] == [".bin"], "--list wrote files"


def test_readme_infiniband_section_runs_as_written(workdir):
    """The InfiniBand section: its commands in order (the groups file first), then its Python."""
    section = readme_section("InfiniBand multicast groups")
    sh = re.findall(r"^```sh\n(.*?)^```", section, flags=re.S | re.M)
    py = re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
    assert len(sh) == 1 and len(py) == 1
    for command in commands(sh[0]):
        r = run_shell(command, workdir)
        assert r.returncode == 0, f"{command}\n{r.stdout}\n{r.stderr}"
    assert (workdir / "opensm.mcfdbs").read_text().startswith("\nSwitch 0x")
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        exec(compile(py[0], str(README), "exec"), {})
    finally:
        os.chdir(cwd)
