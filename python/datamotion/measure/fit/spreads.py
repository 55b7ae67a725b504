"""Fits judged against the measured spreads of their times (the rows' ``ci95_us``):
the spreads checked, disturbed times weighed next to nothing, and the residuals of
a model over several rank counts judged at each rank count."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..lsq import disturbed_times, fit_quality, held_flags, r_squared, residuals, rmse, spread_judgement, weights_for
from .codec import bytes_value


DISTURBED_WEIGHT = 1e-4
"""A disturbed time's weight, as a fraction of the weight its spread gives it."""


def checked_spreads(spreads, n: int) -> Optional[np.ndarray]:
    """The measured spreads as an array (NaN: unknown); None when none is known."""
    try:
        s = np.asarray(spreads, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"spreads must be a sequence of numbers: {exc}") from None
    if s.size != n:
        raise ValueError(f"spreads must have one value per time: {s.size} for {n} times")
    if np.any(s < 0) or np.any(np.isinf(s)):
        raise ValueError("spreads must be non-negative and finite (NaN where unknown)")
    return None if np.all(np.isnan(s)) else s


def _by_group(x: np.ndarray, group: np.ndarray) -> List[np.ndarray]:
    """Indices of each distinct ``group`` value, in ascending ``x``."""
    return [idx[np.argsort(x[idx], kind="stable")] for idx in (np.flatnonzero(group == g) for g in np.unique(group))]


def judged_weights(x: np.ndarray, group: np.ndarray, y: np.ndarray, weighting: str, spread):
    """(weights, disturbed) of a fit over several groups (rank counts): by the
    spreads, a disturbed time (:func:`~datamotion.measure.lsq.disturbed_times`
    within its group) weighing next to nothing (as in :func:`fit_piecewise_linear`);
    without spreads, as :func:`weights_for`."""
    w = weights_for(y, weighting, spread)
    disturbed = np.zeros(y.size, dtype=bool)
    if spread is not None:
        for idx in _by_group(x, group):
            disturbed[idx] = disturbed_times(x[idx], y[idx], spread[idx])
        w = np.where(disturbed, DISTURBED_WEIGHT * w, w)
    return w, disturbed


def judged_quality(x: np.ndarray, group: np.ndarray, y: np.ndarray, yhat: np.ndarray, spread, disturbed,
                    distinct: int, names: Sequence[str], held, *, unit: str, group_name: str) -> Dict[str, Any]:
    """:func:`~datamotion.measure.lsq.fit_quality`, or with spreads, the residuals of
    each group (``group_name=value``, against ``x``) judged as a piecewise fit's are
    (:func:`~datamotion.measure.lsq.spread_judgement`), a held coefficient noted."""
    if spread is None:
        return {**fit_quality(y, yhat, distinct, names, held), "noise": ()}
    flags: List[str] = []
    noise: List[str] = []
    groups = _by_group(x, group)
    for idx in groups:
        own, notes = spread_judgement(x[idx], y[idx], yhat[idx], spread[idx], disturbed[idx], unit)
        where = f"at {group_name}={bytes_value(group[idx[0]])}: " if len(groups) > 1 else ""
        flags += [where + f for f in own]
        noise += [where + n for n in notes]
    noise += [f"{flag}, the held model judged against the spreads" for flag in held_flags(names, held)]
    relative, worst = residuals(y, yhat)
    return {"r2": r_squared(y, yhat), "rmse_us": rmse(y, yhat), "relative_rmse": relative,
            "max_relative_residual": worst, "flags": tuple(flags), "noise": tuple(noise)}

