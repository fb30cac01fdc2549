"""A fabric that travels to where the runner runs a job: in this process it is the live
:class:`~.api.Fabric` (with its cached routings); pickled to a worker process or a Dask worker it
is the fabric's JSON text, parsed once per worker process and reused by every job there.

Its ``digest`` (SHA-256 of the JSON text) is what a result-store key says about the fabric: a
fabric loaded from a file that changed gets new keys, one generated from the same spec the same.
"""

from __future__ import annotations

import hashlib
from typing import Any, Dict, Optional

from .api import Fabric


class FabricRef:
    """See the module doc. ``get()`` is the Fabric wherever the ref is."""

    # Fabrics parsed in this process, by digest: a worker runs many jobs on one fabric, and its
    # routings (built on first use, cached by the Fabric) are the expensive part. Per process by
    # design (a class attribute, not shared state between processes).
    _parsed: Dict[str, Fabric] = {}

    def __init__(self, fabric: Fabric) -> None:
        self._fabric: Optional[Fabric] = fabric
        self._text: Optional[str] = None
        self._digest: Optional[str] = None

    @property
    def text(self) -> str:
        if self._text is None:
            assert self._fabric is not None
            self._text = self._fabric.to_json()
        return self._text

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = hashlib.sha256(self.text.encode()).hexdigest()
        return self._digest

    def get(self) -> Fabric:
        if self._fabric is None:
            cached = FabricRef._parsed.get(self.digest)
            if cached is None:
                cached = Fabric.parse(self.text, "fabric")
                FabricRef._parsed[self.digest] = cached
            self._fabric = cached
        return self._fabric

    def __getstate__(self) -> Dict[str, Any]:
        return {"text": self.text, "digest": self.digest}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self._fabric = None
        self._text = state["text"]
        self._digest = state["digest"]
