import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# CI places shared/ beside the checkout.
SHARED = Path(os.environ.get("MCASTLAB_SHARED", REPO.parent / "shared"))
TOPOLOGIES = SHARED / "reference" / "topologies"


@pytest.fixture
def topologies() -> Path:
    if not TOPOLOGIES.is_dir():
        pytest.fail(f"reference topologies not found at {TOPOLOGIES} (shared/ must sit beside the checkout)")
    return TOPOLOGIES
