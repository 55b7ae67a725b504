"""The CM-5 paper's section 8 inside ``datamotion bench``: Gaussian elimination
estimated from its primitives and measured (its Tables 6 and 7).

The primitives are measured on the suite's ranks by
:func:`datamotion.measure.gauss.measure_primitives` and priced by
:func:`~datamotion.measure.gauss.gauss_elimination`, as
``benchmarks/gauss_elimination.py`` does. The program measured here is the
paper's Figure 16 written with NumPy and mpi4py on the same ranks (row blocks,
partial pivoting, two reductions and a broadcast per column): the suite runs
inside the bench job, where starting the C program of
``examples/c/gauss_elimination.c`` would need a second MPI job. Its whole-row
NumPy updates and the interpreter's few microseconds per call differ from the
C program's loops, so its errors say how far the model carries to another
program, not how well it predicts the C one (the benchmark script measures that).
"""

from __future__ import annotations

from typing import List

import numpy as np
from mpi4py import MPI

from .. import gauss
from ..stats import adaptive, summarize

SIZES = (64, 128, 256, 512, 1024)
QUICK_SIZES = (64, 128, 256, 512)
"""Matrix orders N: Table 7's four, and 1024 in full runs."""
PROGRAM = "Figure 16 in NumPy + mpi4py"
QUICK_RUNS, QUICK_SECONDS = 3, 1.0
"""Quick runs time the program up to three times per size, fewer once a second is spent
(full runs repeat until the median is known)."""


def _matrix(n: int, first: int, last: int) -> np.ndarray:
    """Rows first..last-1 of an N x (N+1) matrix with a dominant diagonal (every
    pivot is the diagonal row, as in the C program), the same on any rank count."""
    rows = np.arange(first, last)
    rng = np.random.default_rng(1995)
    full = rng.uniform(-1.0, 1.0, size=(n, n + 1))
    full[np.arange(n), np.arange(n)] = n + 1 + rng.uniform(0.0, 1.0, size=n)
    return np.ascontiguousarray(full[rows])


def eliminate(comm: MPI.Comm, a: np.ndarray, first: int, n: int) -> None:
    """Collective. Figure 16 on this rank's rows ``a`` (global rows first.. of an
    N x (N+1) matrix in blocks of ceil(N / P)): per column the local pivot search,
    MPI_Allreduce of the pivot value and of its row (MAX), the multipliers, the
    pivot row broadcast from its owner, the update of the rows not yet pivoted."""
    block = -(-n // comm.size)
    done = np.zeros(len(a), dtype=bool)
    value, best = np.zeros(1), np.zeros(1)
    row_id, pivot_id = np.zeros(1, np.int64), np.zeros(1, np.int64)
    pivot_row = np.empty(n + 1)
    for j in range(n):
        column = np.where(done, -np.inf, np.abs(a[:, j])) if len(a) else np.empty(0)
        i = int(np.argmax(column)) if len(column) else -1
        value[0] = column[i] if i >= 0 else -np.inf
        comm.Allreduce(value, best, op=MPI.MAX)
        row_id[0] = first + i if i >= 0 and value[0] == best[0] else -1
        comm.Allreduce(row_id, pivot_id, op=MPI.MAX)
        pivot = int(pivot_id[0])
        owner = pivot // block
        if owner == comm.rank:
            done[pivot - first] = True
            pivot_row[:] = a[pivot - first]
        comm.Bcast(pivot_row, root=owner)
        active = ~done
        factors = a[active, j] / pivot_row[j]
        a[active, j:] -= factors[:, None] * pivot_row[None, j:]


def _program_samples(comm: MPI.Comm, n: int, quick: bool) -> List[float]:
    block = -(-n // comm.size)
    first, last = min(comm.rank * block, n), min((comm.rank + 1) * block, n)
    original = _matrix(n, first, last)

    def measure(reps):
        out = []
        for _ in range(reps):
            a = original.copy()
            comm.Barrier()
            t0 = MPI.Wtime()
            eliminate(comm, a, first, n)
            out.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
        return out

    if not quick:
        return adaptive(comm, measure, quick)
    samples = measure(1)
    while len(samples) < QUICK_RUNS and sum(samples) < QUICK_SECONDS:  # the same decision on every rank
        samples += measure(1)
    return samples


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm. One ``gauss_elimination`` entry on rank 0 ([] elsewhere):
    per N the estimate from the primitives measured here, the measured program and
    Table 6's cost per iteration (rows of :func:`datamotion.measure.gauss.gauss_rows`)."""
    sizes = QUICK_SIZES if quick else SIZES
    primitives = gauss.measure_primitives(comm, sizes, quick=quick, validate=validate)
    if progress:
        progress()
    measured = []
    for n in sizes:
        samples = _program_samples(comm, n, quick)
        measured.append({"n": n, "ranks": comm.size, "median_ms": float(np.median(samples)) * 1e3,
                         "summary": summarize(samples)})
        if progress:
            progress()
    if comm.rank != 0:
        return []
    rows = gauss.gauss_rows(gauss.primitive_model(primitives), measured)
    for row, run_ in zip(rows, measured):
        row.update({k: v for k, v in run_["summary"].items() if k != "samples_us"})
    return [{"kernel": "gauss_elimination", "params": {"ranks": comm.size, "program": PROGRAM,
                                                       "sizes": list(sizes)}, "rows": rows}]
