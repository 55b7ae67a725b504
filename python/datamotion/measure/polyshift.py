"""The PSHIFT paper's Eq. 2, fitted without MPI: the suite fits our times with it,
the report the paper's own Tables 1-4 (its Figures 9-11 draw the fits)."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .lsq import nonnegative_lstsq

__all__ = ["fit_eq2", "eq2"]


def fit_eq2(extents: Sequence[float], times_us: Sequence[float], k: int) -> Optional[dict]:
    """Eq. 2, T = a + b L^(k-1) + c L^k (shift 1, equal axes), non-negative, relative error;
    None with fewer than three extents."""
    if len(extents) < 3:
        return None
    L = np.asarray(extents, dtype=float)
    y = np.asarray(times_us, dtype=float)
    A = np.stack([np.ones_like(L), L ** (k - 1), L ** k], axis=1)
    a, b, c = nonnegative_lstsq(A, y, weights=y ** -2.0)
    return {"a_us": float(a), "b_us": float(b), "c_us": float(c)}


def eq2(fit: dict, L, k: int):
    """Eq. 2's time at extents ``L`` (µs)."""
    L = np.asarray(L, dtype=float)
    return fit["a_us"] + fit["b_us"] * L ** (k - 1) + fit["c_us"] * L ** k
