"""Point to point: ``T(l) = t0 + l / B`` fitted piecewise against the message size,
the breakpoints (protocol switches, cache capacities) found by an exhaustive search
(:func:`fit_piecewise_linear`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from ..lsq import (RankDeficient, disturbed_times, held_flags, nonnegative_wls, quality_flags, r_squared, residuals,
                   rmse, spread_judgement, t975, weights_for)
from .codec import (as_numbers, bandwidth_of, bytes_value, check_nonnegative, noise_in, num, pair_in, pair_out,
                    quality_in, quality_out, same_length, scalar_or_array, unnum)
from .spreads import DISTURBED_WEIGHT, checked_spreads

_MAX_DISTINCT_SIZES = 4096  # the breakpoint search holds an m x m table of segment errors


@dataclass(frozen=True)
class Segment:
    """One straight piece ``T(l) = t0_us + us_per_byte * l`` of a piecewise fit.

    Attributes:
        start_bytes, end_bytes: the smallest and largest message size measured
            in this segment.
        t0_us: start-up time (intercept), microseconds.
        us_per_byte: time per byte (slope), microseconds.
        bandwidth_MBps: ``1 / us_per_byte`` in bytes per microsecond (= MB/s);
            ``inf`` when the slope is zero or negative. Derived, not stored.
        t0_ci95, us_per_byte_ci95: 95 % confidence intervals (NaN with no
            residual degrees of freedom).
        r2: coefficient of determination of this segment's times.
        n: number of samples in the segment.
        rmse_us: root-mean-square residual, microseconds.
        relative_rmse: root mean square of the residuals relative to the times.
        max_relative_residual: the largest ``|T - fit| / T``.
        flags: why this segment is below the quality threshold (empty when
            it is not): low r², large residuals, a coefficient held at 0, or a
            bandwidth above memcpy's (set by :func:`fit_results`).
        constraint: ``""``, or how the fit constrained this segment and why
            (a small-message segment's bandwidth held at the large-message
            segments', see :func:`fit_piecewise_linear`).
    """

    start_bytes: float
    end_bytes: float
    t0_us: float
    us_per_byte: float
    t0_ci95: Tuple[float, float]
    us_per_byte_ci95: Tuple[float, float]
    r2: float
    n: int
    rmse_us: float = math.nan
    relative_rmse: float = math.nan
    max_relative_residual: float = math.nan
    flags: Tuple[str, ...] = ()
    constraint: str = ""
    bandwidth_MBps: float = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "bandwidth_MBps", bandwidth_of(self.us_per_byte))
        object.__setattr__(self, "flags", tuple(self.flags))

    def predict(self, size_bytes):
        """``t0_us + us_per_byte * size_bytes``, elementwise; a float for a scalar."""
        l = np.asarray(size_bytes, dtype=float)
        return scalar_or_array(self.t0_us + self.us_per_byte * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {
            "start_bytes": self.start_bytes, "end_bytes": self.end_bytes,
            "t0_us": num(self.t0_us), "us_per_byte": num(self.us_per_byte),
            "bandwidth_MBps": num(self.bandwidth_MBps),
            "t0_ci95": pair_out(self.t0_ci95), "us_per_byte_ci95": pair_out(self.us_per_byte_ci95),
            **quality_out(self), **({"constraint": self.constraint} if self.constraint else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Segment":
        """Inverse of :meth:`to_dict` (``bandwidth_MBps`` is recomputed)."""
        return cls(start_bytes=data["start_bytes"], end_bytes=data["end_bytes"],
                   t0_us=unnum(data["t0_us"]), us_per_byte=unnum(data["us_per_byte"]),
                   t0_ci95=pair_in(data.get("t0_ci95")), us_per_byte_ci95=pair_in(data.get("us_per_byte_ci95")),
                   constraint=str(data.get("constraint") or ""), **quality_in(data))


@dataclass(frozen=True)
class PiecewiseFit:
    """Piecewise-linear model of time against message size.

    Segment ``i`` covers sizes from ``breakpoints_bytes[i - 1]`` (inclusive) up
    to ``breakpoints_bytes[i]`` (exclusive); the first segment also covers
    smaller sizes and the last one larger sizes. A breakpoint is the smallest
    measured size of the segment that starts there, so the true protocol switch
    lies between it and the previous measured size.

    Attributes:
        segments: the :class:`Segment` pieces, in order of size.
        breakpoints_bytes: where each segment after the first starts.
        r2: coefficient of determination of all times.
        rmse_us: root-mean-square residual, microseconds.
        n: number of samples fitted.
        bic: the penalised BIC of the chosen number of breakpoints (lower is
            better; see :func:`fit_piecewise_linear`).
        selection: ``{"breakpoints": k, "bic": value}`` for every number of
            breakpoints that was considered (``bic`` None where no
            segmentation with ``k`` breakpoints was possible).
        weighting: ``"relative"`` or ``"uniform"`` (see the module docstring).
        breakpoints_ci95: for each breakpoint ``[lo, hi]``: at 95 %
            confidence the switch lies above the measured size ``lo`` and at or
            below ``hi`` (see :func:`fit_piecewise_linear`).
        relative_rmse, max_relative_residual: residuals relative to the times.
        flags: why the fit is below the quality threshold (its own and each
            flagged segment's); empty when it is not.
        noise: what the measured spreads say about the times that the flags
            do not (single disturbed sizes, a noisy run), one line each; empty
            without spreads (see :func:`fit_piecewise_linear`).
    """

    segments: List[Segment]
    breakpoints_bytes: List[float]
    r2: float
    rmse_us: float
    n: int = 0
    bic: float = math.nan
    selection: List[Dict[str, Any]] = field(default_factory=list)
    weighting: str = "relative"
    breakpoints_ci95: List[Tuple[float, float]] = field(default_factory=list)
    relative_rmse: float = math.nan
    max_relative_residual: float = math.nan
    flags: Tuple[str, ...] = ()
    noise: Tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "flags", tuple(self.flags))
        object.__setattr__(self, "noise", tuple(self.noise))

    def segment_index(self, size_bytes):
        """Index of the segment that :meth:`predict` uses for each size."""
        l = np.asarray(size_bytes, dtype=float)
        idx = np.searchsorted(np.asarray(self.breakpoints_bytes, dtype=float), l, side="right")
        return int(idx) if idx.ndim == 0 else idx

    def predict(self, size_bytes):
        """Predicted time in microseconds for each message size (vectorised).

        Uses the segment containing the size; sizes beyond the last measured
        one use the last segment, sizes below the first the first segment.
        Returns a float for a scalar size, an array otherwise.

        Raises:
            ValueError: for negative or non-finite sizes.
        """
        l = np.asarray(size_bytes, dtype=float)
        flat = as_numbers(l.reshape(-1), "size_bytes")
        check_nonnegative(flat, "size_bytes")
        idx = np.searchsorted(np.asarray(self.breakpoints_bytes, dtype=float), l, side="right")
        t0 = np.array([s.t0_us for s in self.segments])[idx]
        slope = np.array([s.us_per_byte for s in self.segments])[idx]
        return scalar_or_array(t0 + slope * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {
            "type": "piecewise",
            "formula": "T(l) = t0_us + us_per_byte * l, one line per segment",
            "segments": [s.to_dict() for s in self.segments],
            "breakpoints_bytes": list(self.breakpoints_bytes),
            "bic": num(self.bic),
            "selection": [dict(item) for item in self.selection],
            "weighting": self.weighting,
            "breakpoints_ci95": [pair_out(ci) for ci in self.breakpoints_ci95],
            **quality_out(self),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PiecewiseFit":
        """Inverse of :meth:`to_dict`."""
        return cls(segments=[Segment.from_dict(s) for s in data["segments"]],
                   breakpoints_bytes=list(data.get("breakpoints_bytes", [])),
                   bic=unnum(data.get("bic")), selection=[dict(item) for item in data.get("selection", [])],
                   weighting=data.get("weighting", "relative"),
                   breakpoints_ci95=[pair_in(ci) for ci in data.get("breakpoints_ci95") or []],
                   noise=noise_in(data), **quality_in(data))


def _segment_costs(xs: np.ndarray, y: np.ndarray, w: np.ndarray, starts: np.ndarray, min_points: int) -> np.ndarray:
    """cost[i, j]: weighted SSE of the best physical line (t0 >= 0, slope >= 0)
    through the samples of distinct sizes i..j-1 (inf where that is fewer than
    ``min_points`` distinct sizes).

    Running sums start at each candidate segment start and are shifted by its
    first sample, which keeps the cancellation in the normal equations small.
    Where the free line is not physical, the best physical one is the better of
    the flat line (slope 0) and the line through the origin (t0 0): both are
    physical because sizes and times are non-negative, and the minimum of a
    convex error over the quadrant lies on one of its two edges."""
    m = starts.size - 1
    cost = np.full((m, m + 1), np.inf)
    for i in range(m - min_points + 1):
        p0 = starts[i]
        x0, y0 = xs[p0], y[p0]
        dx = xs[p0:] - x0
        dy = y[p0:] - y0
        ww = w[p0:]
        sw, sx, sy = np.cumsum(ww), np.cumsum(ww * dx), np.cumsum(ww * dy)
        sxx, sxy, syy = np.cumsum(ww * dx * dx), np.cumsum(ww * dx * dy), np.cumsum(ww * dy * dy)
        js = np.arange(i + min_points, m + 1)
        last = starts[js] - p0 - 1
        W, Sx, Sy = sw[last], sx[last], sy[last]
        cxx = sxx[last] - Sx ** 2 / W
        cxy = sxy[last] - Sx * Sy / W
        cyy = syy[last] - Sy ** 2 / W
        with np.errstate(divide="ignore", invalid="ignore"):
            slope = np.where(cxx > 0, cxy / cxx, 0.0)
            sse = cyy - np.where(cxx > 0, cxy ** 2 / cxx, 0.0)
            mean_y = y0 + Sy / W
            t0 = mean_y - slope * (x0 + Sx / W)
            tol = 1e-9 * np.abs(mean_y)
            unphysical = (slope * dx[last] < -tol) | (t0 < -tol)
            if np.any(unphysical):
                # sums about size 0, for the line through the origin
                Sxx0 = sxx[last] + 2 * x0 * Sx + x0 * x0 * W
                Sxy0 = sxy[last] + x0 * Sy + y0 * Sx + x0 * y0 * W
                Syy0 = syy[last] + 2 * y0 * Sy + y0 * y0 * W
                origin = np.where(Sxx0 > 0, Syy0 - Sxy0 ** 2 / Sxx0, Syy0)
                sse = np.where(unphysical, np.minimum(cyy, origin), sse)
        cost[i, js] = np.maximum(sse, 0.0)
    return cost


def _breakpoint_cis(cost: np.ndarray, best: List[np.ndarray], bounds: List[int], distinct: np.ndarray, n: int,
                    floor: float) -> List[Tuple[float, float]]:
    """95 % intervals of the breakpoints by profile likelihood.

    For breakpoint ``i`` at each candidate position ``b``, the least total
    error with every other breakpoint free (a forward table up to ``b``, a
    backward one from ``b``) is compared with the optimum: positions where it
    stays below ``SSE (1 + F / dof)``, ``F`` the 95 % quantile of F(1, dof)
    (``= t_0.975(dof)**2``) and ``dof = n - 3k - 2``, form the interval."""
    k = len(bounds) - 2
    m = distinct.size
    if k == 0:
        return []
    dof = n - 3 * k - 2
    if dof < 1:
        return [(math.nan, math.nan)] * k
    limit = max(float(best[k][m]), floor) * (1 + t975(dof) ** 2 / dof)
    # suffix[r][b]: least error covering distinct sizes b..m-1 with r breakpoints
    suffix = [np.append(cost[:, m], np.inf)]
    for _ in range(k - 1):
        suffix.append(np.append(np.min(cost + suffix[-1][None, :], axis=1), np.inf))
    out = []
    for i in range(1, k + 1):
        profile = best[i - 1][:m + 1] + suffix[k - i]
        inside = [b for b in np.flatnonzero(profile <= limit) if 1 <= b <= m - 1] + [bounds[i]]
        out.append((float(distinct[min(inside) - 1]), float(distinct[max(inside)])))
    return out


def _prepare_xy(sizes, times, size_name="sizes"):
    x = as_numbers(sizes, size_name)
    y = as_numbers(times, "times")
    same_length(**{size_name: x, "times": y})
    if x.size == 0:
        raise ValueError(f"{size_name} and times are empty: nothing to fit")
    check_nonnegative(x, size_name)
    check_nonnegative(y, "times")
    return x, y


def _int_arg(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def fit_line_segment(x: np.ndarray, y: np.ndarray, w: np.ndarray, judged: bool = False) -> Segment:
    """One segment's line; ``judged``: the fit's spreads judge its residuals, so
    the segment's flags are only its held coefficients."""
    X = np.column_stack([np.ones_like(x), x])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    flags = ([] if judged else quality_flags(r2, relative, np.unique(x).size)) + held_flags(("t0", "slope"), held)
    return Segment(start_bytes=bytes_value(x.min()), end_bytes=bytes_value(x.max()),
                   t0_us=float(coef[0]), us_per_byte=float(coef[1]), t0_ci95=cis[0], us_per_byte_ci95=cis[1],
                   r2=r2, n=int(x.size), rmse_us=rmse(y, yhat), relative_rmse=relative,
                   max_relative_residual=worst, flags=tuple(flags))


def _startup_bound(seg: Segment) -> bool:
    """A small-message segment: at its largest size the bytes take less time than
    the start-up, so its time per byte is a small, poorly determined part of it."""
    return seg.us_per_byte * float(seg.end_bytes) < seg.t0_us


def _hold_bandwidth(x: np.ndarray, y: np.ndarray, w: np.ndarray, seg: Segment, slope: float,
                    judged: bool = False) -> Segment:
    """``seg`` refitted with its time per byte held at ``slope`` (only t0 free):
    a small-message segment may not claim more bandwidth than the large-message ones."""
    t0 = max(0.0, float(np.sum(w * (y - slope * x)) / np.sum(w)))
    yhat = t0 + slope * x
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    free = f"{bandwidth_of(seg.us_per_byte):.0f} MB/s" if seg.us_per_byte > 0 else "unbounded"
    return Segment(start_bytes=seg.start_bytes, end_bytes=seg.end_bytes, t0_us=t0, us_per_byte=slope,
                   t0_ci95=(math.nan, math.nan), us_per_byte_ci95=(slope, slope), r2=r2, n=seg.n,
                   rmse_us=rmse(y, yhat), relative_rmse=relative, max_relative_residual=worst,
                   flags=() if judged else tuple(quality_flags(r2, relative, np.unique(x).size)),
                   constraint=(f"bandwidth held at {bandwidth_of(slope):.0f} MB/s, the large-message segments' best "
                               f"(free fit: {free}, more than any large message reached)"))


def _segment_name(seg: Segment) -> str:
    return f"segment {seg.start_bytes}-{seg.end_bytes} B"


def fit_piecewise_linear(sizes, times, max_breakpoints: int = 2, min_points: int = 3, *,
                         weighting: str = "relative", hold_small_bandwidth: bool = True,
                         spreads=None) -> PiecewiseFit:
    """Fit ``T(l) = t0_i + l / B_i`` on consecutive ranges of message size.

    The number of breakpoints (0 to ``max_breakpoints``) and their positions
    are chosen automatically. For each number of breakpoints the best split
    points, between consecutive distinct measured sizes, are found by an
    exhaustive search (dynamic programming over all segmentations, which gives
    the same optimum as enumerating them) minimising the total least-squares
    error of physical lines (every segment's ``t0 >= 0`` and time per byte
    ``>= 0``). The number of breakpoints ``k`` is then chosen by a penalised
    Bayesian information criterion::

        n ln(SSE / n) + (3k + 2) ln(n) + 3k ln(m)

    for ``n`` samples at ``m`` distinct sizes: the BIC, counting two
    parameters per segment and one per breakpoint, plus ``3 ln(m)`` per
    breakpoint for having searched its position among the ``m - 1`` gaps (plain
    BIC finds spurious breakpoints in 15-40 % of straight lines with 1 % noise
    at 12-48 sizes; this criterion in 0-2 %). Fits with residuals below about
    1e-7 of the times are treated as exact, so noise-free data never gains
    breakpoints from rounding.

    Each breakpoint has a 95 % interval by profile likelihood: the positions
    at which the least total error, every other breakpoint re-optimised, stays
    within the F-test threshold ``SSE (1 + F(1, dof) / dof)`` of the optimum.
    Each segment carries r², RMSE, relative RMSE, the largest relative
    residual and its quality ``flags`` (see the module docstring).

    Physical bandwidths: a small-message segment (one whose bytes take less
    time than its start-up even at its largest size, so its time per byte is
    barely determined) may not claim more bandwidth than the large-message
    segments reach. Where its fitted bandwidth is above their best, its time
    per byte is held at theirs and only its start-up refitted; its
    ``constraint`` says so, with the free fit's bandwidth (constrained, not
    flagged: the held line fits the small messages as well).
    ``hold_small_bandwidth=False`` leaves every segment free: for sizes that are
    not bytes moved (a working set, where a flat segment is one cache level).

    Measured spreads: with ``spreads`` (each time's uncertainty, the half-width
    of the 95 % interval of a row's median), a point weighs by the inverse
    square of its spread (``"relative"`` weighting; at least
    ``FIT_NOISE_FLOOR`` of the time), and the residuals are judged against the
    spreads instead of against r² and relative RMSE
    (:func:`datamotion.measure.lsq.spread_judgement`): the fit is flagged where
    ``FIT_MISFIT_RUN`` consecutive sizes are off it on the same side, beyond
    their spread and ``FIT_POINT_TOLERANCE``, the mark of a wrong shape; single
    disturbed sizes and a noisy run go to ``noise`` instead, so a well-fitting
    model of noisy times is not flagged while a wrong-shaped one still is.

    Args:
        sizes: message sizes in bytes (non-negative); a size may repeat, one
            entry per sample.
        times: the time of each sample in microseconds.
        max_breakpoints: the most breakpoints considered (>= 0).
        min_points: the fewest distinct sizes in a segment (>= 2).
        weighting: ``"relative"`` (weights ``1/T**2``, the default) or
            ``"uniform"``.
        spreads: optional, one per sample: the half-width of the 95 % interval
            of that time in microseconds (NaN where unknown).

    The search takes time and memory proportional to the square of the number
    of distinct sizes ``m`` (at most 4096; a few hundred take milliseconds).

    Returns:
        PiecewiseFit: segments with 95 % confidence intervals, breakpoints
        with theirs, ``r2``, ``rmse_us``, the criterion per number of
        breakpoints, and ``flags``.

    Raises:
        ValueError: for mismatched lengths, negative or non-finite values,
            fewer than ``min_points`` or more than 4096 distinct sizes, or bad
            arguments.
    """
    max_breakpoints = _int_arg(max_breakpoints, "max_breakpoints", 0)
    min_points = _int_arg(min_points, "min_points", 2)
    x, y = _prepare_xy(sizes, times)
    spread = None if spreads is None else checked_spreads(spreads, x.size)
    w = weights_for(y, weighting, spread)
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    judged = spread is not None
    disturbed = np.zeros(x.size, dtype=bool)
    if judged:
        spread = spread[order]
        # A disturbed time (load) weighs next to nothing, but stays in the measured range:
        # a ten-thousandth of its own weight, not less, so that a segment of two sizes,
        # one disturbed, still determines its line (the design keeps its rank).
        disturbed = disturbed_times(x, y, spread)
        w = np.where(disturbed, DISTURBED_WEIGHT * w, w)
    n = x.size
    distinct, first = np.unique(x, return_index=True)
    m = distinct.size
    if m < min_points:
        raise ValueError(f"too few points: a segment needs at least min_points={min_points} distinct sizes, "
                         f"got {m} distinct size(s) in {n} sample(s)")
    if m > _MAX_DISTINCT_SIZES:
        raise ValueError(f"too many distinct sizes for the exhaustive breakpoint search: {m} > "
                         f"{_MAX_DISTINCT_SIZES} (its cost grows as the square); fit fewer sizes")
    starts = np.append(first, n)
    xscale = float(distinct[-1]) or 1.0
    cost = _segment_costs(x / xscale, y, w, starts, min_points)

    # best[k][j]: least total error covering distinct sizes 0..j-1 with k breakpoints.
    kmax = min(max_breakpoints, m // min_points - 1)
    best = [cost[0].copy()]
    back: List[Optional[np.ndarray]] = [None]
    columns = np.arange(m + 1)
    for _ in range(kmax):
        cand = best[-1][:m, None] + cost
        arg = np.argmin(cand, axis=0)
        best.append(cand[arg, columns])
        back.append(arg)

    floor = 1e-14 * float(np.sum(w * y * y)) + 1e-300
    selection, choice = [], None
    for k in range(max_breakpoints + 1):
        total = best[k][m] if k <= kmax else math.inf
        if not math.isfinite(total):
            selection.append({"breakpoints": k, "bic": None})
            continue
        bic = n * math.log(max(total, floor) / n) + (3 * k + 2) * math.log(n) + 3 * k * math.log(m)
        selection.append({"breakpoints": k, "bic": float(bic)})
        if choice is None or bic < choice[1]:
            choice = (k, bic)
    k, bic = choice

    def segmentation(k: int):
        """The best segments with k breakpoints: (bounds, segments, yhat, flags, noise)."""
        bounds = [m]
        for level in range(k, 0, -1):
            bounds.append(int(back[level][bounds[-1]]))
        bounds.append(0)
        bounds = bounds[::-1]  # distinct-size indices: 0 = b_0 < b_1 < ... < b_k+1 = m
        slices = [slice(starts[lo], starts[hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
        segments = [fit_line_segment(x[sl], y[sl], w[sl], judged) for sl in slices]
        # A small-message segment may not claim more bandwidth than the large-message ones:
        # its slope is held at their best (their smallest time per byte) where it is below.
        large = [seg.us_per_byte for seg in segments if hold_small_bandwidth and not _startup_bound(seg)
                 and seg.us_per_byte > 0]
        for i, (seg, sl) in enumerate(zip(segments, slices)):
            if large and _startup_bound(seg) and seg.us_per_byte < min(large):
                segments[i] = _hold_bandwidth(x[sl], y[sl], w[sl], seg, min(large), judged)
        yhat = np.empty_like(y)
        for seg, sl in zip(segments, slices):
            yhat[sl] = seg.t0_us + seg.us_per_byte * x[sl]
        r2 = r_squared(y, yhat)
        relative, _ = residuals(y, yhat)
        if not judged:
            return bounds, segments, yhat, quality_flags(r2, relative, m), []
        own, noise = spread_judgement(x, y, yhat, spread, disturbed)
        # A coefficient held at 0 is judged like the rest: the held line is checked against
        # the spreads above, so holding it is noted, not flagged.
        noise += [f"{_segment_name(seg)}: {flag}, the held line judged against the spreads"
                  for seg in segments for flag in seg.flags]
        return bounds, [replace(seg, flags=()) for seg in segments], yhat, own, noise

    bounds, segments, yhat, own, noise = segmentation(k)
    if judged and own:
        # The BIC counts every residual alike; the spreads tell the noise from a bend. Where
        # the BIC's choice misses a range of sizes beyond their spread, the fewest more
        # breakpoints that follow every range are taken, or if none does, those that leave
        # the fewest ranges missed (the BIC's choice on a tie).
        chosen, fewest = k, len(own)
        for more in range(k + 1, kmax + 1):
            if not math.isfinite(best[more][m]):
                continue
            try:
                candidate = segmentation(more)
            except RankDeficient:  # a segment its points cannot determine: not a candidate
                continue
            if len(candidate[3]) < fewest:
                chosen, fewest = more, len(candidate[3])
                bounds, segments, yhat, own, noise = candidate
                if not own:
                    break
        if chosen != k:
            noise = [f"{chosen} breakpoint(s) where the BIC chose {k}: with {k}, more ranges of sizes are off "
                     "the fit beyond their spread"] + noise
            k, bic = chosen, selection[chosen]["bic"]
    breakpoints = [bytes_value(distinct[b]) for b in bounds[1:-1]]
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    flags = own + [f"{_segment_name(seg)}: {flag}" for seg in segments for flag in seg.flags
                   if not (len(segments) == 1 and flag in own)]  # one segment: said once
    return PiecewiseFit(segments=segments, breakpoints_bytes=breakpoints, r2=r2, rmse_us=rmse(y, yhat),
                        n=int(n), bic=float(bic), selection=selection, weighting=weighting,
                        breakpoints_ci95=_breakpoint_cis(cost, best, bounds, distinct, n, floor),
                        relative_rmse=relative, max_relative_residual=worst, flags=tuple(flags),
                        noise=tuple(noise))

