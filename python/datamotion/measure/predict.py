"""Predicted times from a fitted model document (``datamotion.model/1``).

Pure Python and NumPy, no MPI: a model fitted on a cluster predicts anywhere.

:func:`predict` returns the time alone (what programs that sum predicted times
want); :func:`prediction` returns it with what a reader must know about it:
the quality flags of the model used, and whether the size or rank count lies
outside the measured range (an extrapolation). Neither ever returns a
negative or NaN time: a model whose parameters are physical cannot give one,
and a document written otherwise (by hand, or by an older version) is clamped
at 0 with a flag saying so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple

import numpy as np

from .fit import AllgatherFit, CollectiveFit, LogFit, PiecewiseFit

__all__ = ["predict", "prediction", "Prediction"]

_FIT_TYPES = {"piecewise": PiecewiseFit, "log2": LogFit, "collective": CollectiveFit, "allgather": AllgatherFit}


@dataclass(frozen=True)
class Prediction:
    """A predicted time and what a reader must know about it.

    Attributes:
        value_us: microseconds, ``>= 0`` and finite: a float, or an array when
            an argument was one.
        kernel: the model key used.
        flags: the model's quality flags (why it is below the threshold),
            plus a note when a negative time was clamped at 0; empty when the
            model is fine.
        outside: the measured ranges the arguments fall outside of, e.g.
            ``("8-1048576 bytes",)``; empty within the measured range.
        gaps: the unmeasured gaps between two segments that a size falls in,
            e.g. ``("4096-32768 bytes",)``: the switch from one segment's line
            to the next lies somewhere in such a gap, so either line may be
            wrong there; empty when every size is at or beside a measured one.
    """

    value_us: Any
    kernel: str
    flags: Tuple[str, ...] = ()
    outside: Tuple[str, ...] = ()
    gaps: Tuple[str, ...] = ()

    @property
    def extrapolated(self) -> bool:
        """Whether a size or rank count lies outside the measured range."""
        return bool(self.outside)

    def note(self) -> str:
        """``(extrapolated: outside the measured range A-B bytes)``, ``(inside the
        unmeasured gap A-B bytes between two segments)``, both, or ``""``."""
        parts = []
        if self.outside:
            parts.append(f"(extrapolated: outside the measured range {' and '.join(self.outside)})")
        if self.gaps:
            parts.append(f"(inside the unmeasured gap {' and '.join(self.gaps)} between two segments: "
                         "the switch between their lines lies somewhere in it)")
        return " ".join(parts)


def _lookup(model: Mapping[str, Any], kernel: str) -> Tuple[str, Mapping[str, Any]]:
    models = model.get("models") if isinstance(model, Mapping) else None
    if not isinstance(models, Mapping):
        raise ValueError("model must be the dict that fit_results returned (no 'models' in it)")
    if kernel in models:
        return kernel, models[kernel]
    matches = [key for key, entry in models.items() if isinstance(entry, Mapping) and entry.get("kernel") == kernel]
    if len(matches) == 1:
        return matches[0], models[matches[0]]
    if matches:
        raise ValueError(f"kernel {kernel!r} was fitted more than once; pick one of {sorted(matches)}")
    reason = model.get("skipped", {}).get(kernel)
    why = f" (skipped: {reason})" if reason else ""
    raise ValueError(f"no model for kernel {kernel!r}{why}; fitted: {sorted(models)}")


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _outside(values, measured: Sequence[float], unit: str) -> Optional[str]:
    """``"A-B unit"`` when some of ``values`` lie outside ``measured`` (a range), else None."""
    if values is None or len(measured) != 2:
        return None
    v = np.asarray(values, dtype=float)
    lo, hi = float(measured[0]), float(measured[1])
    if np.any(v < lo) or np.any(v > hi):
        return f"{_number_text(lo)}-{_number_text(hi)} {unit}" if hi > lo else f"{_number_text(lo)} {unit}"
    return None


def _gaps(values, fit: PiecewiseFit) -> Tuple[str, ...]:
    """``"A-B bytes"`` for each gap between two segments (A the last size measured
    in one, B the first of the next) that some of ``values`` lie strictly inside."""
    v = np.asarray(values, dtype=float)
    out = []
    for left, right in zip(fit.segments[:-1], fit.segments[1:]):
        lo, hi = float(left.end_bytes), float(right.start_bytes)
        if np.any((v > lo) & (v < hi)):
            out.append(f"{_number_text(lo)}-{_number_text(hi)} bytes")
    return tuple(out)


def _no_negative(size_bytes) -> None:
    if size_bytes is not None and np.any(np.asarray(size_bytes, dtype=float) < 0):
        raise ValueError(f"size_bytes must be non-negative, got {size_bytes!r}")


def prediction(model: Mapping[str, Any], kernel: str, size_bytes=None, ranks=None) -> Prediction:
    """Predicted microseconds for ``kernel`` with the model's flags and whether
    the arguments lie outside the measured range.

    Args: as :func:`predict`.

    Returns:
        Prediction: ``value_us`` (never negative, never NaN), ``flags``,
        ``outside``, ``gaps`` and :meth:`Prediction.note`.

    Raises:
        ValueError: for an unknown or ambiguous kernel, a missing or negative
            argument, or a model without usable parameters.
    """
    key, entry = _lookup(model, kernel)
    if not isinstance(entry, Mapping):
        raise ValueError(f"{key}: the model entry is not a table")
    _no_negative(size_bytes)
    family = entry.get("model")
    outside = []
    gaps: Tuple[str, ...] = ()
    if family == "piecewise_by_ranks":
        fits = entry.get("fits") if isinstance(entry.get("fits"), Mapping) else {}
        if ranks is None:
            raise ValueError(f"{key}: fitted per rank count {entry.get('ranks')}: give ranks=")
        rank_key = str(int(ranks)) if np.ndim(ranks) == 0 else None
        if rank_key is None or rank_key not in fits:
            raise ValueError(f"{key}: no fit at ranks={ranks!r}; fitted at {sorted(fits, key=int)}")
        family, data = "piecewise", fits[rank_key]
    else:
        data = entry.get("fit")
    if family not in _FIT_TYPES or not isinstance(data, Mapping):
        raise ValueError(f"{key}: unknown model {family!r}")
    try:
        fit = _FIT_TYPES[family].from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{key}: the {family} model is incomplete ({exc})") from None
    if family == "log2":
        if ranks is None:
            raise ValueError(f"{key}: the {family} model needs ranks=")
        raw = fit.predict(ranks)
        outside.append(_outside(ranks, fit.ranks_range, "ranks"))
    elif size_bytes is None:
        raise ValueError(f"{key}: the {family} model needs size_bytes=")
    elif family == "piecewise":
        raw = fit.predict(size_bytes)
        outside.append(_outside(size_bytes, (fit.segments[0].start_bytes, fit.segments[-1].end_bytes)
                                if fit.segments else (), "bytes"))
        gaps = _gaps(size_bytes, fit)
    else:
        if ranks is None:
            raise ValueError(f"{key}: the {family} model needs ranks=")
        raw = fit.predict(size_bytes, ranks)
        outside += [_outside(size_bytes, fit.bytes_range, "bytes"), _outside(ranks, fit.ranks_range, "ranks")]
    values = np.asarray(raw, dtype=float)
    if np.any(np.isnan(values)):
        raise ValueError(f"{key}: the model has no finite parameters to predict from")
    flags = tuple(str(f) for f in data.get("flags") or ())
    if np.any(values < 0):  # impossible with constrained parameters; a hand-edited document can have them
        values = np.maximum(values, 0.0)
        flags += ("clamped at 0: the model gives a negative time here",)
    value = float(values) if values.ndim == 0 else values
    return Prediction(value_us=value, kernel=key, flags=flags, outside=tuple(o for o in outside if o), gaps=gaps)


def predict(model: Mapping[str, Any], kernel: str, size_bytes=None, ranks=None):
    """Predicted microseconds for ``kernel`` from a :func:`fit_results` document.

    Args:
        model: what :func:`fit_results` returned (or that, through JSON).
        kernel: a key of ``model["models"]`` or a kernel name fitted once.
        size_bytes: message size(s) in bytes (non-negative); needed by every
            model but the barrier's.
        ranks: rank count(s); needed by the barrier and collective models and
            by point-to-point kernels fitted per rank count.

    Returns:
        A float, or an array when an argument is an array; never negative or
        NaN. :func:`prediction` also says whether the model is flagged and
        whether this is an extrapolation.

    Raises:
        ValueError: for an unknown kernel or a missing argument.
    """
    return prediction(model, kernel, size_bytes=size_bytes, ranks=ranks).value_us
