"""Barrier: ``T(P) = a log2(P) + b`` against the number of ranks (:func:`fit_barrier`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Tuple

import numpy as np

from ..lsq import nonnegative_wls
from .codec import (as_numbers, check_nonnegative, check_ranks, noise_in, num, pair_in, pair_out, quality_in,
                    quality_out, range_in, range_out, same_length, scalar_or_array, unnum)
from .spreads import checked_spreads, judged_quality, judged_weights


@dataclass(frozen=True)
class LogFit:
    """``T(P) = a * log2(P) + b``: barrier time against the number of ranks.

    Attributes:
        a: microseconds per doubling of the rank count.
        b: microseconds at one rank (the intercept).
        a_ci95, b_ci95: 95 % confidence intervals.
        r2, rmse_us: goodness of fit on the times.
        n: number of samples.
        relative_rmse, max_relative_residual: residuals relative to the times.
        flags: why the fit is below the quality threshold (empty when it is not).
        ranks_range: the smallest and largest rank count measured.
    """

    a: float
    b: float
    a_ci95: Tuple[float, float]
    b_ci95: Tuple[float, float]
    r2: float
    rmse_us: float = math.nan
    n: int = 0
    relative_rmse: float = math.nan
    max_relative_residual: float = math.nan
    flags: Tuple[str, ...] = ()
    ranks_range: Tuple[float, ...] = ()
    noise: Tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("flags", "ranks_range", "noise"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def predict(self, ranks):
        """Predicted microseconds for each rank count (>= 1), vectorised."""
        p = np.asarray(ranks, dtype=float)
        flat = as_numbers(p.reshape(-1), "ranks")
        check_ranks(flat)
        return scalar_or_array(self.a * np.log2(p) + self.b)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "log2", "formula": "T(P) = a * log2(P) + b",
                "a": num(self.a), "b": num(self.b), "a_ci95": pair_out(self.a_ci95),
                "b_ci95": pair_out(self.b_ci95), **quality_out(self), "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LogFit":
        """Inverse of :meth:`to_dict`."""
        return cls(a=unnum(data["a"]), b=unnum(data["b"]), a_ci95=pair_in(data.get("a_ci95")),
                   b_ci95=pair_in(data.get("b_ci95")), ranks_range=range_in(data.get("ranks_range")),
                   noise=noise_in(data), **quality_in(data))


def fit_barrier(ranks, times, *, weighting: str = "relative", spreads=None) -> LogFit:
    """Fit ``T(P) = a * log2(P) + b`` to barrier times (Bokhari's ``a d + b``
    for ``2**d`` processors; ``a = 0`` for a hardware barrier like the CM-5's).

    Args:
        ranks: rank count of each sample (>= 1; powers of two not required).
        times: microseconds.
        weighting: ``"relative"`` (default) or ``"uniform"``.
        spreads: optional, the half-width of each time's 95 % interval: the
            fit is weighed and judged by them as :func:`fit_piecewise_linear`
            is, against the rank count.

    Raises:
        ValueError: for mismatched lengths, bad values, or fewer than two
            distinct rank counts.
    """
    p = as_numbers(ranks, "ranks")
    y = as_numbers(times, "times")
    same_length(ranks=p, times=y)
    check_ranks(p)
    check_nonnegative(y, "times")
    if np.unique(p).size < 2:
        raise ValueError(f"too few points: fit_barrier needs at least 2 distinct rank counts, "
                         f"got {np.unique(p).size} in {p.size} sample(s)")
    spread = None if spreads is None else checked_spreads(spreads, p.size)
    one = np.zeros_like(p)
    w, disturbed = judged_weights(p, one, y, weighting, spread)
    X = np.column_stack([np.log2(p), np.ones_like(p)])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    quality = judged_quality(p, one, y, yhat, spread, disturbed, np.unique(p).size, ("a", "b"), held,
                              unit="ranks", group_name="")
    return LogFit(a=float(coef[0]), b=float(coef[1]), a_ci95=cis[0], b_ci95=cis[1], n=int(p.size),
                  ranks_range=(float(p.min()), float(p.max())), **quality)

