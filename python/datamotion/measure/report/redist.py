"""Block-cyclic redistribution: the report's section for the redist experiments."""

from __future__ import annotations

from typing import List, Sequence

from .format import Entry
from .plots import Plots

TITLE = "Block-cyclic redistribution (the Walker-Otto paper)"
SEED = ("Walker & Otto, Redistribution of block-cyclic data distributions using MPI (1996), measured on "
        "an IBM SP-1 (Argonne's SP, MPICH 1.0.7 over Ethernet)")
KERNELS: frozenset = frozenset()
"""The kernels this section draws."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return []
