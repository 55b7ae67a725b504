"""The values going into and out of the fits: arguments checked (finite numbers,
non-negative sizes and times, rank counts of at least 1, equal lengths), and numbers
to and from strict JSON (NaN and infinities as ``null``, byte counts as ints)."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np


def as_numbers(values: Any, name: str) -> np.ndarray:
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


def check_nonnegative(arr: np.ndarray, name: str) -> None:
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise ValueError(f"{name} must be non-negative, got {arr[bad[0]]:g} at index {bad[0]}")


def check_ranks(arr: np.ndarray, name: str = "ranks") -> None:
    bad = np.flatnonzero(arr < 1)
    if bad.size:
        raise ValueError(f"{name} must be at least 1 (log2 of the rank count is taken), "
                         f"got {arr[bad[0]]:g} at index {bad[0]}")


def same_length(**arrays: np.ndarray) -> int:
    lengths = {name: arr.size for name, arr in arrays.items()}
    if len(set(lengths.values())) != 1:
        listing = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length: {listing}")
    return next(iter(lengths.values()))


def num(value: float) -> Optional[float]:
    """A float for strict JSON: None for NaN and infinities."""
    value = float(value)
    return value if math.isfinite(value) else None


def unnum(value: Optional[float]) -> float:
    return math.nan if value is None else float(value)


def pair_out(pair: Tuple[float, float]) -> List[Optional[float]]:
    return [num(pair[0]), num(pair[1])]


def pair_in(pair: Optional[Sequence[Optional[float]]]) -> Tuple[float, float]:
    if pair is None:
        return (math.nan, math.nan)
    return (unnum(pair[0]), unnum(pair[1]))


def bytes_value(v: float):
    """Sizes that are whole numbers are kept as ints (they are byte counts)."""
    v = float(v)
    return int(v) if v.is_integer() else v


def scalar_or_array(out: np.ndarray):
    return float(out) if np.ndim(out) == 0 else out


def range_out(pair: Tuple[float, float]) -> List[Any]:
    return [bytes_value(pair[0]), bytes_value(pair[1])] if pair else []


def range_in(pair) -> Tuple[float, ...]:
    return (float(pair[0]), float(pair[1])) if isinstance(pair, (list, tuple)) and len(pair) == 2 else ()


def quality_out(fit) -> Dict[str, Any]:
    """The goodness-of-fit fields every fit and segment writes to JSON (``noise`` only
    where a whole fit has notes from its measured spreads)."""
    return {"r2": num(fit.r2), "rmse_us": num(fit.rmse_us), "n": int(fit.n),
            "relative_rmse": num(fit.relative_rmse), "max_relative_residual": num(fit.max_relative_residual),
            "flags": list(fit.flags), **({"noise": list(fit.noise)} if getattr(fit, "noise", ()) else {})}


def quality_in(data: Mapping[str, Any]) -> Dict[str, Any]:
    """The keyword arguments :func:`quality_out` wrote (inverse of it)."""
    return {"r2": unnum(data.get("r2")), "rmse_us": unnum(data.get("rmse_us")), "n": int(data.get("n", 0)),
            "relative_rmse": unnum(data.get("relative_rmse")),
            "max_relative_residual": unnum(data.get("max_relative_residual")),
            "flags": tuple(str(f) for f in data.get("flags") or ())}


def noise_in(data: Mapping[str, Any]) -> Tuple[str, ...]:
    """The ``noise`` notes :func:`quality_out` wrote for a whole fit."""
    return tuple(str(n) for n in data.get("noise") or ())


def bandwidth_of(us_per_byte: float) -> float:
    return 1.0 / us_per_byte if us_per_byte > 0 else math.inf


def prepare_lpy(sizes, ranks, times):
    l = as_numbers(sizes, "sizes")
    p = as_numbers(ranks, "ranks")
    y = as_numbers(times, "times")
    same_length(sizes=l, ranks=p, times=y)
    if l.size == 0:
        raise ValueError("sizes, ranks and times are empty: nothing to fit")
    check_nonnegative(l, "sizes")
    check_ranks(p)
    check_nonnegative(y, "times")
    return l, p, y


def broadcast_lp(size_bytes, ranks):
    l = np.asarray(size_bytes, dtype=float)
    p = np.asarray(ranks, dtype=float)
    flat_l = as_numbers(l.reshape(-1), "size_bytes")
    check_nonnegative(flat_l, "size_bytes")
    check_ranks(as_numbers(p.reshape(-1), "ranks"))
    try:
        return np.broadcast_arrays(l, p)
    except ValueError:
        raise ValueError(f"size_bytes (shape {l.shape}) and ranks (shape {p.shape}) do not broadcast") from None

