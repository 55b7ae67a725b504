"""Predicted times from a fitted model document (``datamotion.model/1``).

Pure Python and NumPy, no MPI: a model fitted on a cluster predicts anywhere."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .fit import AllgatherFit, CollectiveFit, LogFit, PiecewiseFit

__all__ = ["predict"]

_FIT_TYPES = {"piecewise": PiecewiseFit, "log2": LogFit, "collective": CollectiveFit, "allgather": AllgatherFit}


def _lookup(model: Mapping[str, Any], kernel: str) -> Mapping[str, Any]:
    models = model.get("models") if isinstance(model, Mapping) else None
    if not isinstance(models, Mapping):
        raise ValueError("model must be the dict that fit_results returned (no 'models' in it)")
    if kernel in models:
        return models[kernel]
    matches = [key for key, entry in models.items() if entry.get("kernel") == kernel]
    if len(matches) == 1:
        return models[matches[0]]
    if matches:
        raise ValueError(f"kernel {kernel!r} was fitted more than once; pick one of {sorted(matches)}")
    reason = model.get("skipped", {}).get(kernel)
    why = f" (skipped: {reason})" if reason else ""
    raise ValueError(f"no model for kernel {kernel!r}{why}; fitted: {sorted(models)}")


def predict(model: Mapping[str, Any], kernel: str, size_bytes=None, ranks=None):
    """Predicted microseconds for ``kernel`` from a :func:`fit_results` document.

    Args:
        model: what :func:`fit_results` returned (or that, through JSON).
        kernel: a key of ``model["models"]`` or a kernel name fitted once.
        size_bytes: message size(s) in bytes; needed by every model but the
            barrier's.
        ranks: rank count(s); needed by the barrier and collective models and
            by point-to-point kernels fitted per rank count.

    Returns:
        A float, or an array when an argument is an array.

    Raises:
        ValueError: for an unknown kernel or a missing argument.
    """
    entry = _lookup(model, kernel)
    family = entry.get("model")
    if family == "piecewise_by_ranks":
        if ranks is None:
            raise ValueError(f"{kernel}: fitted per rank count {entry.get('ranks')}: give ranks=")
        key = str(int(ranks)) if np.ndim(ranks) == 0 else None
        if key is None or key not in entry["fits"]:
            raise ValueError(f"{kernel}: no fit at ranks={ranks!r}; fitted at {sorted(entry['fits'], key=int)}")
        family, data = "piecewise", entry["fits"][key]
    else:
        data = entry.get("fit")
    if family not in _FIT_TYPES or not isinstance(data, Mapping):
        raise ValueError(f"{kernel}: unknown model {family!r}")
    fit = _FIT_TYPES[family].from_dict(data)
    if family == "log2":
        if ranks is None:
            raise ValueError(f"{kernel}: the {family} model needs ranks=")
        return fit.predict(ranks)
    if size_bytes is None:
        raise ValueError(f"{kernel}: the {family} model needs size_bytes=")
    if family == "piecewise":
        return fit.predict(size_bytes)
    if ranks is None:
        raise ValueError(f"{kernel}: the {family} model needs ranks=")
    return fit.predict(size_bytes, ranks)
