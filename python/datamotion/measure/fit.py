"""Performance models fitted to benchmark timings.

Pure Python and NumPy: nothing here loads MPI, so measurements can be fitted
anywhere, e.g. on a laptop from the JSON document that ``datamotion bench``
wrote on a cluster. Sizes are in bytes, times in microseconds, bandwidths in
bytes per microsecond (= MB/s, 10**6 bytes per second).

The models are those of two 1995 benchmark studies:

* Point to point (Dincer, Bozkus, Ranka & Fox, *Benchmarking the computation
  and communication performance of the CM-5*; Bokhari, *Communication overhead
  on the Intel Paragon, IBM SP2 & Meiko CS-2*):
  ``T(l) = t0 + l / B``, fitted piecewise because a message-passing library
  changes protocol at some sizes (Bokhari's "short" and "long" messages, the
  SP2's eager limit): :func:`fit_piecewise_linear` finds the number of
  breakpoints and where they are.
* Barrier (Bokhari, Table 1: ``126 d - 113`` microseconds on ``2**d``
  Paragon nodes): ``T(P) = a log2(P) + b``, :func:`fit_barrier`. The CM-5's
  hardware barrier (5 us whatever the partition) is the case ``a = 0``.
* Broadcast: the CM-5 paper fits one line ``T(l) = t0 + k l`` per partition
  size (its equations 2 and 3) and explains the small growth of both terms
  with the partition by the depth of the spanning tree. :func:`fit_collective`
  fits that growth in one model, ``T(l, P) = (a + b l) log2(P) + c + d l``,
  and keeps the per-partition lines of the paper in
  :attr:`CollectiveFit.per_ranks`.
* Concatenation (allgather): ``T(l, P) = c + d P l`` with ``l`` the bytes each
  rank contributes (the CM-5 paper: 23.44 + 0.975 P l; "time for
  concatenation depends only on P for its contribution to the message size").
  It grows with ``P``, not ``log2 P``: :func:`fit_allgather`.
* LogGP parameters seen from a ping-pong: :func:`loggp_from_pingpong`.

:func:`fit_results` fits every kernel of a ``datamotion.bench/1`` results
document; :mod:`datamotion.measure.predict` evaluates the fitted document.

Every fit is a least-squares fit. By default it is weighted by ``1 / T**2``
(``weighting="relative"``): timing noise is roughly proportional to the time,
and an unweighted fit would let the largest messages decide the start-up time
of small ones. ``weighting="uniform"`` gives ordinary least squares.

Every coefficient is physical: start-up times, times per byte and the
coefficients of the barrier, collective and allgather models are constrained
to be ``>= 0`` (an exact bound-constrained least squares,
:func:`datamotion.measure.lsq.nonnegative_lstsq`: where the free fit is negative, Lawson and
Hanson's active-set method finds the optimum). The breakpoint search compares physical segments only.

Confidence intervals (95 %) come from the least-squares covariance with
Student-t quantiles (a table up to 30 degrees of freedom, a Cornish-Fisher
expansion beyond); they are NaN where there are no residual degrees of
freedom, their lower ends are clipped at 0, and a coefficient held at 0 has
``[0, upper end of its unconstrained interval]``. Breakpoints have intervals
by profile likelihood (:func:`fit_piecewise_linear`). ``r2``, ``rmse_us``,
``relative_rmse`` and ``max_relative_residual`` are always computed on the
unweighted times, for every fit and every segment.

Quality: every fit and segment carries ``flags``, a list of reasons it is
below the threshold of :mod:`~datamotion.measure.constants` (empty when it
is not). Where the times come with their measured spreads (the rows'
``ci95_us``; ``spreads=`` of every ``fit_*``), the residuals are judged
against them (the models over rank counts at each rank count) (:func:`datamotion.measure.lsq.spread_judgement`): a range
of sizes off the fit one way beyond their spread is a wrong shape and flagged,
single disturbed sizes and a noisy run are noted in the fit's ``noise``
(:func:`noise_notes`). Without spreads: r² below ``FIT_MIN_R2`` on at least
``FIT_R2_MIN_POINTS`` distinct sizes or rank counts; relative RMSE above
``FIT_MAX_RELATIVE_RMSE``; a coefficient held at 0 whose free fit was negative
beyond its 95 % interval. In both, in :func:`fit_results` when the results
hold a ``memcopy`` entry, a segment whose bandwidth is above memcpy's at the
same sizes (flagged, not clipped). :func:`flagged_fits` lists the flagged fits
of a model document.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

__all__ = [
    "Segment", "PiecewiseFit", "LogFit", "CollectiveFit", "AllgatherFit",
    "fit_piecewise_linear", "fit_barrier", "fit_collective", "fit_allgather",
    "loggp_from_pingpong", "fit_results", "flagged_fits", "noise_notes", "KERNEL_MODELS", "CACHE_KERNELS",
]

from .constants import (CACHE_BREAKPOINTS, FIT_MAX_RELATIVE_RMSE, FIT_MIN_R2, FIT_R2_MIN_POINTS, MODEL_SCHEMA,
                        RESULTS_SCHEMA)
from .lsq import (
    RankDeficient,
    fit_quality,
    held_flags,
    nonnegative_wls,
    quality_flags,
    r_squared,
    residuals,
    rmse,
    disturbed_times,
    spread_judgement,
    t975,
    weights_for,
)

KERNEL_MODELS: Dict[str, str] = {
    # point to point: T(l) = t0 + l/B piecewise
    "pingpong": "piecewise",
    "pingpong_fine": "piecewise",
    "memcopy": "piecewise",
    "exchange": "piecewise",
    "stream": "piecewise",
    "bidir": "piecewise",
    "chain": "piecewise",
    # a local kernel against its working set: breakpoints where a cache level runs out
    "vector_sweep": "piecewise",
    # NumPy's array statements against the length (what a Python program computes with)
    "ufunc": "piecewise",
    # synchronisation: T(P) = a log2 P + b
    "barrier": "log2",
    # tree collectives: T(l, P) = (a + b l) log2 P + c + d l
    "bcast": "collective",
    "broadcast": "collective",
    "reduce": "collective",
    "allreduce": "collective",
    "scan": "collective",
    "exscan": "collective",
    "segscan": "collective",
    # data grows with P: T(l, P) = c + d P l, l = bytes per rank
    "allgather": "allgather",
    "concat": "allgather",
    "concatenate": "allgather",
    "gather": "allgather",
    "scatter": "allgather",
    "alltoall": "allgather",
}
"""Benchmark kernel name -> model family that :func:`fit_results` fits to it.

``"piecewise"``: :func:`fit_piecewise_linear` on ``bytes`` (one fit per rank
count when the rows hold several). ``"log2"``: :func:`fit_barrier` on
``ranks``. ``"collective"``: :func:`fit_collective` on ``bytes`` and ``ranks``.
``"allgather"``: :func:`fit_allgather`, where ``bytes`` is what each rank
contributes. Kernels not listed are skipped with a note. The mapping may be
extended by the caller before calling :func:`fit_results`."""

CACHE_KERNELS = ("memcopy", "stream", "exchange", "bidir", "vector_sweep", "ufunc")
"""Kernels whose time per byte changes where a cache level runs out (their messages are
copied through the caches): :func:`fit_results` allows them
:data:`~datamotion.measure.constants.CACHE_BREAKPOINTS` breakpoints, the protocol
switches and the cache capacities."""

LOCAL_KERNELS = ("vector_sweep", "ufunc")
"""Kernels of one rank's computation, not of moving messages: their ``bytes`` are a
working set or an array length, so their slopes are not compared with memcpy's."""

_MAX_DISTINCT_SIZES = 4096  # the breakpoint search holds an m x m table of segment errors

# ---------------------------------------------------------------------------
# Input checking and JSON helpers
# ---------------------------------------------------------------------------


def _vector(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a sequence of numbers: {exc}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ValueError(f"{name} must be finite, got {arr[bad[0]]} at index {bad[0]}")
    return arr


def _nonnegative(arr: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise ValueError(f"{name} must be non-negative, got {arr[bad[0]]:g} at index {bad[0]}")


def _ranks_ok(arr: np.ndarray, name: str = "ranks") -> None:
    bad = np.flatnonzero(arr < 1)
    if bad.size:
        raise ValueError(f"{name} must be at least 1 (log2 of the rank count is taken), "
                         f"got {arr[bad[0]]:g} at index {bad[0]}")


def _same_length(**arrays: np.ndarray) -> int:
    lengths = {name: arr.size for name, arr in arrays.items()}
    if len(set(lengths.values())) != 1:
        listing = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length: {listing}")
    return next(iter(lengths.values()))


def _num(value: float) -> Optional[float]:
    """A float for strict JSON: None for NaN and infinities."""
    value = float(value)
    return value if math.isfinite(value) else None


def _unnum(value: Optional[float]) -> float:
    return math.nan if value is None else float(value)


def _pair_out(pair: Tuple[float, float]) -> List[Optional[float]]:
    return [_num(pair[0]), _num(pair[1])]


def _pair_in(pair: Optional[Sequence[Optional[float]]]) -> Tuple[float, float]:
    if pair is None:
        return (math.nan, math.nan)
    return (_unnum(pair[0]), _unnum(pair[1]))


def _bytes_value(v: float):
    """Sizes that are whole numbers are kept as ints (they are byte counts)."""
    v = float(v)
    return int(v) if v.is_integer() else v


def _scalar_or_array(out: np.ndarray):
    return float(out) if np.ndim(out) == 0 else out


def range_out(pair: Tuple[float, float]) -> List[Any]:
    return [_bytes_value(pair[0]), _bytes_value(pair[1])] if pair else []


def range_in(pair) -> Tuple[float, ...]:
    return (float(pair[0]), float(pair[1])) if isinstance(pair, (list, tuple)) and len(pair) == 2 else ()


def _quality_out(fit) -> Dict[str, Any]:
    """The goodness-of-fit fields every fit and segment writes to JSON (``noise`` only
    where a whole fit has notes from its measured spreads)."""
    return {"r2": _num(fit.r2), "rmse_us": _num(fit.rmse_us), "n": int(fit.n),
            "relative_rmse": _num(fit.relative_rmse), "max_relative_residual": _num(fit.max_relative_residual),
            "flags": list(fit.flags), **({"noise": list(fit.noise)} if getattr(fit, "noise", ()) else {})}


def _quality_in(data: Mapping[str, Any]) -> Dict[str, Any]:
    """The keyword arguments :func:`_quality_out` wrote (inverse of it)."""
    return {"r2": _unnum(data.get("r2")), "rmse_us": _unnum(data.get("rmse_us")), "n": int(data.get("n", 0)),
            "relative_rmse": _unnum(data.get("relative_rmse")),
            "max_relative_residual": _unnum(data.get("max_relative_residual")),
            "flags": tuple(str(f) for f in data.get("flags") or ())}


def _noise_in(data: Mapping[str, Any]) -> Tuple[str, ...]:
    """The ``noise`` notes :func:`_quality_out` wrote for a whole fit."""
    return tuple(str(n) for n in data.get("noise") or ())


def _bandwidth(us_per_byte: float) -> float:
    return 1.0 / us_per_byte if us_per_byte > 0 else math.inf


# ---------------------------------------------------------------------------
# Point to point: piecewise linear
# ---------------------------------------------------------------------------


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
        object.__setattr__(self, "bandwidth_MBps", _bandwidth(self.us_per_byte))
        object.__setattr__(self, "flags", tuple(self.flags))

    def predict(self, size_bytes):
        """``t0_us + us_per_byte * size_bytes``, elementwise; a float for a scalar."""
        l = np.asarray(size_bytes, dtype=float)
        return _scalar_or_array(self.t0_us + self.us_per_byte * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {
            "start_bytes": self.start_bytes, "end_bytes": self.end_bytes,
            "t0_us": _num(self.t0_us), "us_per_byte": _num(self.us_per_byte),
            "bandwidth_MBps": _num(self.bandwidth_MBps),
            "t0_ci95": _pair_out(self.t0_ci95), "us_per_byte_ci95": _pair_out(self.us_per_byte_ci95),
            **_quality_out(self), **({"constraint": self.constraint} if self.constraint else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Segment":
        """Inverse of :meth:`to_dict` (``bandwidth_MBps`` is recomputed)."""
        return cls(start_bytes=data["start_bytes"], end_bytes=data["end_bytes"],
                   t0_us=_unnum(data["t0_us"]), us_per_byte=_unnum(data["us_per_byte"]),
                   t0_ci95=_pair_in(data.get("t0_ci95")), us_per_byte_ci95=_pair_in(data.get("us_per_byte_ci95")),
                   constraint=str(data.get("constraint") or ""), **_quality_in(data))


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
        flat = _vector(l.reshape(-1), "size_bytes")
        _nonnegative(flat, "size_bytes")
        idx = np.searchsorted(np.asarray(self.breakpoints_bytes, dtype=float), l, side="right")
        t0 = np.array([s.t0_us for s in self.segments])[idx]
        slope = np.array([s.us_per_byte for s in self.segments])[idx]
        return _scalar_or_array(t0 + slope * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {
            "type": "piecewise",
            "formula": "T(l) = t0_us + us_per_byte * l, one line per segment",
            "segments": [s.to_dict() for s in self.segments],
            "breakpoints_bytes": list(self.breakpoints_bytes),
            "bic": _num(self.bic),
            "selection": [dict(item) for item in self.selection],
            "weighting": self.weighting,
            "breakpoints_ci95": [_pair_out(ci) for ci in self.breakpoints_ci95],
            **_quality_out(self),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PiecewiseFit":
        """Inverse of :meth:`to_dict`."""
        return cls(segments=[Segment.from_dict(s) for s in data["segments"]],
                   breakpoints_bytes=list(data.get("breakpoints_bytes", [])),
                   bic=_unnum(data.get("bic")), selection=[dict(item) for item in data.get("selection", [])],
                   weighting=data.get("weighting", "relative"),
                   breakpoints_ci95=[_pair_in(ci) for ci in data.get("breakpoints_ci95") or []],
                   noise=_noise_in(data), **_quality_in(data))


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
    x = _vector(sizes, size_name)
    y = _vector(times, "times")
    _same_length(**{size_name: x, "times": y})
    if x.size == 0:
        raise ValueError(f"{size_name} and times are empty: nothing to fit")
    _nonnegative(x, size_name)
    _nonnegative(y, "times")
    return x, y


def _int_arg(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _fit_line_segment(x: np.ndarray, y: np.ndarray, w: np.ndarray, judged: bool = False) -> Segment:
    """One segment's line; ``judged``: the fit's spreads judge its residuals, so
    the segment's flags are only its held coefficients."""
    X = np.column_stack([np.ones_like(x), x])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    flags = ([] if judged else quality_flags(r2, relative, np.unique(x).size)) + held_flags(("t0", "slope"), held)
    return Segment(start_bytes=_bytes_value(x.min()), end_bytes=_bytes_value(x.max()),
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
    free = f"{_bandwidth(seg.us_per_byte):.0f} MB/s" if seg.us_per_byte > 0 else "unbounded"
    return Segment(start_bytes=seg.start_bytes, end_bytes=seg.end_bytes, t0_us=t0, us_per_byte=slope,
                   t0_ci95=(math.nan, math.nan), us_per_byte_ci95=(slope, slope), r2=r2, n=seg.n,
                   rmse_us=rmse(y, yhat), relative_rmse=relative, max_relative_residual=worst,
                   flags=() if judged else tuple(quality_flags(r2, relative, np.unique(x).size)),
                   constraint=(f"bandwidth held at {_bandwidth(slope):.0f} MB/s, the large-message segments' best "
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
    spread = None if spreads is None else _spreads(spreads, x.size)
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
        w = np.where(disturbed, _DISTURBED_WEIGHT * w, w)
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
        segments = [_fit_line_segment(x[sl], y[sl], w[sl], judged) for sl in slices]
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
    breakpoints = [_bytes_value(distinct[b]) for b in bounds[1:-1]]
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    flags = own + [f"{_segment_name(seg)}: {flag}" for seg in segments for flag in seg.flags
                   if not (len(segments) == 1 and flag in own)]  # one segment: said once
    return PiecewiseFit(segments=segments, breakpoints_bytes=breakpoints, r2=r2, rmse_us=rmse(y, yhat),
                        n=int(n), bic=float(bic), selection=selection, weighting=weighting,
                        breakpoints_ci95=_breakpoint_cis(cost, best, bounds, distinct, n, floor),
                        relative_rmse=relative, max_relative_residual=worst, flags=tuple(flags),
                        noise=tuple(noise))


_DISTURBED_WEIGHT = 1e-4
"""A disturbed time's weight, as a fraction of the weight its spread gives it."""


def _spreads(spreads, n: int) -> Optional[np.ndarray]:
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


# ---------------------------------------------------------------------------
# Models over rank counts, judged against the measured spreads
# ---------------------------------------------------------------------------


def _by_group(x: np.ndarray, group: np.ndarray) -> List[np.ndarray]:
    """Indices of each distinct ``group`` value, in ascending ``x``."""
    return [idx[np.argsort(x[idx], kind="stable")] for idx in (np.flatnonzero(group == g) for g in np.unique(group))]


def _judged_weights(x: np.ndarray, group: np.ndarray, y: np.ndarray, weighting: str, spread):
    """(weights, disturbed) of a fit over several groups (rank counts): by the
    spreads, a disturbed time (:func:`~datamotion.measure.lsq.disturbed_times`
    within its group) weighing next to nothing (as in :func:`fit_piecewise_linear`);
    without spreads, as :func:`weights_for`."""
    w = weights_for(y, weighting, spread)
    disturbed = np.zeros(y.size, dtype=bool)
    if spread is not None:
        for idx in _by_group(x, group):
            disturbed[idx] = disturbed_times(x[idx], y[idx], spread[idx])
        w = np.where(disturbed, _DISTURBED_WEIGHT * w, w)
    return w, disturbed


def _judged_quality(x: np.ndarray, group: np.ndarray, y: np.ndarray, yhat: np.ndarray, spread, disturbed,
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
        where = f"at {group_name}={_bytes_value(group[idx[0]])}: " if len(groups) > 1 else ""
        flags += [where + f for f in own]
        noise += [where + n for n in notes]
    noise += [f"{flag}, the held model judged against the spreads" for flag in held_flags(names, held)]
    relative, worst = residuals(y, yhat)
    return {"r2": r_squared(y, yhat), "rmse_us": rmse(y, yhat), "relative_rmse": relative,
            "max_relative_residual": worst, "flags": tuple(flags), "noise": tuple(noise)}


# ---------------------------------------------------------------------------
# Barrier: a log2 P + b
# ---------------------------------------------------------------------------


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
        flat = _vector(p.reshape(-1), "ranks")
        _ranks_ok(flat)
        return _scalar_or_array(self.a * np.log2(p) + self.b)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "log2", "formula": "T(P) = a * log2(P) + b",
                "a": _num(self.a), "b": _num(self.b), "a_ci95": _pair_out(self.a_ci95),
                "b_ci95": _pair_out(self.b_ci95), **_quality_out(self), "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LogFit":
        """Inverse of :meth:`to_dict`."""
        return cls(a=_unnum(data["a"]), b=_unnum(data["b"]), a_ci95=_pair_in(data.get("a_ci95")),
                   b_ci95=_pair_in(data.get("b_ci95")), ranks_range=range_in(data.get("ranks_range")),
                   noise=_noise_in(data), **_quality_in(data))


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
    p = _vector(ranks, "ranks")
    y = _vector(times, "times")
    _same_length(ranks=p, times=y)
    _ranks_ok(p)
    _nonnegative(y, "times")
    if np.unique(p).size < 2:
        raise ValueError(f"too few points: fit_barrier needs at least 2 distinct rank counts, "
                         f"got {np.unique(p).size} in {p.size} sample(s)")
    spread = None if spreads is None else _spreads(spreads, p.size)
    one = np.zeros_like(p)
    w, disturbed = _judged_weights(p, one, y, weighting, spread)
    X = np.column_stack([np.log2(p), np.ones_like(p)])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    quality = _judged_quality(p, one, y, yhat, spread, disturbed, np.unique(p).size, ("a", "b"), held,
                              unit="ranks", group_name="")
    return LogFit(a=float(coef[0]), b=float(coef[1]), a_ci95=cis[0], b_ci95=cis[1], n=int(p.size),
                  ranks_range=(float(p.min()), float(p.max())), **quality)


# ---------------------------------------------------------------------------
# Collectives
# ---------------------------------------------------------------------------


def _prepare_lpy(sizes, ranks, times):
    l = _vector(sizes, "sizes")
    p = _vector(ranks, "ranks")
    y = _vector(times, "times")
    _same_length(sizes=l, ranks=p, times=y)
    if l.size == 0:
        raise ValueError("sizes, ranks and times are empty: nothing to fit")
    _nonnegative(l, "sizes")
    _ranks_ok(p)
    _nonnegative(y, "times")
    return l, p, y


def _broadcast_lp(size_bytes, ranks):
    l = np.asarray(size_bytes, dtype=float)
    p = np.asarray(ranks, dtype=float)
    flat_l = _vector(l.reshape(-1), "size_bytes")
    _nonnegative(flat_l, "size_bytes")
    _ranks_ok(_vector(p.reshape(-1), "ranks"))
    try:
        return np.broadcast_arrays(l, p)
    except ValueError:
        raise ValueError(f"size_bytes (shape {l.shape}) and ranks (shape {p.shape}) do not broadcast") from None


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
        l, p = _broadcast_lp(size_bytes, ranks)
        g = np.log2(p)
        return _scalar_or_array((self.a + self.b * l) * g + self.c + self.d * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "collective", "formula": "T(l, P) = (a + b*l) * log2(P) + c + d*l",
                "a": _num(self.a), "b": _num(self.b), "c": _num(self.c), "d": _num(self.d),
                "a_ci95": _pair_out(self.a_ci95), "b_ci95": _pair_out(self.b_ci95),
                "c_ci95": _pair_out(self.c_ci95), "d_ci95": _pair_out(self.d_ci95),
                "per_ranks": [dict(ranks=int(p), **seg.to_dict()) for p, seg in sorted(self.per_ranks.items())],
                **_quality_out(self), "bytes_range": range_out(self.bytes_range),
                "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "CollectiveFit":
        """Inverse of :meth:`to_dict`."""
        per_ranks = {int(item["ranks"]): Segment.from_dict(item) for item in data.get("per_ranks", [])}
        return cls(a=_unnum(data["a"]), b=_unnum(data["b"]), c=_unnum(data["c"]), d=_unnum(data["d"]),
                   a_ci95=_pair_in(data.get("a_ci95")), b_ci95=_pair_in(data.get("b_ci95")),
                   c_ci95=_pair_in(data.get("c_ci95")), d_ci95=_pair_in(data.get("d_ci95")),
                   per_ranks=per_ranks, bytes_range=range_in(data.get("bytes_range")),
                   ranks_range=range_in(data.get("ranks_range")), noise=_noise_in(data), **_quality_in(data))


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
    l, p, y = _prepare_lpy(sizes, ranks, times)
    n_ranks, n_sizes = np.unique(p).size, np.unique(l).size
    if n_ranks < 2 or n_sizes < 2 or l.size < 4:
        raise ValueError(f"too few points: fit_collective needs at least 2 distinct sizes at each of at least "
                         f"2 distinct rank counts (got {n_sizes} size(s), {n_ranks} rank count(s), "
                         f"{l.size} sample(s))")
    spread = None if spreads is None else _spreads(spreads, l.size)
    w, disturbed = _judged_weights(l, p, y, weighting, spread)
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
            per_ranks[int(P)] = _fit_line_segment(l[sel], y[sel], w[sel], judged=spread is not None)
    quality = _judged_quality(l, p, y, yhat, spread, disturbed, np.unique(np.column_stack([l, p]), axis=0).shape[0],
                              ("a", "b", "c", "d"), held, unit="B", group_name="P")
    return CollectiveFit(a=float(coef[0]), b=float(coef[1]), c=float(coef[2]), d=float(coef[3]),
                         a_ci95=cis[0], b_ci95=cis[1], c_ci95=cis[2], d_ci95=cis[3], n=int(l.size),
                         per_ranks=per_ranks, bytes_range=(float(l.min()), float(l.max())),
                         ranks_range=(float(p.min()), float(p.max())), **quality)


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
        object.__setattr__(self, "bandwidth_MBps", _bandwidth(self.d))
        for name in ("flags", "bytes_range", "ranks_range", "noise"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def predict(self, size_bytes, ranks):
        """Predicted microseconds; ``size_bytes`` (per rank) and ``ranks`` broadcast together."""
        l, p = _broadcast_lp(size_bytes, ranks)
        return _scalar_or_array(self.c + self.d * p * l)

    def to_dict(self) -> Dict[str, Any]:
        """A JSON-serialisable dict (non-finite numbers become ``None``)."""
        return {"type": "allgather", "formula": "T(l, P) = c + d * P * l",
                "c": _num(self.c), "d": _num(self.d), "c_ci95": _pair_out(self.c_ci95),
                "d_ci95": _pair_out(self.d_ci95), "bandwidth_MBps": _num(self.bandwidth_MBps),
                **_quality_out(self), "bytes_range": range_out(self.bytes_range),
                "ranks_range": range_out(self.ranks_range)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AllgatherFit":
        """Inverse of :meth:`to_dict` (``bandwidth_MBps`` is recomputed)."""
        return cls(c=_unnum(data["c"]), d=_unnum(data["d"]), c_ci95=_pair_in(data.get("c_ci95")),
                   d_ci95=_pair_in(data.get("d_ci95")), bytes_range=range_in(data.get("bytes_range")),
                   ranks_range=range_in(data.get("ranks_range")), noise=_noise_in(data), **_quality_in(data))


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
    l, p, y = _prepare_lpy(sizes, ranks, times)
    total = p * l
    if np.unique(total).size < 2:
        raise ValueError(f"too few points: fit_allgather needs at least 2 distinct result sizes P*l, "
                         f"got {np.unique(total).size} in {l.size} sample(s)")
    spread = None if spreads is None else _spreads(spreads, l.size)
    w, disturbed = _judged_weights(l, p, y, weighting, spread)
    X = np.column_stack([np.ones_like(total), total])
    coef, cis, _, held = nonnegative_wls(X, y, w)
    yhat = X @ coef
    quality = _judged_quality(l, p, y, yhat, spread, disturbed, np.unique(total).size, ("c", "d"), held,
                              unit="B", group_name="P")
    return AllgatherFit(c=float(coef[0]), d=float(coef[1]), c_ci95=cis[0], d_ci95=cis[1], n=int(l.size),
                        bytes_range=(float(l.min()), float(l.max())), ranks_range=(float(p.min()), float(p.max())),
                        **quality)


# ---------------------------------------------------------------------------
# LogGP from a ping-pong
# ---------------------------------------------------------------------------


def loggp_from_pingpong(sizes, times, *, max_breakpoints: int = 2, min_points: int = 3,
                        weighting: str = "relative") -> Dict[str, Any]:
    """LogGP parameters that a ping-pong can measure.

    ``times`` are one-way times (half the round trip), which LogGP models as
    ``L + 2 o + (k - 1) G`` for a ``k``-byte message. A ping-pong therefore
    measures only:

    * ``L_plus_2o_us``: latency plus send and receive overhead, the one-way
      time of a 1-byte message on the small-message segment (``t0 + G_small``;
      its interval is that of ``t0``);
    * ``G_us_per_byte``: the time per byte for long messages, the slope of the
      largest-message segment (and ``bandwidth_MBps = 1 / G``).

    It does **not** measure ``L`` and ``o`` separately (that needs the time a
    send or receive keeps the processor busy, e.g. by overlapping computation),
    nor the gap ``g`` between consecutive small messages (that needs a stream
    of back-to-back sends, a message-rate test), nor whether ``G`` is set by
    the sender, the network or the receiver. With protocol breakpoints a single
    LogGP line does not describe mid-sized messages; the piecewise fit is
    returned as well.

    Args:
        sizes, times: as for :func:`fit_piecewise_linear`.
        max_breakpoints, min_points, weighting: passed to :func:`fit_piecewise_linear`.

    Returns:
        dict with ``L_plus_2o_us``, ``L_plus_2o_ci95``, ``G_us_per_byte``,
        ``G_ci95``, ``bandwidth_MBps``, ``large_message_t0_us``,
        ``breakpoints_bytes``, ``not_measurable`` (names and why) and ``fit``
        (the :meth:`PiecewiseFit.to_dict`); JSON-serialisable.

    Raises:
        ValueError: as :func:`fit_piecewise_linear`.
    """
    fit = fit_piecewise_linear(sizes, times, max_breakpoints=max_breakpoints, min_points=min_points,
                               weighting=weighting)
    small, large = fit.segments[0], fit.segments[-1]
    l2o = small.t0_us + small.us_per_byte
    half = max(abs(small.t0_ci95[1] - small.t0_us), 0.0) if math.isfinite(small.t0_ci95[1]) else math.nan
    return {
        "L_plus_2o_us": _num(l2o),
        "L_plus_2o_ci95": _pair_out((l2o - half, l2o + half)),
        "G_us_per_byte": _num(large.us_per_byte),
        "G_ci95": _pair_out(large.us_per_byte_ci95),
        "bandwidth_MBps": _num(large.bandwidth_MBps),
        "large_message_t0_us": _num(large.t0_us),
        "breakpoints_bytes": list(fit.breakpoints_bytes),
        "not_measurable": {
            "L": "only L + 2o is seen: splitting it needs the send/receive overhead o measured on its own",
            "o": "the overhead of a send or receive needs a test that overlaps computation with communication",
            "g": "the gap between consecutive small messages needs a message-rate (streaming) test",
        },
        "fit": fit.to_dict(),
    }


# ---------------------------------------------------------------------------
# Whole results documents
# ---------------------------------------------------------------------------


def _spread_of(row: Mapping[str, Any]) -> float:
    """Half the width of a row's 95 % interval of its median (NaN where it has none)."""
    try:
        lo, hi = (float(v) for v in row["ci95_us"])
    except (KeyError, TypeError, ValueError):
        return math.nan
    return (hi - lo) / 2 if math.isfinite(lo) and math.isfinite(hi) and hi >= lo else math.nan


def _rows_xy(rows, need_bytes: bool, need_ranks: bool, kernel: str, notes: List[str]):
    """(bytes, ranks, medians, spreads) of the usable rows."""
    b, p, t, s = [], [], [], []
    dropped = 0
    for row in rows:
        if not isinstance(row, Mapping):
            dropped += 1
            continue
        try:
            median = float(row["median_us"])
            size = float(row.get("bytes", 0) if not need_bytes else row["bytes"])
            ranks = float(row["ranks"]) if need_ranks else float(row.get("ranks", 1) or 1)
        except (KeyError, TypeError, ValueError):
            dropped += 1
            continue
        if not (math.isfinite(median) and math.isfinite(size) and math.isfinite(ranks)):
            dropped += 1
            continue
        b.append(size)
        p.append(ranks)
        t.append(median)
        s.append(_spread_of(row))
    if dropped:
        notes.append(f"{kernel}: {dropped} row(s) without usable bytes/ranks/median_us ignored")
    return tuple(np.array(v, dtype=float) for v in (b, p, t, s))


def _key(kernel: str, params: Mapping[str, Any]) -> str:
    if not params:
        return kernel
    inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{kernel}[{inner}]"


def _fit_entry(family: str, kernel: str, rows, notes: List[str], max_breakpoints: int, min_points: int,
               weighting: str, hold: bool = True) -> Dict[str, Any]:
    """Fits one benchmark entry; raises ValueError when it cannot."""
    b, p, t, s = _rows_xy(rows, need_bytes=family != "log2", need_ranks=family != "piecewise", kernel=kernel,
                          notes=notes)
    if t.size == 0:
        raise ValueError("no rows with a median_us")
    distinct_p = np.unique(p)
    if family == "piecewise":
        if distinct_p.size <= 1:
            fit = fit_piecewise_linear(b, t, max_breakpoints, min_points, weighting=weighting,
                                       hold_small_bandwidth=hold, spreads=s)
            return {"model": "piecewise", "ranks": [int(x) for x in distinct_p], "fit": fit.to_dict()}
        fits = {}
        for P in distinct_p:
            sel = p == P
            try:
                fits[str(int(P))] = fit_piecewise_linear(b[sel], t[sel], max_breakpoints, min_points,
                                                         weighting=weighting, hold_small_bandwidth=hold,
                                                         spreads=s[sel]).to_dict()
            except ValueError as exc:
                notes.append(f"{kernel}: not fitted at {int(P)} ranks: {exc}")
        if not fits:
            raise ValueError("no rank count has enough sizes for a piecewise fit")
        return {"model": "piecewise_by_ranks", "ranks": [int(x) for x in distinct_p], "fits": fits}
    if family == "log2":
        return {"model": "log2", "fit": fit_barrier(p, t, weighting=weighting, spreads=s).to_dict()}
    distinct_b = np.unique(b)
    if family == "collective" and distinct_p.size == 1:
        # One rank count: the log2 P terms are constants, and T(l) is piecewise as a message's time.
        # (Concatenation keeps its model: its time per byte grows with P, which predictions use.)
        notes.append(f"{kernel}: one rank count only ({int(distinct_p[0])}), fitted T(l) at that rank count")
        fit = fit_piecewise_linear(b, t, max_breakpoints, min_points, weighting=weighting, spreads=s)
        return {"model": "piecewise", "ranks": [int(x) for x in distinct_p], "fit": fit.to_dict()}
    if family == "collective":
        if distinct_b.size >= 2:
            return {"model": "collective", "fit": fit_collective(b, p, t, weighting=weighting, spreads=s).to_dict()}
        notes.append(f"{kernel}: one message size only, fitted a*log2(P) + b")
        return {"model": "log2", "fit": fit_barrier(p, t, weighting=weighting, spreads=s).to_dict()}
    if family == "allgather":
        return {"model": "allgather", "fit": fit_allgather(b, p, t, weighting=weighting, spreads=s).to_dict()}
    raise ValueError(f"unknown model family {family!r}")


def _piecewise_dicts(entry: Mapping[str, Any]) -> List[Tuple[str, Dict[str, Any]]]:
    """(rank-count label, piecewise fit dict) of a fitted entry; [] for other models."""
    if entry.get("model") == "piecewise":
        return [("", entry["fit"])]
    if entry.get("model") == "piecewise_by_ranks":
        return [(f"P={rank}", fit) for rank, fit in sorted(entry["fits"].items(), key=lambda kv: int(kv[0]))]
    return []


def _flag_above_memcpy(fit: Dict[str, Any], memcpy: PiecewiseFit) -> None:
    """Flags, in place, each segment of a piecewise fit dict whose bandwidth is
    above what memcpy reaches at the same sizes (the fastest memcpy segment
    among those covering the segment's sizes): moving bytes between ranks
    cannot beat copying them, so such a slope is noise or a model that does
    not fit. The bandwidth is kept as fitted."""
    for seg in fit["segments"]:
        slope = _unnum(seg.get("us_per_byte"))
        if not slope >= 0:
            continue
        lo, hi = memcpy.segment_index([float(seg["start_bytes"]), float(seg["end_bytes"])])
        fastest = max(memcpy.segments[i].bandwidth_MBps for i in range(int(lo), int(hi) + 1))
        bandwidth = _bandwidth(slope)
        if bandwidth > fastest:
            shown = "unbounded" if math.isinf(bandwidth) else f"{bandwidth:.0f} MB/s"
            flag = f"bandwidth {shown} above memcpy's {fastest:.0f} MB/s at these sizes"
            seg["flags"] = list(seg.get("flags") or []) + [flag]
            fit["flags"] = list(fit.get("flags") or []) + [
                f"segment {seg['start_bytes']}-{seg['end_bytes']} B: {flag}"]


def _fit_lines(model: Mapping[str, Any], field: str) -> List[Tuple[str, List[str]]]:
    """``(name, lines)`` of every fit of a model document whose ``field`` is not empty."""
    out = []
    models = model.get("models") if isinstance(model, Mapping) else None
    for key, entry in sorted((models or {}).items()):
        if not isinstance(entry, Mapping):
            continue
        fits = [("", entry.get("fit"))] if "fit" in entry else [
            (f" at P={rank}", fit) for rank, fit in sorted((entry.get("fits") or {}).items(), key=lambda kv: str(kv[0]))]
        for suffix, fit in fits:
            lines = fit.get(field) if isinstance(fit, Mapping) else None
            if lines:
                out.append((f"{key}{suffix}", [str(f) for f in lines]))
    return out


def flagged_fits(model: Mapping[str, Any]) -> List[Tuple[str, List[str]]]:
    """``(name, flags)`` of every fit of a :func:`fit_results` document that is
    below the quality threshold, in key order; the name is the model key, with
    ``at P=...`` for point-to-point fits per rank count."""
    return _fit_lines(model, "flags")


def noise_notes(model: Mapping[str, Any]) -> List[Tuple[str, List[str]]]:
    """``(name, notes)`` of every fit whose measured spreads say something the flags
    do not (disturbed sizes, a noisy run: :attr:`PiecewiseFit.noise`), named as by
    :func:`flagged_fits`."""
    return _fit_lines(model, "noise")


def fit_results(results: Mapping[str, Any], *, max_breakpoints: int = 2, min_points: int = 3,
                weighting: str = "relative") -> Dict[str, Any]:
    """Fit every kernel of a ``datamotion.bench/1`` results document.

    Each entry of ``results["results"]`` is fitted with the family that
    :data:`KERNEL_MODELS` gives its kernel, from one point per row
    (``bytes``, ``ranks``, ``median_us``). Kernels without a model, and
    entries that cannot be fitted (too few rows, ...), are skipped with a
    note; they never raise.

    Args:
        results: the parsed JSON document.
        max_breakpoints, min_points: for the piecewise fits (the kernels of
            :data:`CACHE_KERNELS` get at least ``CACHE_BREAKPOINTS``).
        weighting: ``"relative"`` (default) or ``"uniform"``.

    Returns:
        A JSON-serialisable dict: ``schema`` (``datamotion.model/1``),
        ``source_schema``, ``provenance`` (copied), ``models`` (key -> entry
        with ``kernel``, ``params``, ``model`` (family actually fitted),
        ``rows`` and ``fit`` or, for point-to-point kernels measured at several
        rank counts, ``fits`` keyed by rank count), ``skipped`` (key ->
        reason), ``notes`` and ``quality`` (the thresholds applied). Every
        fit and segment has ``flags`` (:func:`flagged_fits` lists them); with
        a ``memcopy`` entry, each piecewise segment of another kernel whose
        bandwidth is above memcpy's at the same sizes is flagged. The key is the kernel name, or
        ``kernel[param=value,...]`` when a kernel appears more than once.

    Raises:
        ValueError: if ``results`` is not a mapping with a ``results`` list.
    """
    if not isinstance(results, Mapping):
        raise ValueError(f"results must be the parsed results document (a dict), got {type(results).__name__}")
    entries = results.get("results")
    if not isinstance(entries, list):
        raise ValueError("results document has no 'results' list")
    notes: List[str] = []
    schema = results.get("schema")
    if schema != RESULTS_SCHEMA:
        notes.append(f"schema is {schema!r}, expected {RESULTS_SCHEMA!r}; fitted anyway")
    names = [e.get("kernel") if isinstance(e, Mapping) else None for e in entries]
    counts = {name: names.count(name) for name in names}
    models: Dict[str, Any] = {}
    skipped: Dict[str, str] = {}
    for index, entry in enumerate(entries):
        kernel = names[index]
        if not isinstance(kernel, str):
            key = f"#{index}"
            skipped[key] = "entry without a kernel name"
            notes.append(f"entry {index}: no kernel name, skipped")
            continue
        params = entry.get("params") or {}
        if not isinstance(params, Mapping):
            params = {"params": str(params)}
        key = _key(kernel, params) if counts[kernel] > 1 else kernel
        base = key
        suffix = 2
        while key in models or key in skipped:
            key = f"{base}#{suffix}"
            suffix += 1
        family = KERNEL_MODELS.get(kernel)
        if family is None:
            skipped[key] = "no model for this kernel"
            notes.append(f"{key}: no model for kernel {kernel!r}, skipped")
            continue
        rows = entry.get("rows")
        if not isinstance(rows, list):
            skipped[key] = "entry without a 'rows' list"
            notes.append(f"{key}: no 'rows' list, skipped")
            continue
        breakpoints = max(max_breakpoints, CACHE_BREAKPOINTS) if kernel in CACHE_KERNELS else max_breakpoints
        try:
            fitted = _fit_entry(family, key, rows, notes, breakpoints, min_points, weighting,
                                hold=kernel not in LOCAL_KERNELS)
        except ValueError as exc:
            skipped[key] = str(exc)
            notes.append(f"{key}: not fitted: {exc}")
            continue
        models[key] = {"kernel": kernel, "params": dict(params), "rows": len(rows), **fitted}
    memcpy = next((fit for entry in models.values() if entry["kernel"] == "memcopy"
                   for _, fit in _piecewise_dicts(entry)), None)
    if memcpy is not None:
        reference = PiecewiseFit.from_dict(memcpy)
        for entry in models.values():
            if entry["kernel"] not in ("memcopy",) + LOCAL_KERNELS:
                for _, fit in _piecewise_dicts(entry):
                    _flag_above_memcpy(fit, reference)
    else:
        notes.append("no memcopy entry: bandwidths not compared with memcpy's")
    return {"schema": MODEL_SCHEMA, "source_schema": schema, "provenance": results.get("provenance"),
            "models": models, "skipped": skipped, "notes": notes,
            "quality": {"min_r2": FIT_MIN_R2, "r2_min_points": FIT_R2_MIN_POINTS,
                        "max_relative_rmse": FIT_MAX_RELATIVE_RMSE, "bandwidth_at_most": "memcopy"}}
