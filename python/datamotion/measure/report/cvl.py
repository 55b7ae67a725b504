"""Vector operations: the report's section for the cvl experiments."""

from __future__ import annotations

from typing import List, Sequence

from .format import Entry
from .plots import Plots

TITLE = "Vector operations (the CVL on MPI paper)"
SEED = ("Hardwick, Porting a vector library: a comparison of MPI, Paris, CMMD and PVM (1994), measured on "
        "a CM-5 and other machines")
KERNELS: frozenset = frozenset()
"""The kernels this section draws."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return []
