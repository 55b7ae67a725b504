"""Weighted least squares with 95 % confidence intervals, non-negative coefficients and
quality measures: the numerics every model of :mod:`datamotion.measure.fit` shares.

Pure NumPy, no MPI. Intervals come from the least-squares covariance with Student-t
quantiles (a table up to 30 degrees of freedom, a Cornish-Fisher expansion beyond);
they are NaN where there are no residual degrees of freedom.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from .constants import (FIT_MAX_DISTURBED, FIT_MAX_RELATIVE_RMSE, FIT_MIN_R2, FIT_MISFIT_RUN, FIT_NOISE_FLOOR,
                        FIT_POINT_TOLERANCE, FIT_R2_BELOW_NOISE, FIT_R2_MIN_POINTS, FIT_SPREAD_MULTIPLE)

WEIGHTINGS = ("relative", "uniform")
"""How a fit weights its points: by 1 / T**2 (timing noise grows with the time) or alike."""


# Two-sided 95 % Student-t quantiles t_{0.975}(dof) for dof = 1..30.
_T975 = (
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
    2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
    2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
    2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
    2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
    2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
)
_Z975 = 1.959963984540054


def t975(dof: float) -> float:
    """Student-t 0.975 quantile: exact table for 1..30 degrees of freedom and the
    Cornish-Fisher expansion of Abramowitz & Stegun 26.7.5 beyond (error < 1e-6
    from 30 up); NaN for fewer than one degree of freedom."""
    if not dof >= 1:
        return math.nan
    if dof <= 30 and float(dof).is_integer():
        return _T975[int(dof) - 1]
    z, v = _Z975, float(dof)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160
    return z + g1 / v + g2 / v ** 2 + g3 / v ** 3 + g4 / v ** 4


class RankDeficient(ValueError):
    """The design matrix has fewer independent columns than coefficients: the points
    cannot tell the coefficients apart (too few distinct sizes or rank counts)."""


def wls(X: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares. Returns (coefficients, covariance, weighted SSE, dof).

    Columns are scaled to unit maximum before a QR factorisation, so sizes in
    the gigabytes next to a column of ones are no problem. The covariance is
    ``s^2 (X^T W X)^-1`` with ``s^2 = WSSE / dof`` (NaN when dof is 0)."""
    n, p = X.shape
    scale = np.max(np.abs(X), axis=0)
    scale[scale == 0] = 1.0
    sw = np.sqrt(w)
    A = (X / scale) * sw[:, None]
    b = y * sw
    sv = np.linalg.svd(A, compute_uv=False)
    if sv.size < p or sv[-1] <= 1e-10 * sv[0]:
        raise RankDeficient("the design matrix is rank deficient")
    Q, R = np.linalg.qr(A)
    coef_s = np.linalg.solve(R, Q.T @ b)
    resid = b - A @ coef_s
    wsse = float(resid @ resid)
    dof = n - p
    Rinv = np.linalg.inv(R)
    s2 = wsse / dof if dof > 0 else math.nan
    cov_s = (Rinv @ Rinv.T) * s2
    return coef_s / scale, cov_s / np.outer(scale, scale), wsse, dof


def confidence_interval(value: float, var: float, dof: int) -> Tuple[float, float]:
    """The 95 % interval of an estimate with variance ``var`` and ``dof`` residual degrees
    of freedom (NaN ends when there are none)."""
    half = t975(dof) * math.sqrt(var) if (dof >= 1 and var >= 0) else math.nan
    return (float(value - half), float(value + half))


def feasible(coef: np.ndarray, X: np.ndarray) -> bool:
    """Every coefficient >= 0, up to rounding (judged on the scaled columns)."""
    scaled = coef * np.max(np.abs(X), axis=0)
    tol = 1e-9 * max(float(np.max(np.abs(scaled))), 1e-300)
    return bool(np.all(scaled >= -tol))


def nonnegative_lstsq(A, b, weights=None) -> np.ndarray:
    """``argmin_x sum_i weights_i (A x - b)_i**2`` subject to ``x >= 0``.

    Lawson and Hanson's active-set method (*Solving Least Squares Problems*,
    1974, chapter 23): exact, it ends on the optimum after finitely many
    steps. Weights (default 1) scale the rows by their square roots; the
    columns are scaled to unit norm inside, so the tolerances are relative
    and a column of sizes in the gigabytes next to a column of ones is no
    problem. A coefficient at the bound is exactly 0.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    if A.ndim != 2 or b.shape != (A.shape[0],):
        raise ValueError(f"A must be m x n and b of length m, got shapes {A.shape} and {b.shape}")
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        if w.shape != b.shape or not np.all(w >= 0):
            raise ValueError("weights must be one value >= 0 per row of A")
        sw = np.sqrt(w)
        A, b = A * sw[:, None], b * sw
    m, n = A.shape
    scale = np.linalg.norm(A, axis=0)
    scale[scale == 0] = 1.0
    A = A / scale
    # |A^T r| <= |r| <= |b| with unit columns: a gradient below this is rounding.
    tol = 10 * max(m, n) * np.finfo(float).eps * float(np.linalg.norm(b))
    x = np.zeros(n)
    passive = np.zeros(n, dtype=bool)
    for _ in range(3 * n + 10):  # bounds a cycle that rounding could start
        gradient = A.T @ (b - A @ x)
        if passive.all() or gradient[~passive].max() <= tol:
            break
        passive[np.argmax(np.where(passive, -np.inf, gradient))] = True
        while passive.any():
            z = np.zeros(n)
            z[passive] = np.linalg.lstsq(A[:, passive], b, rcond=None)[0]
            if z[passive].min() > 0:
                x = z
                break
            # Step back towards z until a coefficient reaches 0, and free it from the fit.
            negative = np.flatnonzero(passive & (z <= 0))
            ratios = x[negative] / (x[negative] - z[negative])
            x = x + ratios.min() * (z - x)
            x[negative[np.argmin(ratios)]] = 0.0
            passive &= x > 0
            x[~passive] = 0.0
    return x / scale


def nonnegative_wls(X: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted least squares with every coefficient >= 0.

    The unconstrained solution is kept when it is feasible. Otherwise
    :func:`nonnegative_lstsq` finds the optimum, and the coefficients it holds
    at 0 tell the face of the constraint set it lies on; that face is fitted
    freely for the covariance of its coefficients.

    Returns ``(coef, cis, wsse, held)``: the coefficients; their 95 %
    intervals (a free coefficient's from the fit of its face, the lower end
    clipped at 0; a held one's ``[0, upper end of its unconstrained
    interval]``); the weighted SSE; and ``held``, ``(index, value, ci)`` of
    each coefficient held at 0 with its unconstrained value and interval.

    Raises:
        RankDeficient: when the unconstrained design is rank deficient.
    """
    coef, cov, wsse, dof = wls(X, y, w)
    p = X.shape[1]
    cis_u = [confidence_interval(coef[i], cov[i, i], dof) for i in range(p)]
    if feasible(coef, X):
        return np.maximum(coef, 0.0), [(max(lo, 0.0), hi) if math.isfinite(lo) else (lo, hi) for lo, hi in cis_u], \
            wsse, []
    free = np.flatnonzero(nonnegative_lstsq(X, y, w) > 0)
    c = np.zeros(p)
    cis = [(0.0, max(0.0, hi) if math.isfinite(hi) else hi) for _, hi in cis_u]
    if free.size:
        # A subset of full-rank columns is of full rank: this fit cannot fail.
        cf, cvf, ws, df = wls(X[:, free], y, w)
        c[free] = np.maximum(cf, 0.0)
        for j, i in enumerate(free):
            lo, hi = confidence_interval(cf[j], cvf[j, j], df)
            cis[i] = (max(lo, 0.0) if math.isfinite(lo) else lo, hi)
    else:
        ws = float(np.sum(w * y * y))
    held = [(i, float(coef[i]), cis_u[i]) for i in range(p) if i not in free]
    return c, cis, ws, held


def held_flags(names: Sequence[str], held) -> List[str]:
    """A flag for each coefficient held at 0 whose unconstrained value was
    negative beyond its 95 % interval (or with no interval to tell): the
    model's form does not describe the data there. A value negative within
    its noise is simply 0 and not flagged."""
    flags = []
    for index, value, (_, hi) in held:
        if value < 0 and not (math.isfinite(hi) and hi >= 0):
            flags.append(f"{names[index]} held at 0 (unconstrained fit: {value:.3g})")
    return flags


def residuals(y: np.ndarray, yhat: np.ndarray) -> Tuple[float, float]:
    """(relative RMSE, largest relative residual |y - yhat| / y); times of 0
    are compared with the smallest positive time instead."""
    if not y.size:
        return math.nan, math.nan
    ay = np.abs(y)
    positive = ay[ay > 0]
    floor = positive.min() if positive.size else 1.0
    rel = (y - yhat) / np.maximum(ay, floor)
    return float(math.sqrt(np.mean(rel ** 2))), float(np.max(np.abs(rel)))


def quality_flags(r2: float, relative_rmse: float, distinct: int) -> List[str]:
    """The flags of the quality threshold (constants ``FIT_MIN_R2``,
    ``FIT_R2_MIN_POINTS``, ``FIT_R2_BELOW_NOISE``, ``FIT_MAX_RELATIVE_RMSE``): a low
    r² counts only where the residuals are also above FIT_R2_BELOW_NOISE of the times."""
    flags = []
    if distinct >= FIT_R2_MIN_POINTS and not r2 >= FIT_MIN_R2 and not relative_rmse <= FIT_R2_BELOW_NOISE:
        flags.append(f"r2 {r2:.3f} below {FIT_MIN_R2:g}")
    if relative_rmse > FIT_MAX_RELATIVE_RMSE:
        flags.append(f"relative RMSE {100 * relative_rmse:.3g} % above {100 * FIT_MAX_RELATIVE_RMSE:.3g} %")
    return flags


def fit_quality(y: np.ndarray, yhat: np.ndarray, distinct: int, names: Sequence[str], held) -> Dict[str, Any]:
    """Goodness of fit and flags of a whole model, as keyword arguments of its dataclass."""
    r2 = r_squared(y, yhat)
    relative, worst = residuals(y, yhat)
    return {"r2": r2, "rmse_us": rmse(y, yhat), "relative_rmse": relative, "max_relative_residual": worst,
            "flags": tuple(quality_flags(r2, relative, distinct) + held_flags(names, held))}


def r_squared(y: np.ndarray, yhat: np.ndarray) -> float:
    """The coefficient of determination of ``yhat`` against ``y`` (unweighted)."""
    ss_res = float(np.sum((y - yhat) ** 2))
    ss_tot = float(np.sum((y - np.mean(y)) ** 2))
    tiny = 1e-24 * max(float(np.sum(y ** 2)), 1e-300)
    if ss_tot <= tiny:  # constant data: explained exactly or not at all
        return 1.0 if ss_res <= max(tiny, 1e-24) else 0.0
    return 1.0 - ss_res / ss_tot


def rmse(y: np.ndarray, yhat: np.ndarray) -> float:
    """Root mean square of the residuals, in the units of ``y`` (NaN without points)."""
    return float(math.sqrt(np.mean((y - yhat) ** 2))) if y.size else math.nan


def weights_for(y: np.ndarray, weighting: str, spread=None) -> np.ndarray:
    """Point weights of a fit: ``1 / y**2`` for ``"relative"``, ones for ``"uniform"``.

    With ``spread`` (each time's measured uncertainty, see :func:`spread_judgement`),
    ``"relative"`` weighs a point by ``1 / max(spread, FIT_NOISE_FLOOR * y)**2``
    instead: a time its repetitions disagree on counts for less (NaN spreads count as
    the floor)."""
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    if weighting == "uniform":
        return np.ones_like(y)
    ay = np.abs(y)
    positive = ay[ay > 0]
    if positive.size == 0:
        return np.ones_like(y)
    scale = np.maximum(ay, positive.min())
    if spread is not None:
        scale = _floored(spread, scale)
    return 1.0 / scale ** 2


def _number(v: float) -> str:
    """A size as a user reads it: whole numbers in full (16777216, not 1.67772e+07)."""
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _places(xs: Sequence[float], unit: str) -> str:
    """``64-4096 B`` for a range, ``64 B`` for one place."""
    lo, hi = (_number(v) for v in (min(xs), max(xs)))
    return f"{lo} {unit}" if lo == hi else f"{lo}-{hi} {unit}"


def _floored(spread, y: np.ndarray) -> np.ndarray:
    """The spreads a judgement uses: never below ``FIT_NOISE_FLOOR`` of the time (NaN,
    unknown, is the floor), as in :func:`weights_for`: a median is not known better
    than that however often the timer repeats itself."""
    return np.maximum(np.nan_to_num(np.asarray(spread, dtype=float), nan=0.0), FIT_NOISE_FLOOR * np.abs(y))


def disturbed_times(x: np.ndarray, y: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Which times are *disturbed*: above the time at some larger ``x`` beyond both
    their spreads (``x`` ascending, ``spread`` the half-width of each time's 95 %
    interval, floored as in :func:`_floored`). No time that grows with ``x`` goes
    through both, so one of them is the measurement, not the machine; load makes
    times slower, so the smaller ``x`` is the one set aside."""
    s = _floored(spread, y)
    lowest_later = np.full(x.size, np.inf)  # the lowest upper end of the times at any larger x
    upper = y + s
    for i in range(x.size - 2, -1, -1):
        j = int(np.searchsorted(x, x[i], side="right"))
        if j < x.size:
            lowest_later[i] = np.min(upper[j:])
    return (y - s) > lowest_later


def _span(values: np.ndarray) -> str:
    """``12-90`` for a spread of percentages, ``90`` for one value."""
    lo, hi = f"{values.min():.0f}", f"{values.max():.0f}"
    return lo if lo == hi else f"{lo}-{hi}"


def _listing(xs: Sequence[float], unit: str, most: int = 8) -> str:
    shown = ", ".join(_number(v) for v in xs[:most])
    return f"{shown} {unit}" + (f" and {len(xs) - most} more" if len(xs) > most else "")


def spread_judgement(x: np.ndarray, y: np.ndarray, yhat: np.ndarray, spread: np.ndarray, disturbed: np.ndarray,
                     unit: str = "B") -> Tuple[List[str], List[str]]:
    """Tells a wrong model from noisy times, with each time's measured spread.

    ``x`` ascending (bytes for ``unit="B"``, else rank counts), ``spread`` the
    half-width of each time's 95 % interval (NaN: unknown; floored as in
    :func:`_floored`), ``disturbed`` from :func:`disturbed_times` (passed over).
    A time is *off* its fit when the fit misses it by more than
    ``FIT_SPREAD_MULTIPLE`` spreads and by more than ``FIT_POINT_TOLERANCE`` of the
    time. Noise scatters to both sides; a wrong shape misses a range one way.

    Returns ``(flags, notes)``: a flag for each run of consecutive distinct ``x``
    off the fit on the same side that is ``FIT_MISFIT_RUN`` long, and for 2 or
    more consecutive ``x`` off it, on either side, at either end of the range
    (a bend there has too few sizes beyond it for a segment of its own, and
    predictions beyond the range follow that end). Notes, one line each, name
    the shorter runs, the disturbed times and a noisy run. Disturbed times at more
    than ``FIT_MAX_DISTURBED`` of the sizes are a flag: such times do not grow with
    ``x`` at all, and what is set aside cannot be most of the measurement. The run
    is noted as noisy where its median spread is above ``FIT_POINT_TOLERANCE``:
    then the spreads, not the model, decide what is off."""
    one, many = ("size", "sizes") if unit == "B" else ("rank count", "rank counts")
    s = _floored(spread, y)
    miss = y - yhat
    off = np.abs(miss) > np.maximum(FIT_SPREAD_MULTIPLE * s, FIT_POINT_TOLERANCE * np.abs(y))
    keep = np.flatnonzero(~disturbed)
    runs = []  # (first, last) positions in keep of consecutive off times on one side
    for pos in range(keep.size):
        if not off[keep[pos]]:
            continue
        if runs and runs[-1][1] == pos - 1 and np.sign(miss[keep[pos]]) == np.sign(miss[keep[pos - 1]]):
            runs[-1][1] = pos
        else:
            runs.append([pos, pos])
    # At either end of the range, consecutive off times of either side: a bend the fit cuts
    # through there, with too few sizes beyond it for a segment of its own.
    ends = []
    for step, edge in ((1, 0), (-1, keep.size - 1)):
        pos = edge
        while 0 <= pos < keep.size and off[keep[pos]]:
            pos += step
        if abs(pos - edge) >= 2:
            ends.append(sorted((edge, pos - step)))

    def sizes(first: int, last: int) -> int:
        return np.unique(x[keep[first:last + 1]]).size

    def misses(first: int, last: int) -> Tuple[str, str]:
        run = keep[first:last + 1]
        rel = 100 * np.abs(miss[run]) / np.maximum(np.abs(y[run]), 1e-300)
        return f"{_places(x[run], unit)}", _span(rel)

    flags: List[str] = []
    flagged = np.zeros(keep.size, dtype=bool)
    for first, last in runs:
        if sizes(first, last) >= FIT_MISFIT_RUN:
            where, by = misses(first, last)
            side = "above" if miss[keep[first]] > 0 else "below"
            flags.append(f"times at {where} all {side} the fit by {by} % ({sizes(first, last)} {many} in a row, "
                         "beyond their measured spread): the model's shape does not follow them")
            flagged[first:last + 1] = True
    for first, last in ends:
        if sizes(first, last) >= 2 and not flagged[first:last + 1].all():
            where, by = misses(first, last)
            which = "smallest" if first == 0 else "largest"
            flags.append(f"times at {where}, the {sizes(first, last)} {which} {many}, off the fit by {by} % (beyond "
                         "their measured spread): the model does not follow that end of the range")
            flagged[first:last + 1] = True
    short = []
    for first, last in runs:
        if not flagged[first:last + 1].any():
            where, by = misses(first, last)
            short.append(f"{where} ({'+' if miss[keep[first]] > 0 else '-'}{by} %)")
    notes: List[str] = []
    if short:
        notes.append(f"off the fit beyond their spread, too few in a row to be its shape: {', '.join(short)}")
    distinct = np.unique(x).size
    if np.unique(x[disturbed]).size > FIT_MAX_DISTURBED * distinct:
        flags.append(f"times at {np.unique(x[disturbed]).size} of {distinct} {many} lie above a larger {one}'s "
                     f"beyond both intervals: they do not grow with the {one}, too disturbed to judge the model; "
                     "measure again on a quieter machine")
    elif np.any(disturbed):
        notes.append(f"disturbed times at {_listing(x[disturbed], unit)}: above the time of a larger {one} beyond "
                     "both intervals (load), weighed as nothing and not judged")
    relative = s[s > 0] / np.maximum(np.abs(y[s > 0]), 1e-300)
    if relative.size and np.median(relative) > FIT_POINT_TOLERANCE:
        notes.append(f"noisy: the medians' 95 % intervals are +-{100 * np.median(relative):.0f} % (median over the "
                     "points), so the parameters are loose; a quieter run tightens them")
    return flags, notes


