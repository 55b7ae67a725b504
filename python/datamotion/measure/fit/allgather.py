"""Concatenation (allgather): ``T(l, P) = c + d P l``, ``l`` the bytes each rank
contributes (:func:`fit_allgather`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Tuple

import numpy as np

from ..lsq import nonnegative_wls
from .codec import (bandwidth_of, broadcast_lp, noise_in, num, pair_in, pair_out, prepare_lpy, quality_in,
                    quality_out, range_in, range_out, scalar_or_array, unnum)
from .spreads import checked_spreads, judged_quality, judged_weights


@dataclass(frozen=True)
class AllgatherFit:
    """``T(l, P) = c + d * P * l``: concatenation (allgather), ``l`` = bytes per rank.

    The CM-5 paper's concatenation model (23.44 + 0.975 P l there): the time
    depends on ``P`` only through the size ``P l`` of the result.

    Attributes:
        c: start-up time, microseconds.
        d: microseconds per byte of the concatenated result.
        c_ci95, d_ci95: 95 % confidence intervals.
        bandwidth_MBps: ``1 / d`` (bytes of result per microsecond), derived.
        r2, rmse_us, n: goodness of fit and number of samples.
        relative_rmse, max_relative_residual: residuals relative to the times.
        flags: why the fit is below the quality threshold (empty when it is not).
        bytes_range, ranks_range: the smallest and largest size per rank and
            rank count measured.
    """

    c: float
    d: float
    c_ci95: Tuple[float, float]
    d_ci95: Tuple[float, float]
    r2: float
    rmse_us: float = math.nan
    n: int = 0
    relative_rmse: float = math.nan
    max_relative_residual: float = math.nan
    flags: Tuple[str, ...] = ()
    bytes_range: Tuple[float, ...] = ()
    ranks_range: Tuple[float, ...] = ()
    noise: Tuple[str, ...] = ()
    bandwidth_MBps: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "bandwidth_MBps", bandwidth_of(self.d))
        for name in ("flags", "bytes_range", "ranks_range", "noise"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def predict(self, size_bytes, ranks):
        """Predicted microseconds; ``size_bytes`` (per rank) and ``ranks`` broadcast together."""
        l, p = broadcast_lp(size_bytes, ranks)
        return scalar_or_array(self.c + self.d * p * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "allgather", "formula": "T(l, P) = c + d * P * l",
                "c": num(self.c), "d": num(self.d), "c_ci95": pair_out(self.c_ci95),
                "d_ci95": pair_out(self.d_ci95), "bandwidth_MBps": num(self.bandwidth_MBps),
                **quality_out(self), "bytes_range": range_out(self.bytes_range),
                "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AllgatherFit":
        """Inverse of :meth:`to_dict` (``bandwidth_MBps`` is recomputed)."""
        return cls(c=unnum(data["c"]), d=unnum(data["d"]), c_ci95=pair_in(data.get("c_ci95")),
                   d_ci95=pair_in(data.get("d_ci95")), bytes_range=range_in(data.get("bytes_range")),
                   ranks_range=range_in(data.get("ranks_range")), noise=noise_in(data), **quality_in(data))


def fit_allgather(sizes, ranks, times, *, weighting: str = "relative", spreads=None) -> AllgatherFit:
    """Fit the CM-5 concatenation model ``T(l, P) = c + d * P * l``.

    Args:
        sizes: bytes each rank contributes (``l``), per sample.
        ranks: rank count ``P`` per sample (>= 1).
        times: microseconds.
        weighting: ``"relative"`` (default) or ``"uniform"``.
        spreads: optional, the half-width of each time's 95 % interval: the
            fit is weighed and judged by them as :func:`fit_piecewise_linear`
            is, against the size at each rank count.

    Raises:
        ValueError: for mismatched lengths or bad values, or fewer than two
            distinct result sizes ``P * l``.
    """
    l, p, y = prepare_lpy(sizes, ranks, times)
    total = p * l
    if np.unique(total).size < 2:
        raise ValueError(f"too few points: fit_allgather needs at least 2 distinct result sizes P*l, "
                         f"got {np.unique(total).size} in {l.size} sample(s)")
    spread = None if spreads is None else checked_spreads(spreads, l.size)
    w, disturbed = judged_weights(l, p, y, weighting, spread)
    X = np.column_stack([np.ones_like(total), total])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    quality = judged_quality(l, p, y, yhat, spread, disturbed, np.unique(total).size, ("c", "d"), held,
                              unit="B", group_name="P")
    return AllgatherFit(c=float(coef[0]), d=float(coef[1]), c_ci95=cis[0], d_ci95=cis[1], n=int(l.size),
                        bytes_range=(float(l.min()), float(l.max())), ranks_range=(float(p.min()), float(p.max())),
                        **quality)

