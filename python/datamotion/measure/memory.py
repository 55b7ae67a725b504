"""The memory hierarchy in the model: the rate of a local kernel against its working set.

A loop that sweeps ``W`` bytes runs at the rate of the cache level that holds
``W`` bytes: a vector operation whose arrays fit in L1 runs several times
faster per element than the same loop streaming from main memory. A model that
prices a program's loops at the in-cache rate is wrong for every array that
no longer fits (the CM-5 paper's Gaussian elimination estimate was 27 % off at
512 x 512; ours was 25 % off there before this module).

Pure NumPy, no MPI:

* :func:`machine_caches` reads the data cache sizes the machine states
  (Linux ``/sys/devices/system/cpu/cpu0/cache``), for the report to set beside
  the fitted levels;
* :func:`fit_hierarchy` fits the time per sweep of a fixed amount of work
  against the working set piecewise (:func:`~datamotion.measure.fit.fit_piecewise_linear`
  over the working set): the breakpoints are where the rate changes, the
  cache levels as this kernel sees them;
* :func:`rate_at` gives the time per element at a working set from that fit,
  which a prediction uses for the working set of the program's own loop.
"""

from __future__ import annotations

import glob
import os
from typing import Dict, List, Optional, Sequence

import numpy as np

from .fit import PiecewiseFit, fit_piecewise_linear

__all__ = ["machine_caches", "fit_hierarchy", "rate_at", "working_sets", "levels_text", "HIERARCHY_BREAKPOINTS"]

HIERARCHY_BREAKPOINTS = 3
"""The most rate changes a working-set fit looks for: L1 to L2, L2 to L3, L3 to memory."""

_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def machine_caches(root: str = "/sys/devices/system/cpu/cpu0/cache") -> List[Dict[str, object]]:
    """The data and unified caches of CPU 0 as the operating system states them:
    ``[{"level": 1, "type": "Data", "bytes": 49152, "shared_by": 1}, ...]``,
    smallest level first; ``[]`` where the system does not say (not Linux)."""
    out = []
    for folder in sorted(glob.glob(os.path.join(root, "index*"))):
        try:
            with open(os.path.join(folder, "level")) as f:
                level = int(f.read())
            with open(os.path.join(folder, "type")) as f:
                kind = f.read().strip()
            with open(os.path.join(folder, "size")) as f:
                text = f.read().strip()
            shared = 1
            cpus = os.path.join(folder, "shared_cpu_list")
            if os.path.exists(cpus):
                with open(cpus) as f:
                    shared = _cpu_count(f.read().strip())
        except (OSError, ValueError):
            continue
        if kind == "Instruction":
            continue
        size = int(text[:-1]) * _UNITS[text[-1]] if text and text[-1] in _UNITS else int(text)
        out.append({"level": level, "type": kind, "bytes": size, "shared_by": shared})
    return sorted(out, key=lambda c: c["level"])


def _cpu_count(listing: str) -> int:
    """The number of CPUs in a list like ``0-3,8``."""
    count = 0
    for part in listing.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            count += int(hi) - int(lo) + 1
        elif part:
            count += 1
    return max(count, 1)


def working_sets(largest: int, smallest: int = 8 << 10, per_octave: int = 2) -> List[int]:
    """Working sets to measure, in bytes: ``per_octave`` steps per doubling from
    ``smallest`` to twice ``largest`` (so the largest one the program has lies
    inside the measured range, not at its edge)."""
    if largest < 1 or smallest < 1:
        raise ValueError(f"working sets must be positive, got {smallest} and {largest}")
    top = max(2 * largest, 2 * smallest)
    steps = int(np.ceil(np.log2(top / smallest) * per_octave))
    return sorted({int(round(smallest * 2 ** (k / per_octave))) for k in range(steps + 1)})


def fit_hierarchy(working_set_bytes: Sequence[float], times_us: Sequence[float], *,
                  max_breakpoints: int = HIERARCHY_BREAKPOINTS) -> PiecewiseFit:
    """Time of a fixed amount of work (one row, one element, ...) against the
    working set it was measured at, fitted piecewise: a segment per cache level
    or transition, the breakpoints where the rate changes.

    Unlike a message-size fit, the work is the same at every point, so within
    one level the segment is flat and its slope shows the transition to the
    next level. Weighted by ``1 / T**2`` like every fit here.

    Raises:
        ValueError: as :func:`~datamotion.measure.fit.fit_piecewise_linear`.
    """
    return fit_piecewise_linear(working_set_bytes, times_us, max_breakpoints=max_breakpoints, min_points=2,
                                hold_small_bandwidth=False)


def rate_at(fit: PiecewiseFit, working_set_bytes, *, work: float = 1.0, floor_us: float = 0.0):
    """Microseconds per unit of ``work`` at the given working set(s): the fitted
    time there, less ``floor_us`` (a fixed cost per sweep that is not per unit,
    e.g. a loop's start-up), divided by ``work`` (the units each measured sweep
    did). Working sets outside the measured range take the nearest segment's
    line (the first or last level), never below 0."""
    w = np.asarray(working_set_bytes, dtype=float)
    if fit.segments:
        w = np.clip(w, 0.0, None)
    t = np.maximum((np.asarray(fit.predict(w), dtype=float) - floor_us) / work, 0.0)
    return float(t) if t.ndim == 0 else t


def levels_text(fit: PiecewiseFit, caches: Optional[List[Dict[str, object]]] = None) -> str:
    """One line: the fitted rate changes, and the machine's stated cache sizes beside them."""
    found = ", ".join(_size_text(b) for b in fit.breakpoints_bytes) or "none"
    stated = ", ".join(f"L{c['level']} {_size_text(c['bytes'])}" for c in (caches or [])) or "not stated"
    return f"rate changes at {found} (the machine states {stated})"


def _size_text(nbytes: float) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} B"
