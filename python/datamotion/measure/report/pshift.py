"""Many shifts in one step: the report's section for the pshift experiments."""

from __future__ import annotations

from typing import List, Sequence

from .format import Entry
from .plots import Plots

TITLE = "Many shifts in one step (the PSHIFT paper)"
SEED = ("George, Brickner & Johnsson, POLYSHIFT communications software for the Connection Machine "
        "system CM-200 (1994), measured on a Thinking Machines CM-200")
KERNELS: frozenset = frozenset()
"""The kernels this section draws."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return []
