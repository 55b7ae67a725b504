"""Tree collectives (broadcast, reductions, scans):
``T(l, P) = (a + b l) log2(P) + c + d l`` (:func:`fit_collective`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Tuple

import numpy as np

from ..lsq import RankDeficient, nonnegative_wls
from .codec import (broadcast_lp, noise_in, num, pair_in, pair_out, prepare_lpy, quality_in, quality_out, range_in,
                    range_out, scalar_or_array, unnum)
from .piecewise import Segment, fit_line_segment
from .spreads import checked_spreads, judged_quality, judged_weights


@dataclass(frozen=True)
class CollectiveFit:
    """``T(l, P) = (a + b*l) * log2(P) + c + d*l`` for tree collectives (broadcast).

    At a fixed rank count this is a line in ``l`` whose start-up
    ``c + a log2 P`` and time per byte ``d + b log2 P`` grow with the depth of
    a spanning tree, the behaviour the CM-5 paper reports between its 32- and
    512-node broadcast fits.

    Attributes:
        a, b, c, d: coefficients (microseconds, microseconds per byte).
        a_ci95, b_ci95, c_ci95, d_ci95: 95 % confidence intervals.
        r2, rmse_us, n: goodness of fit and number of samples.
        per_ranks: the paper's own form, one line ``T(l) = t0 + k l`` per rank
            count measured at two or more sizes, as :class:`Segment` objects.
        relative_rmse, max_relative_residual: residuals relative to the times.
        flags: why the fit is below the quality threshold (empty when it is not).
        bytes_range, ranks_range: the smallest and largest size and rank count
            measured.
    """

    a: float
    b: float
    c: float
    d: float
    a_ci95: Tuple[float, float]
    b_ci95: Tuple[float, float]
    c_ci95: Tuple[float, float]
    d_ci95: Tuple[float, float]
    r2: float
    rmse_us: float = math.nan
    n: int = 0
    per_ranks: Dict[int, Segment] = field(default_factory=dict)
    relative_rmse: float = math.nan
    max_relative_residual: float = math.nan
    flags: Tuple[str, ...] = ()
    bytes_range: Tuple[float, ...] = ()
    ranks_range: Tuple[float, ...] = ()
    noise: Tuple[str, ...] = ()

    def __post_init__(self):
        for name in ("flags", "bytes_range", "ranks_range", "noise"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def predict(self, size_bytes, ranks):
        """Predicted microseconds; ``size_bytes`` and ``ranks`` broadcast together."""
        l, p = broadcast_lp(size_bytes, ranks)
        g = np.log2(p)
        return scalar_or_array((self.a + self.b * l) * g + self.c + self.d * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "collective", "formula": "T(l, P) = (a + b*l) * log2(P) + c + d*l",
                "a": num(self.a), "b": num(self.b), "c": num(self.c), "d": num(self.d),
                "a_ci95": pair_out(self.a_ci95), "b_ci95": pair_out(self.b_ci95),
                "c_ci95": pair_out(self.c_ci95), "d_ci95": pair_out(self.d_ci95),
                "per_ranks": [dict(ranks=int(p), **seg.to_dict()) for p, seg in sorted(self.per_ranks.items())],
                **quality_out(self), "bytes_range": range_out(self.bytes_range),
                "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CollectiveFit":
        """Inverse of :meth:`to_dict`."""
        per_ranks = {int(item["ranks"]): Segment.from_dict(item) for item in data.get("per_ranks", [])}
        return cls(a=unnum(data["a"]), b=unnum(data["b"]), c=unnum(data["c"]), d=unnum(data["d"]),
                   a_ci95=pair_in(data.get("a_ci95")), b_ci95=pair_in(data.get("b_ci95")),
                   c_ci95=pair_in(data.get("c_ci95")), d_ci95=pair_in(data.get("d_ci95")),
                   per_ranks=per_ranks, bytes_range=range_in(data.get("bytes_range")),
                   ranks_range=range_in(data.get("ranks_range")), noise=noise_in(data), **quality_in(data))


def fit_collective(sizes, ranks, times, *, weighting: str = "relative", spreads=None) -> CollectiveFit:
    """Fit ``T(l, P) = (a + b*l) * log2(P) + c + d*l`` (broadcast-like collectives).

    Args:
        sizes: message size ``l`` in bytes of each sample (the broadcast buffer).
        ranks: rank count ``P`` of each sample (>= 1).
        times: microseconds.
        weighting: ``"relative"`` (default) or ``"uniform"``.
        spreads: optional, the half-width of each time's 95 % interval: the
            fit is weighed and judged by them as :func:`fit_piecewise_linear`
            is, against the size at each rank count.

    Returns:
        CollectiveFit, including one line per rank count (the CM-5 paper's
        per-partition equations) in ``per_ranks``.

    Raises:
        ValueError: for mismatched lengths or bad values, or when the samples
            cannot determine all four coefficients (at least two sizes at each
            of at least two rank counts are needed).
    """
    l, p, y = prepare_lpy(sizes, ranks, times)
    n_ranks, n_sizes = np.unique(p).size, np.unique(l).size
    if n_ranks < 2 or n_sizes < 2 or l.size < 4:
        raise ValueError(f"too few points: fit_collective needs at least 2 distinct sizes at each of at least "
                         f"2 distinct rank counts (got {n_sizes} size(s), {n_ranks} rank count(s), "
                         f"{l.size} sample(s))")
    spread = None if spreads is None else checked_spreads(spreads, l.size)
    w, disturbed = judged_weights(l, p, y, weighting, spread)
    g = np.log2(p)
    X = np.column_stack([g, l * g, np.ones_like(l), l])
    try:
        coef, cis, _, held = nonnegative_wls(X, y, w)
    except RankDeficient:
        raise ValueError("the samples do not determine all four coefficients of (a + b*l)*log2(P) + c + d*l: "
                         "measure at least 2 sizes at each of at least 2 rank counts") from None
    yhat = X @ coef
    per_ranks = {}
    for P in np.unique(p):
        sel = p == P
        if np.unique(l[sel]).size >= 2:
            per_ranks[int(P)] = fit_line_segment(l[sel], y[sel], w[sel], judged=spread is not None)
    quality = judged_quality(l, p, y, yhat, spread, disturbed, np.unique(np.column_stack([l, p]), axis=0).shape[0],
                              ("a", "b", "c", "d"), held, unit="B", group_name="P")
    return CollectiveFit(a=float(coef[0]), b=float(coef[1]), c=float(coef[2]), d=float(coef[3]),
                         a_ci95=cis[0], b_ci95=cis[1], c_ci95=cis[2], d_ci95=cis[3], n=int(l.size),
                         per_ranks=per_ranks, bytes_range=(float(l.min()), float(l.max())),
                         ranks_range=(float(p.min()), float(p.max())), **quality)

