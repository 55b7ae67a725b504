"""One rank alone: memory copy and the CM-5 paper's vector operations (R_inf, N_1/2, N_v)."""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np
from ..._mpi import MPI  # MPI at the thread level _mpi settles

from ... import _core
from ..fit import fit_piecewise_linear
from ..stats import adaptive, summarize

VECTOR_OPS = ("b+s", "b+c", "b*s", "b*c", "s*b+c", "b*c+d*e")


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
        sizes = [1 << k for k in (range(10, 25, 4) if quick else range(6, 25))]
        rows = []
        for nbytes in sizes:
            iters = max(1, min(1000, (1 << 20) // nbytes))
            samples = _local_samples(lambda reps: _core.bench_memcopy(nbytes, reps, 2, iters), quick)
            rows.append({"bytes": nbytes, "ranks": 1, **summarize(samples)})
            if progress:
                progress()
        results.append({"kernel": "memcopy", "params": {}, "rows": rows})
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
    comm.Barrier()
    return results

