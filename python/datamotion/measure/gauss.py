"""Predicting a program's time from measured primitives (the CM-5 paper, section 8).

The paper estimates a row-block Gaussian elimination with partial pivoting
(its Figure 16, ``examples/c/gauss_elimination.c`` here) from the measured
cost of each operation one iteration performs, and compares the estimate with
the program's run (its Tables 6 and 7). This module does the same from a fitted
machine model:

* :func:`measure_primitives` measures exactly what the program uses, on the
  program's ranks: ``MPI_Allreduce`` of one double, ``MPI_Bcast`` of a pivot
  row of ``(N + 1) * 8`` bytes, and the vector operation ``a = s*b + c`` in
  float64 (an axpy, the row update) at the row lengths that occur, run on all
  ranks at once as the program's compute phase is.
* :func:`primitive_model` fits that ``datamotion.bench/1`` document into a
  ``datamotion.model/1`` document (:func:`datamotion.measure.fit.fit_results`, plus
  the line ``T(L) = t0 + L / R`` of the vector operation).
* :func:`gauss_elimination` sums the cost of the program's ``N`` iterations,
  one by one.

The model, iteration ``j = 0 .. N-1`` (``P`` ranks, rows in CM blocks of
``ceil(N/P)``, pivot rows ``pi_0, pi_1, ...``; ``a_r`` is the number of rows
of rank ``r`` not yet pivot rows, ``u_r = a_r - 1`` on the rank that owns
``pi_j`` and ``a_r`` elsewhere)::

    T_j = A(8) + A(8) + B_o(8 (N+1)) + max_r C_r(j)
    C_r(j) = V(a_r) + V(u_r) + u_r U(N + 1 - j, W_r(j))
    V(L) = t0 + L / R                   (0 for L = 0)
    U(L, W) = u0 + L e(W),   W_r(j) = 8 u_r (N + 1 - j)

``A`` is the allreduce time at ``P`` ranks (the pivot value, then the pivot
row index: the integer uses the same 8-byte time), ``B_o`` the broadcast time
at ``P`` ranks from root ``o``, the owner of the pivot row (the root matters:
see :func:`measure_primitives`), ``V`` the vector operation's time: the pivot
search over the column's active entries and the multipliers each cost one
pass ``V(a_r)`` and ``V(u_r)``, and every active row not the pivot row one
axpy of length ``N + 1 - j``, priced by ``U``: the row update measured as the
program runs it (``datamotion._core.bench_row_update``, the pivot row shared and
the rows streamed), a start-up ``u0`` per row and a time per element ``e(W)``
at the working set ``W`` of the rows the rank updates in that iteration
(:mod:`datamotion.measure.memory`: fitted against the working set, with
breakpoints where a cache level runs out). A model without the row update
prices it by ``V`` at the in-cache rate, as the paper did (and as this module
did before: 25 % off at 512 x 512, where the rows no longer fit in L1).

Where the model holds them (``measure_primitives`` measures them for every N),
the three passes are priced as the program lays them out instead
(``GEOMETRY_KERNELS``): at 16 iterations ``j`` of each ``N`` the row update over
columns ``j..N`` of rows ``N + 1`` elements apart (rows that start off a vector
boundary, gaps that break the hardware's streams) and the pivot search and the
multipliers down column ``j`` (one element a row apart), each over the most rows
a rank handles there; iteration ``j`` then costs
``C_r(j) = a_r s(j) + u_r m(j) + u_r (N + 1 - j) e(j)``, with the time per row
``s``, ``m`` and per element ``e`` interpolated linearly between the
iterations measured.

The slowest rank sets each iteration's pace, as every iteration
ends in collective calls. The total is ``sum_j T_j``, summed exactly: the
active rows shrink as rows become pivot rows and the rows shorten with ``j``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import fit as _fit
from . import memory as _memory
from .predict import predict as predict_model

__all__ = ["VECTOR_OP", "measure_primitives", "primitive_model", "gauss_elimination", "gauss_rows"]

VECTOR_OP = "s*b+c"
"""The vector operation that times the row update ``A[i][k] -= f * p[k]``
(``a = s*b + c`` in float64: two flops per element, like the update)."""

_VECTOR_PARAMS = {"op": f"a={VECTOR_OP}", "dtype": "float64"}
_SCALAR_BYTES = 8  # both reductions: one double, and an int timed as the double
ROW_LENGTH = 512
"""Row length (elements) of the row-update sweeps over working sets: long enough that
the time per element, not the per-row start-up, decides their time."""
_LINE_ROWS = 8  # rows of the in-cache row-update line (a working set of a few KiB)
ITERATION_SAMPLES = 16
"""Iterations per matrix order at which the row update is measured as the program lays
it out (columns j..N of rows N + 1 elements apart): the rate between them is
interpolated."""


# ---------------------------------------------------------------------------
# The program's shape
# ---------------------------------------------------------------------------


def _count(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _blocks(n: int, ranks: int) -> np.ndarray:
    """First row of each rank and one past the last: CM blocks of ceil(n / ranks)."""
    bs = -(-n // ranks)
    return np.minimum(np.arange(ranks + 1) * bs, n)


def _pivot_order(n: int, pivots) -> np.ndarray:
    if pivots is None:
        return np.arange(n)
    try:
        order = np.asarray(pivots)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"pivots must be a sequence of row indices: {exc}") from None
    if order.shape != (n,) or order.dtype.kind not in "iu" or not np.array_equal(np.sort(order), np.arange(n)):
        raise ValueError(f"pivots must be a permutation of 0..{n - 1} (the pivot row of every column), "
                         f"got {pivots!r}")
    return order.astype(np.int64)


def _active_rows(n: int, ranks: int, order: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(active, owner): active[j, r] is the number of rows of rank r that are not
    yet pivot rows when column j starts; owner[j] the rank holding row pi_j."""
    bounds = _blocks(n, ranks)
    owner = np.searchsorted(bounds, order, side="right") - 1  # owner of pi_j
    done = np.zeros((n, ranks), dtype=np.int64)
    np.add.at(done, (np.arange(n), owner), 1)
    done = np.cumsum(done, axis=0) - done  # pivot rows taken before column j
    return np.diff(bounds)[None, :] - done, owner


def _updated_rows(n: int, ranks: int, order: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(active, updated, owner): updated[j, r] is active[j, r] less the pivot row on
    its owner, the rows rank r updates in iteration j."""
    active, owner = _active_rows(n, ranks, order)
    updated = active.copy()
    updated[np.arange(n), owner] -= 1  # the pivot row is not updated
    return active, updated, owner


def _sampled_iterations(n: int) -> List[int]:
    """The iterations j at which the row update is measured at the program's own
    geometry: ITERATION_SAMPLES of them, evenly spread over 0 .. n - 1."""
    return sorted({int(j) for j in np.linspace(0, n - 1, min(n, ITERATION_SAMPLES)).round()})


# ---------------------------------------------------------------------------
# Reading the model
# ---------------------------------------------------------------------------


def _entry(doc: Mapping[str, Any], kernel: str, params: Optional[Mapping[str, Any]] = None):
    models = doc.get("models") if isinstance(doc, Mapping) else None
    if not isinstance(models, Mapping):
        raise ValueError("model must be a datamotion.model/1 document (from primitive_model or "
                         "datamotion.measure.fit.fit_results): it has no 'models'")
    found = [(key, e) for key, e in models.items()
             if isinstance(e, Mapping) and e.get("kernel") == kernel
             and all((e.get("params") or {}).get(k) == v for k, v in (params or {}).items())]
    if not found:
        what = kernel + (f" with {dict(params)}" if params else "")
        raise ValueError(f"the model has no {what}; fitted: {sorted(models)}. Measure it with "
                         "datamotion.measure.gauss.measure_primitives() and fit with primitive_model()")
    if len(found) > 1:
        raise ValueError(f"the model has {kernel} more than once ({sorted(k for k, _ in found)}); keep one")
    return found[0]


def _check_ranks(key: str, entry: Mapping[str, Any], ranks: int) -> None:
    measured = entry.get("ranks")
    if entry.get("model") == "piecewise" and measured and list(measured) != [ranks]:
        raise ValueError(f"{key} was measured at {measured} rank(s), not at {ranks}: measure it at {ranks}")


def _collective_us(doc, kernel: str, nbytes: int, ranks: int) -> float:
    key, entry = _entry(doc, kernel)
    _check_ranks(key, entry, ranks)
    return max(0.0, float(predict_model(doc, key, size_bytes=nbytes, ranks=ranks)))


def _bcast_by_root(doc, nbytes: int, ranks: int) -> np.ndarray:
    """B_r(nbytes) for every root r: from the ``bcast`` entries with a ``root``
    parameter, or the one ``bcast`` entry for every root when none has one."""
    models = doc.get("models") if isinstance(doc, Mapping) else None
    rooted = {}
    if isinstance(models, Mapping):
        for key, e in models.items():
            if isinstance(e, Mapping) and e.get("kernel") == "bcast" and "root" in (e.get("params") or {}):
                rooted[int(e["params"]["root"])] = key
    if not rooted:
        return np.full(ranks, _collective_us(doc, "bcast", nbytes, ranks))
    missing = [r for r in range(ranks) if r not in rooted]
    if missing:
        raise ValueError(f"the model has no bcast from root(s) {missing} (it has roots {sorted(rooted)}): "
                         f"measure at {ranks} ranks with datamotion.measure.gauss.measure_primitives()")
    out = np.empty(ranks)
    for r in range(ranks):
        _check_ranks(rooted[r], models[rooted[r]], ranks)
        out[r] = max(0.0, float(predict_model(doc, rooted[r], size_bytes=nbytes, ranks=ranks)))
    return out


def _vector_line(doc) -> Dict[str, float]:
    key, entry = _entry(doc, "vector", _VECTOR_PARAMS)
    if entry.get("model") != "piecewise" or not isinstance(entry.get("fit"), Mapping):
        raise ValueError(f"{key}: expected a piecewise fit of time against elements")
    fit = _fit.PiecewiseFit.from_dict(entry["fit"])
    return {"key": key, "fit": fit}


def _vector_us(line, lengths: np.ndarray) -> np.ndarray:
    """V(L) = t0 + L / R for L > 0 (never negative), 0 for L = 0."""
    lengths = np.asarray(lengths, dtype=float)
    t = np.maximum(np.asarray(line["fit"].predict(np.maximum(lengths, 0.0)), dtype=float), 0.0)
    return np.where(lengths > 0, t, 0.0)


def _row_update(doc) -> Optional[Dict[str, Any]]:
    """The row update U(L, W) = u0 + L e(W) from the model's two ``row_update``
    entries (the in-cache line over row lengths, and the time per row of
    ROW_LENGTH elements over working sets), or None when the model has neither."""
    models = doc.get("models") if isinstance(doc, Mapping) else None
    found = {}
    for key, e in (models or {}).items():
        if isinstance(e, Mapping) and e.get("kernel") == "row_update" and isinstance(e.get("fit"), Mapping) \
                and "n" not in (e.get("params") or {}):
            found["hierarchy" if "row_length" in (e.get("params") or {}) else "line"] = (key, e)
    if not found:
        return None
    if len(found) != 2:
        raise ValueError(f"the model has one row_update entry ({[k for k, _ in found.values()]}): it needs the "
                         "line over row lengths and the fit over working sets; measure both with "
                         "datamotion.measure.gauss.measure_primitives()")
    line = _fit.PiecewiseFit.from_dict(found["line"][1]["fit"]).segments[0]
    hierarchy_entry = found["hierarchy"][1]
    return {"u0": max(0.0, line.t0_us), "line": line, "hierarchy": _fit.PiecewiseFit.from_dict(hierarchy_entry["fit"]),
            "row_length": int(hierarchy_entry["params"]["row_length"])}


def _at_geometry(doc, kernel: str, n: int, ranks: int) -> Optional[np.ndarray]:
    """``kernel``'s time per unit (GEOMETRY_KERNELS) at every iteration of order ``n``,
    interpolated linearly between the iterations measured at the program's geometry
    at ``ranks`` ranks (an (n, 1) array), or None where the model has no such entry."""
    models = doc.get("models") if isinstance(doc, Mapping) else None
    for e in (models or {}).values():
        if (isinstance(e, Mapping) and e.get("kernel") == kernel and (e.get("params") or {}).get("n") == n
                and e.get("model") == "samples" and list(e.get("ranks") or []) == [ranks] and e.get("iterations")):
            return np.interp(np.arange(n, dtype=float), np.asarray(e["iterations"], dtype=float),
                             np.asarray(e["us_per_unit"], dtype=float))[:, None]
    return None


def _update_us(update, rows: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """rows * U(L, W) with W = 8 rows L, the working set of this iteration's update."""
    rows = np.asarray(rows, dtype=float)
    lengths = np.broadcast_to(np.asarray(lengths, dtype=float), rows.shape)
    per_element = _memory.rate_at(update["hierarchy"], 8.0 * rows * lengths, work=update["row_length"],
                                  floor_us=update["u0"])
    return np.where(rows > 0, rows * (update["u0"] + lengths * per_element), 0.0)


# ---------------------------------------------------------------------------
# The prediction
# ---------------------------------------------------------------------------


def gauss_elimination(model: Mapping[str, Any], n: int, ranks: int, *, pivots=None) -> Dict[str, Any]:
    """Predicted time of the elimination phase of ``examples/c/gauss_elimination.c``.

    Args:
        model: a ``datamotion.model/1`` document with the kernels
            ``allreduce`` and ``bcast`` (fitted at ``ranks`` ranks, or over
            several rank counts by ``datamotion bench collectives``; ``bcast``
            once per root with ``params {"root": r}`` for every root, or once
            without a root, then taken for every root) and a ``vector`` entry
            for ``a=s*b+c`` float64 whose ``bytes`` are elements: what
            :func:`primitive_model` returns.
        n: matrix order ``N`` (the augmented matrix is ``N x (N+1)``).
        ranks: rank count ``P``.
        pivots: the pivot row of every column, a permutation of ``0..N-1``;
            default ``0, 1, ..., N-1``, the order of the program's matrix (its
            diagonal dominates every column); give another order for a matrix
            whose pivot rows come otherwise.

    Returns:
        A dict: ``n``, ``ranks``, ``total_ms``; ``total_us`` with the
        sums over all iterations of ``reduce_double``, ``reduce_int``,
        ``bcast``, ``compute`` and its parts ``search``, ``multipliers`` and
        ``update`` (those of the slowest rank of each iteration);
        ``per_iteration_us``, the same divided by ``N`` plus ``iteration``
        (the paper's Table 6: ``iteration * N`` is the total); ``primitives``,
        the primitive times used; ``formula``.

    Raises:
        ValueError: for ``n`` or ``ranks`` below 1, a bad ``pivots``, or a
            model without one of the kernels (the message says which).
    """
    n = _count(n, "n")
    ranks = _count(ranks, "ranks")
    order = _pivot_order(n, pivots)
    reduce_us = _collective_us(model, "allreduce", _SCALAR_BYTES, ranks)
    bcast_by_root = _bcast_by_root(model, 8 * (n + 1), ranks)
    line = _vector_line(model)
    row_update = _row_update(model)
    geometry = {kernel: _at_geometry(model, kernel, n, ranks) for kernel in GEOMETRY_KERNELS}

    active, updated, owner = _updated_rows(n, ranks, order)  # (n, P) rows searched, rows updated
    bcast = bcast_by_root[owner]                             # the owner of the pivot row sends it
    lengths = (n + 1 - np.arange(n))[:, None]                # columns j..N of the update
    search, multipliers = (active * geometry["pivot_search"] if geometry["pivot_search"] is not None
                           else _vector_us(line, active),
                           updated * geometry["multipliers"] if geometry["multipliers"] is not None
                           else _vector_us(line, updated))
    if geometry["row_update"] is not None:
        update = updated * lengths * geometry["row_update"]
    elif row_update is not None:
        update = _update_us(row_update, updated, lengths)
    else:
        update = updated * _vector_us(line, lengths)
    compute = search + multipliers + update                  # (n, P)
    slowest = np.argmax(compute, axis=1)
    pick = (np.arange(n), slowest)
    totals = {
        "reduce_double": reduce_us * n,
        "reduce_int": reduce_us * n,
        "bcast": float(bcast.sum()),
        "compute": float(compute[pick].sum()),
        "search": float(search[pick].sum()),
        "multipliers": float(multipliers[pick].sum()),
        "update": float(update[pick].sum()),
    }
    iteration_total = totals["reduce_double"] + totals["reduce_int"] + totals["bcast"] + totals["compute"]
    per_iteration = {k: v / n for k, v in totals.items()}
    per_iteration["iteration"] = iteration_total / n
    seg = line["fit"].segments[0]
    rate = 1.0 / seg.us_per_byte if seg.us_per_byte > 0 else math.inf  # elements per microsecond
    return {
        "n": n,
        "ranks": ranks,
        "total_ms": iteration_total / 1e3,
        "total_us": totals,
        "per_iteration_us": per_iteration,
        "primitives": {
            "reduce_double_us": reduce_us,
            "reduce_int_us": reduce_us,
            "bcast_us": float(bcast.mean()),
            "bcast_by_root_us": [float(x) for x in bcast_by_root],
            "bcast_bytes": 8 * (n + 1),
            "vector_t0_us": seg.t0_us,
            "vector_us_per_element": seg.us_per_byte,
            "vector_rinf_mflops": 2.0 * rate,
            "vector_nhalf": max(0.0, seg.t0_us) * rate,
            **({"row_update_u0_us": row_update["u0"],
                "row_update_levels_bytes": list(row_update["hierarchy"].breakpoints_bytes),
                "row_update_ns_per_element_in_cache": 1e3 * row_update["line"].us_per_byte,
                "row_update_ns_per_element_at_block": 1e3 * float(_memory.rate_at(
                    row_update["hierarchy"], 8.0 * int(active[0].max()) * (n + 1), work=row_update["row_length"],
                    floor_us=row_update["u0"]))}
               if row_update is not None else {}),
            **{f"{kernel}_ns_per_{unit}_by_iteration": [1e3 * float(x) for x in geometry[kernel][:, 0]]
               for kernel, unit in GEOMETRY_KERNELS.items() if geometry[kernel] is not None},
        },
        "formula": _FORMULA["geometry" if geometry["row_update"] is not None else
                            "hierarchy" if row_update is not None else "vector"],
    }


_FORMULA = {
    "geometry": "sum_j [A(8) + A(8) + B_owner(j)(8(N+1)) + max_r (a_r s(j) + u_r m(j) + u_r (N+1-j) e(j))], "
                "s(j), m(j) the pivot search's and the multipliers' time per row and e(j) the row update's time "
                "per element, measured at iteration j's geometry (interpolated between the iterations measured; "
                "V(L) = t0 + L/R for a pass not measured so)",
    "hierarchy": "sum_j [A(8) + A(8) + B_owner(j)(8(N+1)) + max_r (V(a_r) + V(u_r) + u_r U(N+1-j, W))], "
                 "V(L) = t0 + L/R, U(L, W) = u0 + L e(W), W = 8 u_r (N+1-j)",
    "vector": "sum_j [A(8) + A(8) + B_owner(j)(8(N+1)) + max_r (V(a_r) + V(u_r) + u_r V(N+1-j))], V(L) = t0 + L/R",
}


def gauss_rows(model: Mapping[str, Any], measured: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """Rows of the estimated-against-measured table (the paper's Table 7, with
    the per-iteration costs of its Table 6), one per measured run.

    Args:
        model: as for :func:`gauss_elimination`.
        measured: the JSON lines of ``examples/c/gauss_elimination.c``, parsed
            (``n``, ``ranks``, ``median_ms``).

    Returns:
        One dict per run: ``n``, ``ranks``, ``bytes`` (0), ``predicted_ms``,
        ``measured_ms``, ``error_pct`` (``100 (predicted - measured) /
        measured``), and the per-iteration ``reduce_double_us``,
        ``reduce_int_us``, ``bcast_us``, ``compute_us``, ``iteration_us``.
    """
    rows = []
    for run in measured:
        p = gauss_elimination(model, int(run["n"]), int(run["ranks"]))
        got = float(run["median_ms"])
        it = p["per_iteration_us"]
        rows.append({
            "n": p["n"], "ranks": p["ranks"], "bytes": 0,
            "predicted_ms": p["total_ms"], "measured_ms": got,
            "error_pct": 100.0 * (p["total_ms"] - got) / got if got > 0 else math.nan,
            "reduce_double_us": it["reduce_double"], "reduce_int_us": it["reduce_int"],
            "bcast_us": it["bcast"], "compute_us": it["compute"], "iteration_us": it["iteration"],
        })
    return rows


# ---------------------------------------------------------------------------
# Measuring and fitting the primitives
# ---------------------------------------------------------------------------


def _lengths(sizes: Sequence[int]) -> List[int]:
    """Vector lengths to measure: powers of two up to the longest row, and every
    row length N + 1 and half of it."""
    longest = max(sizes) + 1
    out = {1 << k for k in range(1, max(2, longest.bit_length()))}
    out |= {n + 1 for n in sizes} | {(n + 1) // 2 for n in sizes}
    return sorted(x for x in out if 2 <= x <= longest)


def measure_primitives(comm=None, sizes: Sequence[int] = (64, 128, 256, 512), *, quick: bool = False,
                       validate: bool = False) -> Dict[str, Any]:
    """Collective on ``comm`` (default ``MPI.COMM_WORLD``). Measures the primitives
    :func:`gauss_elimination` needs, on ``comm``'s ranks, for matrices of order
    ``sizes``, and returns the ``datamotion.bench/1`` results document (the
    same on every rank; fit it with :func:`primitive_model`).

    Entries:

    * ``allreduce`` at 8, 16, 32 and 64 bytes (sums of doubles; the program
      reduces one double and one int), timed by
      ``datamotion._core.bench_collective`` (one call between barriers, each
      rank's time averaged over the ranks, as osu_allreduce reports it);
    * ``bcast`` with ``params {"root": r}`` for every rank ``r``, at
      ``(N + 1) * 8`` bytes for every ``N`` and at 8, 64 and 512 bytes: the
      pivot row comes from every rank in turn, and the root matters (with
      MPICH a broadcast from a rank other than 0 goes through rank 0 first
      and costs several times more). The C++ kernel broadcasts from rank 0
      only; root ``r > 0`` is its root-0 samples shifted by the difference of
      medians of two identically timed mpi4py loops, root ``r`` minus root 0,
      so the Python call overhead cancels (rows keep both Python medians);
    * ``vector`` (``a=s*b+c``, float64) at the row lengths that occur, run on
      every rank at once, as in the program's compute phase (cores that share
      a chip slow each other down), reported for the rank with the largest
      median (``median_by_rank_us`` has all of them);
    * ``row_update``: per row, in cache over row lengths (``rows`` 8), over
      working sets (``row_length``), and for every N at the program's
      geometry (``n``: rows ``iteration``, ``rows``, ``elements``);
    * ``pivot_search`` and ``multipliers`` (``n``): per row, down column ``j``
      of the program's rows at the same iterations.

    Each point repeats until its median is known to 5 % (``quick``: fewer
    repetitions). ``warnings`` notes conditions that make the numbers
    unlike a plain MPI program's, such as an ``MPI_THREAD_MULTIPLE`` run.

    Raises:
        ValueError: on every rank, for an empty ``sizes`` or an ``N`` below 1.
    """
    from mpi4py import MPI

    from .. import _core
    from .results import document
    from .stats import adaptive, summarize

    comm = MPI.COMM_WORLD if comm is None else comm
    try:
        sizes = [_count(s, "every size") for s in sizes]
    except TypeError:
        raise ValueError(f"sizes must be a sequence of integers, got {sizes!r}") from None
    if not sizes:
        raise ValueError("sizes is empty: give the matrix orders N to measure for")
    size = comm.size
    results = []

    rows = []
    for nbytes in (8, 16, 32, 64):
        samples = adaptive(comm, lambda reps: _core.bench_collective("allreduce", comm, nbytes, reps, 2, validate),
                            quick)
        rows.append({"bytes": nbytes, "ranks": size, **summarize(samples)})
    results.append({"kernel": "allreduce", "params": {}, "rows": rows})

    # The C++ kernel broadcasts from rank 0 only, and a broadcast from another root
    # can cost several times more (MPICH routes it through rank 0 first). Root r > 0:
    # the kernel's root-0 samples shifted by the difference of two identically timed
    # mpi4py loops, root r minus root 0 (the Python call overhead cancels).
    by_root: List[List[dict]] = [[] for _ in range(size)]
    for nbytes in sorted({8, 64, 512} | {8 * (n + 1) for n in sizes}):
        kernel = adaptive(comm, lambda reps: _core.bench_collective("bcast", comm, nbytes, reps, 2, validate),
                           quick)
        by_root[0].append({"bytes": nbytes, "ranks": size, "root": 0, **summarize(kernel)})
        if size == 1:
            continue
        python0 = adaptive(comm, lambda reps: _python_bcast(comm, nbytes, 0, reps), quick)
        overhead = float(np.median(python0) - np.median(kernel))
        for root in range(1, size):
            python = adaptive(comm, lambda reps: _python_bcast(comm, nbytes, root, reps), quick)
            shifted = [max(0.0, t - overhead) for t in python]
            by_root[root].append({"bytes": nbytes, "ranks": size, "root": root, **summarize(shifted),
                                  "python_median_us": float(np.median(python)) * 1e6,
                                  "python_root0_median_us": float(np.median(python0)) * 1e6})
    results += [{"kernel": "bcast", "params": {"root": root}, "rows": rows} for root, rows in enumerate(by_root)]

    rows = []
    for length in _lengths(sizes):
        iters = max(1, min(2000, 65536 // length))
        samples = adaptive(comm, lambda reps: _core.bench_vector(VECTOR_OP, False, length, reps, 2, iters), quick)
        everyone = comm.allgather(samples)
        medians = [float(np.median(s)) * 1e6 for s in everyone]
        slowest = int(np.argmax(medians))
        rows.append({"elements": length, "bytes": 8 * length, "ranks": size, "rank": slowest,
                     "median_by_rank_us": medians, **summarize(everyone[slowest])})
    line = _fit_vector(rows)
    results.append({"kernel": "vector", "params": {**_VECTOR_PARAMS, **line["params"]}, "rows": rows})

    # The row update as the program runs it, on every rank at once: in cache over row
    # lengths (its start-up per row), and over working sets up to twice the largest
    # block of rows (the rate of each cache level).
    def row_update_row(rows_: int, length: int, stride: int = 0, first: int = 0) -> dict:
        sweep = 8 * rows_ * length
        iters = max(1, min(2000, (1 << 16) // max(1, rows_ * length)))
        samples = adaptive(comm, lambda reps: [t / rows_ for t in _core.bench_row_update(rows_, length, reps, 2,
                                                                                          iters, stride, first)],
                           quick)
        everyone = comm.allgather(samples)
        medians = [float(np.median(s)) * 1e6 for s in everyone]
        slowest = int(np.argmax(medians))
        return {"elements": length, "rows": rows_, "bytes": sweep, "working_set_bytes": sweep, "ranks": size,
                "rank": slowest, "median_by_rank_us": medians, **summarize(everyone[slowest])}

    longest = max(sizes) + 1
    results.append({"kernel": "row_update", "params": {"rows": _LINE_ROWS, "per": "row"},
                    "rows": [{**r, "bytes": r["elements"]} for r in
                             (row_update_row(_LINE_ROWS, length) for length in _lengths(sizes) if length >= 8)]})
    block = 8 * longest * -(-max(sizes) // size)
    results.append({"kernel": "row_update", "params": {"row_length": ROW_LENGTH, "per": "row"},
                    "rows": [row_update_row(max(1, w // (8 * ROW_LENGTH)), ROW_LENGTH)
                             for w in _memory.working_sets(block, smallest=8 * ROW_LENGTH * 2)]})
    # And as the program lays it out, for each N at sampled iterations j: the update of
    # the most rows a rank updates there, columns j..N of rows N + 1 elements apart (rows
    # that start off a vector boundary, gaps that break the hardware's streams), and the
    # two passes down column j (one element a row apart) over the most rows a rank
    # searches and updates there.
    def column_row(part: str, rows_: int, n: int, j: int) -> dict:
        iters = max(1, min(2000, (1 << 12) // rows_))
        samples = adaptive(comm, lambda reps: [t / rows_ for t in _core.bench_column_pass(part, rows_, n + 1, j, reps,
                                                                                           2, iters)], quick)
        everyone = comm.allgather(samples)
        medians = [float(np.median(s)) * 1e6 for s in everyone]
        slowest = int(np.argmax(medians))
        return {"rows": rows_, "bytes": 8 * rows_, "iteration": j, "ranks": size, "rank": slowest,
                "median_by_rank_us": medians, **summarize(everyone[slowest])}

    for n in sizes:
        active, updated, _ = _updated_rows(n, size, np.arange(n))
        most = {"row_update": updated.max(axis=1), "pivot_search": active.max(axis=1),
                "multipliers": updated.max(axis=1)}
        iterations = _sampled_iterations(n)
        results.append({"kernel": "row_update", "params": {"n": n, "stride": n + 1, "per": "row"},
                        "rows": [{**row_update_row(int(most["row_update"][j]), n + 1 - j, n + 1, j), "iteration": j}
                                 for j in iterations if most["row_update"][j] > 0]})
        for kernel, part in (("pivot_search", "search"), ("multipliers", "multipliers")):
            results.append({"kernel": kernel, "params": {"n": n, "stride": n + 1, "per": "row"},
                            "rows": [column_row(part, int(most[kernel][j]), n, j)
                                     for j in iterations if most[kernel][j] > 0]})

    return document(comm, results, quick=quick, validate=validate, sizes=sizes)


def _python_bcast(comm, nbytes: int, root: int, reps: int, warmup: int = 2) -> List[float]:
    """Collective. Samples (seconds) of MPI_Bcast of nbytes bytes from root, timed
    like the C++ kernel (one call between barriers, each rank's time averaged over
    the ranks), from Python."""
    from mpi4py import MPI

    spec = [np.zeros(max(1, nbytes), dtype=np.uint8), nbytes, MPI.BYTE]
    wtime = MPI.Wtime
    samples = []
    for rep in range(-warmup, reps):
        comm.Barrier()
        t0 = wtime()
        comm.Bcast(spec, root)
        t = wtime() - t0
        mean = comm.allreduce(t, op=MPI.SUM) / comm.size
        if rep >= 0:
            samples.append(mean)
    return samples


def _fit_vector(rows: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """T(L) = t0 + L / R through (elements, median_us), weighted by 1 / T^2."""
    fit = _fit.fit_piecewise_linear([r["elements"] for r in rows], [r["median_us"] for r in rows],
                                      max_breakpoints=0, min_points=2)
    seg = fit.segments[0]
    rate = 1.0 / seg.us_per_byte if seg.us_per_byte > 0 else math.inf
    return {"fit": fit, "params": {"flops_per_element": 2, "rinf_mflops": 2.0 * rate,
                                   "nhalf": max(0.0, seg.t0_us) * rate}}


def primitive_model(results: Mapping[str, Any]) -> Dict[str, Any]:
    """Fits a ``datamotion.bench/1`` document into the ``datamotion.model/1``
    document that :func:`gauss_elimination` reads.

    Every kernel that :func:`datamotion.measure.fit.fit_results` knows is fitted by
    it (here ``allreduce`` and ``bcast``: one line per segment of message
    size at the one rank count measured, or the collective model over rank
    counts). Each ``vector`` entry (from :func:`measure_primitives` or
    ``datamotion bench local``) gets the line ``T(L) = t0 + L / R`` over its
    rows' ``elements``, stored like a piecewise fit whose ``bytes`` are
    elements. The ``row_update`` entries become the in-cache line, the fit over
    working sets and, per matrix order, the time per element at each iteration
    measured at the program's own geometry.

    Raises:
        ValueError: if ``results`` is not a results document.
    """
    doc = _fit.fit_results(results)
    _unskip(doc, "vector")
    for entry in results["results"]:
        if not isinstance(entry, Mapping) or entry.get("kernel") != "vector":
            continue
        params = dict(entry.get("params") or {})
        key = f"vector[{params.get('op')},{params.get('dtype')}]"
        rows = [r for r in entry.get("rows", []) if isinstance(r, Mapping) and "elements" in r and "median_us" in r]
        try:
            line = _fit_vector(rows)
        except ValueError as exc:
            doc["skipped"][key] = str(exc)
            doc["notes"].append(f"{key}: not fitted: {exc}")
            continue
        ranks = sorted({int(r.get("ranks", 1)) for r in rows})
        doc["models"][key] = {"kernel": "vector", "params": params, "rows": len(rows), "model": "piecewise",
                              "ranks": ranks, "units": "bytes are elements", "fit": line["fit"].to_dict()}
    _fit_row_update(results, doc)
    _keep_geometry(results, doc)
    return doc


GEOMETRY_KERNELS = {"row_update": "element", "pivot_search": "row", "multipliers": "row"}
"""The kernels measured at the program's geometry (entries with an ``n``), and the unit
their times are per: the row update's per element, the column passes' per row."""


def _keep_geometry(results: Mapping[str, Any], doc: Dict[str, Any]) -> None:
    """Keeps, in ``doc``, the entries measured at the program's geometry: per kernel and
    matrix order, the time per unit at each iteration measured (no fit: the estimate
    interpolates between them)."""
    for kernel in GEOMETRY_KERNELS:
        _unskip(doc, kernel)
    for entry in results["results"]:
        if not isinstance(entry, Mapping) or entry.get("kernel") not in GEOMETRY_KERNELS:
            continue
        params = dict(entry.get("params") or {})
        if "n" not in params:
            continue
        kernel = entry["kernel"]
        rows = [r for r in entry.get("rows", []) if isinstance(r, Mapping) and "iteration" in r and "median_us" in r]
        per_element = GEOMETRY_KERNELS[kernel] == "element"  # rows' times are per row: per element divides by L
        doc["models"][f"{kernel}[n={params['n']}]"] = {
            "kernel": kernel, "params": params, "rows": len(rows), "model": "samples",
            "ranks": sorted({int(r.get("ranks", 1)) for r in rows}), "unit": GEOMETRY_KERNELS[kernel],
            "iterations": [int(r["iteration"]) for r in rows],
            "us_per_unit": [float(r["median_us"]) / (int(r["elements"]) if per_element else 1) for r in rows]}


def _unskip(doc: Dict[str, Any], kernel: str) -> None:
    """fit_results has no model for ``kernel`` and skipped it, with a note: it is
    fitted here instead, so the skip and the note go."""
    for stale in [k for k in doc["skipped"] if k == kernel or k.startswith(kernel + "[")]:
        del doc["skipped"][stale]
    doc["notes"] = [note for note in doc["notes"] if not note.startswith(kernel)]


def _fit_row_update(results: Mapping[str, Any], doc: Dict[str, Any]) -> None:
    """Fits, into ``doc``, the ``row_update`` entries of ``results``: the in-cache line
    over row lengths, and the time per row over working sets (cache levels as breakpoints)."""
    _unskip(doc, "row_update")
    for entry in results["results"]:
        if not isinstance(entry, Mapping) or entry.get("kernel") != "row_update":
            continue
        params = dict(entry.get("params") or {})
        if "n" in params:
            continue  # at the program's geometry: _keep_geometry
        hierarchy = "row_length" in params
        key = "row_update[working_set]" if hierarchy else "row_update[line]"
        x = "working_set_bytes" if hierarchy else "elements"
        rows = [r for r in entry.get("rows", []) if isinstance(r, Mapping) and x in r and "median_us" in r]
        try:
            fit = (_memory.fit_hierarchy([r[x] for r in rows], [r["median_us"] for r in rows]) if hierarchy
                   else _fit.fit_piecewise_linear([r[x] for r in rows], [r["median_us"] for r in rows],
                                                  max_breakpoints=0, min_points=2))
        except ValueError as exc:
            doc["skipped"][key] = str(exc)
            doc["notes"].append(f"{key}: not fitted: {exc}")
            continue
        doc["models"][key] = {"kernel": "row_update", "params": params, "rows": len(rows), "model": "piecewise",
                              "ranks": sorted({int(r.get("ranks", 1)) for r in rows}),
                              "units": ("bytes are the working set, times per row of row_length elements"
                                        if hierarchy else "bytes are elements, times per row"),
                              "fit": fit.to_dict()}
