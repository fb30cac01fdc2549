import os
from pathlib import Path

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


@pytest.fixture
def topologies() -> Path:
    if not TOPOLOGIES.is_dir():
        pytest.fail(f"reference topologies not found at {TOPOLOGIES} (shared/ must sit beside the checkout)")
    return TOPOLOGIES
