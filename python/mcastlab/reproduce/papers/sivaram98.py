"""sivaram98's figures and tables as experiments (see ../experiment.py). Being written."""

from __future__ import annotations

from typing import List

from ..experiment import Experiment

EXPERIMENTS: List[Experiment] = []
