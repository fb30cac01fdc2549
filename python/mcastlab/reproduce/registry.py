"""The one list of experiments: every paper module's ``EXPERIMENTS``, in paper order."""

from __future__ import annotations

import fnmatch
from typing import Dict, List

from .experiment import Experiment
from .papers import bhoedjang98, coll03, oral, sivaram98, zhou07

PAPERS = ("sivaram98", "oral", "zhou07", "bhoedjang98", "coll03")

EXPERIMENTS: List[Experiment] = [
    *sivaram98.EXPERIMENTS,
    *oral.EXPERIMENTS,
    *zhou07.EXPERIMENTS,
    *bhoedjang98.EXPERIMENTS,
    *coll03.EXPERIMENTS,
]

BY_KEY: Dict[str, Experiment] = {e.key: e for e in EXPERIMENTS}


def select(names: List[str]) -> List[Experiment]:
    """The experiments ``names`` ask for: ``all``, a paper (``zhou07``), a key (``sivaram98:fig21``)
    or a shell pattern (``zhou07:fig1*``), in registry order without repeats. Raises KeyError naming
    the first name that matches nothing."""
    chosen: Dict[str, Experiment] = {}
    for name in names:
        if name == "all":
            hits = EXPERIMENTS
        elif name in PAPERS:
            hits = [e for e in EXPERIMENTS if e.paper == name]
        else:
            hits = [e for e in EXPERIMENTS if fnmatch.fnmatchcase(e.key, name)]
        if not hits:
            raise KeyError(name)
        for e in hits:
            chosen[e.key] = e
    return [e for e in EXPERIMENTS if e.key in chosen]
