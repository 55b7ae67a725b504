"""One rank alone: memory copy and the CM-5 paper's vector operations (R_inf, N_1/2, N_v),
and a vector operation against its working set (the cache levels, see measure.memory)."""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np
from ..._mpi import MPI  # MPI at the thread level _mpi settles

from ... import _core
from ..fit import fit_piecewise_linear
from ..memory import machine_caches, working_sets
from ..stats import adaptive, summarize

VECTOR_OPS = ("b+s", "b+c", "b*s", "b*c", "s*b+c", "b*c+d*e")
SWEEP_OP, SWEEP_LENGTH = "s*b+c", 2048  # float64: 48 KiB of arrays per sweep
SWEEP_LARGEST = 64 << 20  # working sets up to twice this: past any L2 and most last-level caches


def _local_samples(measure: Callable[[int], List[float]], quick: bool) -> List[float]:
    return adaptive(MPI.COMM_SELF, measure, quick)


def vector_crossover(lengths: Sequence[int], vector_us: Sequence[float], scalar_us: Sequence[float]) -> Optional[int]:
    """N_v: the smallest of the (increasing) lengths from which the vector time is
    below the scalar time at every longer length too; None if it never is."""
    nv = None
    for n, v, s in zip(reversed(lengths), reversed(vector_us), reversed(scalar_us)):
        if not v < s:
            break
        nv = n
    return nv


def suite_local(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """On rank 0 while the others wait: memory-copy time versus size, and the CM-5
    paper's vector operations versus length in float32 and float64, each with
    R_inf (Mflop/s) and N_1/2 from the fit T(n) = t0 + n / R_inf, and N_v (the
    length from which the auto-vectorised loop beats the same loop compiled
    without vectorisation, whose median each row carries as scalar_median_us)."""
    results = []
    if comm.rank == 0:
        results.append(memcopy_entry([1 << k for k in (range(10, 25, 2) if quick else range(6, 25))], quick,
                                     progress))
        lengths = ([4, 16, 256, 4096, 65536] if quick
                   else [2, 4, 8, 16, 32, 64, 256, 1024, 4096, 16384, 65536, 262144])
        for dtype, single in (("float32", True), ("float64", False)):
            for op in VECTOR_OPS:
                rows = []
                for n in lengths:
                    iters = max(1, min(1000, 65536 // n))
                    samples = _local_samples(lambda reps: _core.bench_vector(op, single, n, reps, 2, iters), quick)
                    scalar = _local_samples(lambda reps: _core.bench_vector(op, single, n, reps, 2, iters, True),
                                            quick)
                    rows.append({"elements": n, "bytes": n * (4 if single else 8), "ranks": 1, **summarize(samples),
                                 "scalar_median_us": float(np.median(scalar) * 1e6)})
                    if progress:
                        progress()
                # T(n) = t0 + n / R_inf, weighted by 1/T^2 so the short vectors decide t0.
                line = fit_piecewise_linear([r["elements"] for r in rows], [r["median_us"] for r in rows],
                                            max_breakpoints=0, min_points=2).segments[0]
                t0, slope = line.t0_us, line.us_per_byte  # "bytes" are elements here
                flops = _core.vector_op_flops(op)
                rinf = 1.0 / slope if slope > 0 else float("inf")  # elements per microsecond
                results.append({"kernel": "vector", "params": {
                    "op": f"a={op}", "dtype": dtype, "flops_per_element": flops,
                    "rinf_mflops": flops * rinf, "nhalf": max(0.0, t0) * rinf,
                    "nv": vector_crossover(lengths, [r["median_us"] for r in rows],
                                           [r["scalar_median_us"] for r in rows])}, "rows": rows})
        results.append(_working_set_sweep(quick, progress))
        results.append(ufunc_entry([(1, 1 << k) for k in (range(10, 24, 2) if quick else range(8, 24))], quick,
                                   progress))
    comm.Barrier()
    return results


def memcopy_entry(sizes: Sequence[int], quick: bool, progress=None) -> dict:
    """Local. memcpy time against the size (kernel ``memcopy``, a cache family: the
    same two buffers every call, a working set of twice the size)."""
    rows = []
    for nbytes in sizes:
        iters = max(1, min(1000, (1 << 20) // max(1, nbytes)))
        samples = _local_samples(lambda reps: _core.bench_memcopy(nbytes, reps, 2, iters), quick)
        rows.append({"bytes": nbytes, "ranks": 1, **summarize(samples)})
        if progress:
            progress()
    return {"kernel": "memcopy", "params": {}, "rows": rows}


UFUNC_FORMS = {
    "add": "np.add(b, c, out=a)",
    "accumulate": "np.add(a, b, out=a)",
    "scale": "np.multiply(a, s, out=b)",
}
"""The statements a stencil's update is made of, by name: a sum of two arrays into a
third, an accumulation into an array, and a scaling into another."""


def ufunc_entry(shapes: Sequence[Tuple[int, int]], quick: bool, progress=None, ghost: int = 0,
                form: str = "add") -> dict:
    """Local. A NumPy statement in float64 (``form``, one of :data:`UFUNC_FORMS`)
    against the number of elements: what a Python program's array statements cost
    (kernel ``ufunc``, a cache family: ``bytes`` is 8 per element). Each shape is
    ``(rows, columns)``; with ``ghost`` > 0, ``b`` and ``c`` are the interiors of
    arrays with that many ghost cells around them (rows of ``columns`` elements at
    a longer stride, as a stencil reads and writes them) and ``a`` is contiguous.
    A sample is the mean of a block of calls."""
    import time

    rows = []
    for r, n in shapes:
        whole = (r + 2 * ghost, n + 2 * ghost)
        inner = (slice(ghost, ghost + r), slice(ghost, ghost + n))
        b, c = np.full(whole, 1.5)[inner], np.full(whole, 2.5)[inner]
        a = np.zeros((r, n))
        statement = {"add": lambda a=a, b=b, c=c: np.add(b, c, out=a),
                     "accumulate": lambda a=a, b=b: np.add(a, b, out=a),
                     "scale": lambda a=a, b=b: np.multiply(a, 0.25, out=b)}[form]
        iters = max(1, min(1000, (1 << 20) // (r * n)))

        def measure(reps: int, statement=statement, iters=iters) -> List[float]:
            out = []
            for rep in range(-1, reps):
                t0 = time.perf_counter()
                for _ in range(iters):
                    statement()
                if rep >= 0:
                    out.append((time.perf_counter() - t0) / iters)
            return out

        rows.append({"bytes": 8 * r * n, "elements": r * n, "shape": [r, n], "ranks": 1,
                     **summarize(_local_samples(measure, quick))})
        if progress:
            progress()
    return {"kernel": "ufunc", "params": {"op": UFUNC_FORMS[form], "form": form, "dtype": "float64", "ghost": ghost,
                                          "numpy": np.__version__}, "rows": rows}


def _working_set_sweep(quick: bool, progress=None) -> dict:
    """a = s*b + c in float64 on SWEEP_LENGTH elements, successive sweeps spread over
    working sets from one sweep's arrays to twice SWEEP_LARGEST: the time per sweep
    against the working set, whose fit (kernel ``vector_sweep``, a cache family)
    puts breakpoints where a cache level runs out. The machine's stated caches are
    in the entry's params."""
    rows = []
    per_octave = 1 if quick else 2
    for ws in working_sets(SWEEP_LARGEST >> (2 if quick else 0), smallest=24 * SWEEP_LENGTH, per_octave=per_octave):
        samples = _local_samples(lambda reps: _core.bench_vector(SWEEP_OP, False, SWEEP_LENGTH, reps, 2, 8, False, ws),
                                 quick)
        rows.append({"bytes": ws, "working_set_bytes": ws, "elements": SWEEP_LENGTH, "ranks": 1, **summarize(samples)})
        if progress:
            progress()
    return {"kernel": "vector_sweep", "params": {"op": f"a={SWEEP_OP}", "dtype": "float64", "elements": SWEEP_LENGTH,
                                                 "bytes_are": "working set",
                                                 "caches": [f"L{c['level']} {c['bytes']} B" for c in machine_caches()]},
            "rows": rows}

