"""The suites ``datamotion bench`` runs: each a module with one ``run(comm, quick,
validate, progress)`` that returns result entries (``{"kernel", "params", "rows"}``)
on rank 0 and an empty list elsewhere."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

from ..._mpi import MPI  # MPI at the thread level _mpi settles

from ..results import document
from . import cm5, collectives, cvl, gauss, local, paragon, patterns, programs, pshift, pt2pt, redist

__all__ = ["SUITES", "run_suites"]

SUITES: Dict[str, Callable] = {
    "pt2pt": pt2pt.suite_pt2pt,
    "collectives": collectives.suite_collectives,
    "local": local.suite_local,
    "patterns": patterns.suite_patterns,
    "cm5": cm5.run,
    "paragon": paragon.run,
    "pshift": pshift.run,
    "redist": redist.run,
    "cvl": cvl.run,
    "gauss": gauss.run,
    "programs": programs.run,
}
"""Suite name -> its function, in the order ``all`` runs them (constants.SUITE_NAMES)."""


def run_suites(names: Sequence[str], comm: Optional[MPI.Comm] = None, quick: bool = False,
               validate: bool = False, progress=None) -> Optional[dict]:
    """Collective. Runs the named suites ("all" for every suite) and returns the
    results document on rank 0 (None elsewhere)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if comm.size < 2:
        raise ValueError("the benchmarks need at least 2 ranks")
    names = list(SUITES) if "all" in names else list(names)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        raise ValueError(f"unknown suite(s) {unknown}; choose from {sorted(SUITES)} or 'all'")
    results = []
    for name in names:
        results += SUITES[name](comm, quick=quick, validate=validate, progress=progress)
    doc = document(comm, results, quick=quick, validate=validate)
    return doc if comm.rank == 0 else None
