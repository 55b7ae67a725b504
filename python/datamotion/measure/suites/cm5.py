"""The cm5 seed's experiments (to be filled in): see measure/report/cm5.py for their section."""

from __future__ import annotations

from typing import List


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm. The experiments' result entries on rank 0, [] elsewhere."""
    return []
