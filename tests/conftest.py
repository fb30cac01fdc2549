import os
from pathlib import Path
from typing import Any, Dict

import pytest
from hypothesis import settings

# `make test` (and so CI) selects the derandomized profile: the same examples on every run, so a
# red CI is reproducible. Plain `pytest` keeps exploring new examples.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parent.parent
# CI places shared/ beside the checkout.
SHARED = Path(os.environ.get("MCASTLAB_SHARED", REPO.parent / "shared"))
TOPOLOGIES = SHARED / "reference" / "topologies"


@pytest.fixture(scope="session")
def topologies() -> Path:
    if not TOPOLOGIES.is_dir():
        pytest.fail(f"reference topologies not found at {TOPOLOGIES} (shared/ must sit beside the checkout)")
    return TOPOLOGIES


# Helpers several test files need. Plain functions rather than fixtures: they take no setup, and
# `from conftest import ...` shows at the call site where they come from.


def assert_one_error_line(err: str, text: str) -> None:
    """The CLI's contract for a user mistake: exactly one non-blank line on stderr,
    `mcastlab: error: ...`, naming `text`, and no traceback."""
    assert "Traceback" not in err, err
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("mcastlab: error:") and text in lines[0], err


def assert_svg(path: Path) -> str:
    """A picture written as SVG (matplotlib's XML prolog, an <svg> element); returns its text."""
    text = Path(path).read_text()
    assert text.startswith("<?xml") and "<svg" in text, text[:200]
    return text


def read_rows(csv: Path, parquet: Path, column: str) -> Any:
    """The rows a command wrote as CSV (a DataFrame), after checking that the Parquet file holds
    the same `column`."""
    import pandas as pd

    rows = pd.read_csv(csv)
    assert pd.read_parquet(parquet)[column].tolist() == rows[column].tolist()
    return rows


def assert_routing_verified(f: Any) -> Dict[str, Any]:
    """The fabric's default routing passes the full check: deadlock-free and reachability
    verified (not merely skipped); returns the check."""
    c = f.check()
    assert c["ok"], c
    assert c["deadlock"]["status"] == "free" and c["reachability"]["status"] == "verified", c
    return c
