"""The PSHIFT paper's experiments: its Tables 1-4 (shifts of +-1 along every axis of
arrays of rank 1-4, one PSHIFT against the same shifts one after another and against
a halo exchange), non-square subgrids, setup measured apart from execution, and the
paper's cost model (its Eq. 1) fitted to our times by non-negative least squares.

Kernels (see measure/report/pshift.py for their section):

- ``pshift_table``: one entry per array rank k; a row per local extent L and method
  (``pshift``: one plan of all 2k shifts; ``cshift``: 2k one-shift plans executed one
  after another, the CSHIFT baseline; ``halo``: a ghost shell of width 1 filled in
  one step, which makes no local copies). Params hold Eq. 2's a + b L^(k-1) + c L^k
  fitted to the pshift rows.
- ``pshift_shapes``: the same methods on non-square subgrids (L x 2L, L x L/2, ...).
- ``pshift_setup``: the time to build a plan (``PShift(...)``), beside its execution.
- ``pshift_model``: Eq. 1 fitted to every pshift row; params hold the constants,
  rows the measured and predicted times.
"""

from __future__ import annotations

import math
from typing import Dict, List, Mapping, Sequence

import numpy as np
from mpi4py import MPI

from ...array import DistArray
from ...layout import ProcessGrid
from ...shift import CShift, Halo, PShift
from ..lsq import nonnegative_lstsq as nnls  # the name this module has always exported
from ..polyshift import fit_eq2
from ..stats import time_call

# Local extents L of the paper's tables (Table 1: rank 1, ..., Table 4: rank 4).
TABLE_EXTENTS = {1: [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384],
                 2: [2, 4, 8, 16, 32, 64, 128],
                 3: [2, 4, 8, 16],
                 4: [2, 4, 8]}
QUICK_EXTENTS = {1: [4, 16, 64, 256, 1024, 4096, 16384], 2: [2, 4, 8, 16, 32, 64, 128], 3: [2, 4, 8, 16],
                 4: [2, 4, 8]}

# Non-square local subgrids: each a multiple of L per axis.
SHAPE_FACTORS = ((1, 1), (1, 2), (2, 1), (1, 0.5), (2, 0.5), (1, 1, 1), (1, 1, 2), (2, 1, 1), (1, 0.5, 2))
SHAPE_EXTENTS, QUICK_SHAPE_EXTENTS = [4, 8, 16, 32], [8, 16]

METHODS = ("pshift", "cshift", "halo")
SLICE_BYTES = 4  # the CM-200 moves data in 32-bit slices; Eq. 1 counts slices

EQ1_TERMS = ("T0", "Tmm", "Tmt_tm", "Tex")
"""Eq. 1's constants (microseconds): start-up, memory-to-memory move of one slice,
memory-to-transposer plus transposer-to-memory transfer of one slice (the paper's
T_mt and T_tm always appear together, so only their sum can be fitted), one exchange."""
EXTENDED_TERMS = EQ1_TERMS + ("Tsh",)
"""Eq. 1 plus a start-up per shift (not in the paper; MPI pays one per message)."""


# ---------------------------------------------------------------------------
# Eq. 1 and its fit
# ---------------------------------------------------------------------------


def eq1_terms(local_shape: Sequence[int], grid_dims: Sequence[int], shift: int = 1,
              slices: int = 2) -> Dict[str, float]:
    """The multipliers of Eq. 1's constants for shifts of +-``shift`` along every axis
    of a local subgrid ``local_shape`` on a grid ``grid_dims``, elements of ``slices``
    32-bit slices: ``T = T0 + Tmm * memory + Tmt_tm * transfer + Tex * exchange``.

    As in the paper, along axis i each of the two shifts moves V/L_i (L_i - S_i)
    elements within the rank and sends V/L_i S_i to a neighbour, and the exchanges
    of all axes overlap (the largest counts, in pairs of slices). An axis that the
    grid does not split (extent 1) has no neighbour: its wrap-around lines are
    local moves too. ``shifts`` (2k) is the multiplier of the per-shift extension."""
    volume = float(np.prod(local_shape))
    memory = transfer = exchange = 0.0
    for extent, parts in zip(local_shape, grid_dims):
        lines = volume / extent
        moved = min(shift, extent)
        if parts > 1:
            memory += slices * 2 * lines * (extent - moved)
            transfer += slices * 2 * lines * moved
            exchange = max(exchange, math.ceil(slices * lines * moved / 2))
        else:
            memory += slices * 2 * lines * extent
    return {"T0": 1.0, "Tmm": memory, "Tmt_tm": transfer, "Tex": float(exchange), "Tsh": 2.0 * len(local_shape)}


def fit_cost_model(rows: Sequence[Mapping], terms: Sequence[str] = EQ1_TERMS) -> dict:
    """Fits ``median_us = sum(constant[t] * row[t])`` over ``terms``, every constant
    >= 0, minimising the relative error (times span several decades). Rows carry
    the multipliers of :func:`eq1_terms`. Returns the constants (µs), r² of the
    times and the root-mean-square relative error."""
    A = np.array([[float(r[t]) for t in terms] for r in rows], dtype=float)
    y = np.array([float(r["median_us"]) for r in rows], dtype=float)
    if len(y) < len(terms) or np.any(y <= 0):
        raise ValueError(f"fitting {len(terms)} constants needs as many positive times, got {len(y)}")
    coef = nnls(A, y, weights=y ** -2.0)
    predicted = A @ coef
    residual = y - predicted
    total = float(np.sum((y - y.mean()) ** 2))
    return {"constants_us": {t: float(c) for t, c in zip(terms, coef)},
            "r2": 1.0 - float(np.sum(residual ** 2)) / total if total > 0 else None,
            "rel_rms": float(np.sqrt(np.mean((residual / y) ** 2))),
            "points": int(len(y))}


def predict_cost(constants_us: Mapping[str, float], row: Mapping) -> float:
    return float(sum(c * float(row[t]) for t, c in constants_us.items()))


# ---------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------


class Case:
    """Arrays and plans of one local subgrid shape: shifts of +-1 along every axis."""

    def __init__(self, comm: MPI.Comm, local_shape: Sequence[int]):
        k = len(local_shape)
        self.grid = ProcessGrid(comm, dims=k, periods=[True] * k)
        self.local_shape = [int(n) for n in local_shape]
        shape = [n * d for n, d in zip(self.local_shape, self.grid.dims)]
        data = np.random.default_rng(k).standard_normal(shape)
        self.src = DistArray.from_global(self.grid, data)
        self.shifts = [CShift(s, axis=axis) for axis in range(k) for s in (1, -1)]
        self.dsts = [DistArray.zeros(self.grid, shape) for _ in self.shifts]
        self.together = PShift(self.src, self.shifts)
        self.singles = [PShift(self.src, [s]) for s in self.shifts]
        self.ghosted = DistArray.from_global(self.grid, data, ghost=1)
        self.halo = Halo(self.ghosted)

    def run(self, method: str) -> None:
        srcs = [self.src] * len(self.shifts)
        if method == "pshift":
            self.together.execute(self.dsts, srcs)
        elif method == "cshift":
            for plan, dst in zip(self.singles, self.dsts):
                plan.execute([dst], [self.src])
        else:
            self.halo.exchange(self.ghosted)

    def setup(self) -> None:
        PShift(self.src, self.shifts).free()

    def correct(self) -> bool:
        """Collective. Whether the last pshift results equal NumPy's rolls."""
        x = self.src.to_global()
        return all(np.array_equal(d.to_global(), np.roll(x, -s.shift, s.axis)) for d, s in zip(self.dsts, self.shifts))

    def free(self) -> None:
        for plan in [self.together, *self.singles, self.halo]:
            plan.free()

    def row_fields(self, comm: MPI.Comm) -> dict:
        elements = int(np.prod(self.local_shape))
        return {"rank": len(self.local_shape), "shape": self.local_shape, "grid": list(self.grid.dims),
                "L": self.local_shape[0], "elements": elements, "bytes": 8 * elements, "ranks": comm.size,
                **eq1_terms(self.local_shape, self.grid.dims)}


def _measure(comm, local_shape, quick, validate, setup_rows=None) -> List[dict]:
    case = Case(comm, local_shape)
    try:
        base = case.row_fields(comm)
        rows = [{**base, "method": m, **time_call(comm, lambda: case.run(m), quick)} for m in METHODS]
        if validate and not comm.allreduce(case.correct(), op=MPI.LAND):
            raise RuntimeError(f"PSHIFT of a {local_shape} subgrid gave wrong values")
        if setup_rows is not None:
            setup = time_call(comm, case.setup, quick)
            setup_rows.append({**base, "execute_median_us": rows[0]["median_us"],
                               "setup_over_execute": setup["median_us"] / rows[0]["median_us"], **setup})
        return rows
    finally:
        case.free()


def non_square_shapes(extents: Sequence[int]) -> List[List[int]]:
    """The subgrids of SHAPE_FACTORS for each L, each shape once (L x L/2 of one L
    may be 2L x L of another), in order."""
    shapes = {tuple(max(1, int(L * f)) for f in factors): None for L in extents for factors in SHAPE_FACTORS}
    return [list(s) for s in shapes]


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm. The experiments' result entries on rank 0, [] elsewhere."""
    comm = comm.Dup()
    try:
        results, setup_rows, fit_rows = [], [], []
        for k, extents in (QUICK_EXTENTS if quick else TABLE_EXTENTS).items():
            rows = []
            for L in extents:
                rows += _measure(comm, [L] * k, quick, validate, setup_rows)
                if progress:
                    progress()
            mine = [r for r in rows if r["method"] == "pshift"]
            fit_rows += mine
            grid = rows[0]["grid"]
            results.append({"kernel": "pshift_table", "params": {
                "rank": k, "grid": grid, "dtype": "float64", "shift": 1, "shifts": 2 * k,
                "eq2": fit_eq2([r["L"] for r in mine], [r["median_us"] for r in mine], k)}, "rows": rows})
        rows = []
        for shape in non_square_shapes(QUICK_SHAPE_EXTENTS if quick else SHAPE_EXTENTS):
            rows += _measure(comm, shape, quick, validate)
            if progress:
                progress()
        fit_rows += [r for r in rows if r["method"] == "pshift"]
        results.append({"kernel": "pshift_shapes", "params": {"dtype": "float64", "shift": 1}, "rows": rows})
        results.append({"kernel": "pshift_setup", "params": {"dtype": "float64", "shift": 1}, "rows": setup_rows})
        results.append(model_entry(fit_rows))
        return results if comm.rank == 0 else []
    finally:
        comm.Free()


def model_entry(rows: Sequence[Mapping]) -> dict:
    """The ``pshift_model`` entry: Eq. 1 (and Eq. 1 with a per-shift term) fitted to
    ``rows``, each row's measured and predicted time."""
    eq1 = fit_cost_model(rows, EQ1_TERMS)
    extended = fit_cost_model(rows, EXTENDED_TERMS)
    keep = ("rank", "shape", "grid", "elements", "ranks") + EXTENDED_TERMS
    out = []
    for r in rows:
        # The measurement's median and spread (its samples stay in the table's row).
        summary = {k: r[k] for k in ("median_us", "p05_us", "p95_us", "ci95_us", "reps") if k in r}
        out.append({**{k: r[k] for k in keep}, **summary,
                    "predicted_us": predict_cost(eq1["constants_us"], r),
                    "predicted_extended_us": predict_cost(extended["constants_us"], r)})
    return {"kernel": "pshift_model", "params": {"slice_bytes": SLICE_BYTES, "slices_per_element": 2,
                                                 "eq1": eq1, "extended": extended}, "rows": out}
