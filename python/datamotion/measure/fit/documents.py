"""Whole results documents: every kernel of a ``datamotion.bench/1`` document fitted
with its model family (:func:`fit_results`), and the flags and noise notes of the
fitted document listed (:func:`flagged_fits`, :func:`noise_notes`)."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Tuple

import numpy as np

from ..constants import (CACHE_BREAKPOINTS, FIT_MAX_RELATIVE_RMSE, FIT_MIN_R2, FIT_R2_MIN_POINTS, MODEL_SCHEMA,
                         RESULTS_SCHEMA)
from .allgather import fit_allgather
from .barrier import fit_barrier
from .codec import bandwidth_of, unnum
from .collective import fit_collective
from .piecewise import PiecewiseFit, fit_piecewise_linear

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
working set or an array length; a slope of theirs faster than memcpy's is flagged as
no bandwidth (their time does not grow with the working set there)."""


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


def _flag_above_memcpy(fit: Dict[str, Any], memcpy: PiecewiseFit, local: bool = False) -> None:
    """Flags, in place, each segment of a piecewise fit dict whose bandwidth is
    above what memcpy reaches at the same sizes (the fastest memcpy segment
    among those covering the segment's sizes): moving bytes between ranks
    cannot beat copying them, so such a slope is noise or a model that does
    not fit. For a ``local`` kernel (its bytes a working set) such a rate means
    its time does not grow with the working set there: no bandwidth to read.
    The bandwidth is kept as fitted."""
    for seg in fit["segments"]:
        slope = unnum(seg.get("us_per_byte"))
        if not slope >= 0:
            continue
        lo, hi = memcpy.segment_index([float(seg["start_bytes"]), float(seg["end_bytes"])])
        fastest = max(memcpy.segments[i].bandwidth_MBps for i in range(int(lo), int(hi) + 1))
        bandwidth = bandwidth_of(slope)
        if bandwidth > fastest:
            shown = "unbounded" if math.isinf(bandwidth) else f"{bandwidth:.0f} MB/s"
            flag = f"bandwidth {shown} above memcpy's {fastest:.0f} MB/s at these sizes"
            if local:
                flag += ": its time does not grow with its working set here, so this is no bandwidth"
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
            if entry["kernel"] != "memcopy":
                for _, fit in _piecewise_dicts(entry):
                    _flag_above_memcpy(fit, reference, local=entry["kernel"] in LOCAL_KERNELS)
    else:
        notes.append("no memcopy entry: bandwidths not compared with memcpy's")
    return {"schema": MODEL_SCHEMA, "source_schema": schema, "provenance": results.get("provenance"),
            "models": models, "skipped": skipped, "notes": notes,
            "quality": {"min_r2": FIT_MIN_R2, "r2_min_points": FIT_R2_MIN_POINTS,
                        "max_relative_rmse": FIT_MAX_RELATIVE_RMSE, "bandwidth_at_most": "memcopy"}}

