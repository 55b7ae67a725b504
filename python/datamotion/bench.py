"""Measuring the machine: suites of point-to-point kernels (pt2pt), barrier,
collectives and segmented scans (collectives), memory copy and vector
operations with R_inf, N_1/2 and N_v (local), and hypercube, random-matching,
chain and torus-shift patterns (patterns), with raw samples, adaptive
repetition and machine-readable results.

Each kernel runs in C++ (datamotion._core.bench_*) and returns raw samples;
this module repeats it until the 95% confidence interval of the median is
within 5% of it (or a time cap), summarises, and writes the results document
(schema ``datamotion.bench/1``, see docs/bench.md).
"""

from __future__ import annotations

import json
import math
import os
import time
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
from mpi4py import MPI

from . import _mpi  # noqa: F401  (MPI through mpi4py first, then a same-MPI check)
from . import _core
from ._files import atomic_write
from .model import fit_piecewise_linear
from .provenance import provenance

__all__ = ["SUITES", "run_suites", "summarize", "time_collective", "write_results"]

SCHEMA = "datamotion.bench/1"
PAIR_KERNELS = ("pingpong", "exchange", "stream", "bidir")
QUICK_SIZES = [0, 8, 64, 512, 4096, 32768, 262144, 1 << 20]
FULL_SIZES = [0] + [1 << k for k in range(0, 25)]
FINE_SIZES = list(range(0, 16001, 64))


def time_collective(comm: MPI.Comm, fn: Callable[[], object], reps: int = 30, warmup: int = 1) -> float:
    """Collective. The median over ``reps`` of the slowest rank's time of ``fn()``
    in seconds, each call started after a barrier, after ``warmup`` unrecorded
    calls (first touch, persistent requests bound)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = MPI.Wtime()
        fn()
        times.append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
    return float(np.median(times))

def summarize(samples_s: Sequence[float]) -> dict:
    """Median, percentiles, mean and the 95% confidence interval of the median
    (order statistics, normal approximation of the binomial) of samples in
    seconds, reported in microseconds, with the raw samples."""
    us = np.sort(np.asarray(samples_s, dtype=float) * 1e6)
    n = len(us)
    if n == 0:
        raise ValueError("no samples to summarise")
    half = 1.96 * math.sqrt(n) / 2
    lo = int(max(0, math.floor(n / 2 - half)))
    hi = int(min(n - 1, math.ceil(n / 2 + half)))
    return {
        "median_us": float(np.median(us)),
        "p05_us": float(np.percentile(us, 5)),
        "p95_us": float(np.percentile(us, 95)),
        "mean_us": float(us.mean()),
        "min_us": float(us[0]),
        "ci95_us": [float(us[lo]), float(us[hi])],
        "reps": n,
        "samples_us": [float(x) for x in us],
    }


def _adaptive(comm: MPI.Comm, measure: Callable[[int], List[float]], quick: bool) -> List[float]:
    """Collective. Calls measure(batch) until the median's 95% CI is within 5% of
    it, or a repetition or time cap. Rank 0 decides, so all ranks call alike."""
    batch, max_reps, cap_s = (10, 40, 0.5) if quick else (20, 400, 3.0)
    samples: List[float] = []
    start = time.perf_counter()
    while True:
        samples += measure(batch)
        done = True
        if comm.rank == 0:
            s = summarize(samples)
            width = (s["ci95_us"][1] - s["ci95_us"][0]) / 2
            done = (len(samples) >= max_reps or time.perf_counter() - start > cap_s
                    or (len(samples) >= 2 * batch and width <= 0.05 * max(s["median_us"], 1e-9)))
        if comm.bcast(done, root=0):
            return samples


def _iters(nbytes: int) -> int:
    """Operations per sample: small messages are timed over several round trips."""
    return 20 if nbytes <= 1024 else 5 if nbytes <= 65536 else 1


def _pair_rows(comm, kernel, sizes, quick, validate, a=0, b=1, progress=None) -> List[dict]:
    rows = []
    for nbytes in sizes:
        samples = _adaptive(comm, lambda reps: _core.bench_pair(kernel, comm, a, b, nbytes, reps, 2, _iters(nbytes),
                                                                 16, validate), quick)
        if comm.rank == a:
            rows.append({"bytes": nbytes, "ranks": 2, "src": a, "dst": b, **summarize(samples)})
        if progress:
            progress()
    return rows


def suite_pt2pt(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Ping-pong, exchange, streaming and bidirectional bandwidth between ranks 0 and 1
    over message sizes, plus (full runs) a fine sweep and the distance sweep."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    results = []
    for kernel in PAIR_KERNELS:
        results.append({"kernel": kernel, "params": {"window": 16},
                        "rows": _pair_rows(comm, kernel, sizes, quick, validate, progress=progress)})
    if not quick:
        results.append({"kernel": "pingpong_fine", "params": {},
                        "rows": _pair_rows(comm, "pingpong", FINE_SIZES, True, validate, progress=progress)})
    rows = []
    for peer in range(1, comm.size):  # rank 0 to every other rank
        samples = _adaptive(comm, lambda reps: _core.bench_pair("pingpong", comm, 0, peer, 8, reps, 2, 20, 1,
                                                                 validate), quick)
        if comm.rank == 0:
            rows.append({"bytes": 8, "ranks": 2, "src": 0, "dst": peer, **summarize(samples)})
    results.append({"kernel": "distance", "params": {"bytes": 8}, "rows": rows})
    return results


COLLECTIVES = ("bcast", "reduce", "allreduce", "scan", "exscan", "allgather", "alltoall")
SEGSCANS = tuple((dtype, op) for dtype in ("int64", "float64") for op in ("add", "max", "min"))
SEGMENT_LENGTH = 10
"""Elements per segment of the segmented scans: a segment bit set on one element
in ten, like the CM-5 paper's 10%."""


def suite_collectives(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Barrier, every collective of COLLECTIVES, and exclusive segmented scans of
    SEGSCANS (segments of SEGMENT_LENGTH elements spanning ranks) over sizes, on
    the first P ranks for P = 2 .. size (reductions and scans sum bytes / 8
    doubles; segmented scans run over bytes / 8 elements per rank)."""
    sizes = [8, 4096, 65536] if quick else [8, 64, 512, 4096, 32768, 262144, 1 << 20]
    rows: Dict[str, List[dict]] = {"barrier": [], **{op: [] for op in COLLECTIVES}}
    segscan_rows: Dict[tuple, List[dict]] = {key: [] for key in SEGSCANS}
    for p in range(2, comm.size + 1):
        sub = comm.Split(0 if comm.rank < p else MPI.UNDEFINED, comm.rank)
        if sub == MPI.COMM_NULL:
            continue
        samples = _adaptive(sub, lambda reps: _core.bench_barrier(sub, reps, 2), quick)
        if comm.rank == 0:
            rows["barrier"].append({"bytes": 0, "ranks": p, **summarize(samples)})
        for op in COLLECTIVES:
            for nbytes in sizes:
                samples = _adaptive(sub, lambda reps: _core.bench_collective(op, sub, nbytes, reps, 2, validate), quick)
                if comm.rank == 0:
                    rows[op].append({"bytes": nbytes, "ranks": p, **summarize(samples)})
                if progress:
                    progress()
        for (dtype, op), out in segscan_rows.items():
            for nbytes in sizes:
                samples = _adaptive(sub, lambda reps: _core.bench_segscan(sub, dtype, op, nbytes, SEGMENT_LENGTH, reps,
                                                                          2, validate), quick)
                if comm.rank == 0:
                    out.append({"bytes": nbytes, "ranks": p, **summarize(samples)})
                if progress:
                    progress()
        sub.Free()
    return ([{"kernel": kernel, "params": {}, "rows": r} for kernel, r in rows.items()]
            + [{"kernel": "segscan", "params": {"dtype": dtype, "op": op, "segment_length": SEGMENT_LENGTH}, "rows": r}
               for (dtype, op), r in segscan_rows.items()])


VECTOR_OPS = ("b+s", "b+c", "b*s", "b*c", "s*b+c", "b*c+d*e")


def _local_samples(measure: Callable[[int], List[float]], quick: bool) -> List[float]:
    return _adaptive(MPI.COMM_SELF, measure, quick)


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


PLACEMENTS = ("row-major", "gray", "shuffle")
DIRECTIONS = ("north", "east", "west", "south")
MATCHING_SEED = 1995


def _is_power_of_two(x: int) -> bool:
    return x >= 1 and x & (x - 1) == 0


def mesh_shape(p: int) -> tuple:
    """The logical torus (rows, cols) of p ranks: the most square factorisation
    with rows <= cols, with power-of-two sides when p is a power of two."""
    if _is_power_of_two(p):
        rows = 1 << ((p.bit_length() - 1) // 2)
    else:
        rows = max(d for d in range(1, math.isqrt(p) + 1) if p % d == 0)
    return rows, p // rows


def random_matchings(p: int, count: int, seed: int) -> List[List[int]]:
    """`count` random perfect matchings of p ranks as partner vectors (with an
    odd p, one rank sits out as -1), from numpy's Generator seeded by `seed`."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        order = rng.permutation(p)
        partner = [-1] * p
        for a, b in zip(order[0:p - 1:2], order[1:p:2]):
            partner[int(a)], partner[int(b)] = int(b), int(a)
        out.append(partner)
    return out


def chain_partners(p: int) -> List[int]:
    """Rank i with p-1-i: every pair crosses the middle (the middle rank of an odd p sits out)."""
    return [p - 1 - i if p - 1 - i != i else -1 for i in range(p)]


def suite_patterns(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """The CM-5 paper's section 7 and contention patterns on all ranks: hypercube
    exchanges along d = 1 .. log2 P dimensions in sequence; random perfect
    matchings (one median per matching, so a row's samples are the distribution
    over matchings and `spread` its max / min); the chain (rank i with P-1-i);
    and one-step torus shifts in each direction under the row-major, Gray-code
    and shuffle placements (the last two only with power-of-two sides), with the
    fastest and slowest rank's median. Patterns needing more ranks are skipped."""
    p = comm.size
    if p < 2:
        return []
    sizes = [8, 4096, 65536] if quick else [8, 64, 512, 4096, 16384, 32768, 65536, 262144, 1 << 20]
    results = []

    def tick():
        if progress:
            progress()

    hyper = []
    for d in range(1, p.bit_length()):  # 2^d <= p
        for nbytes in sizes:
            samples = _adaptive(comm, lambda reps: _core.bench_hypercube(comm, d, nbytes, reps, 2, validate), quick)
            if comm.rank == 0:
                hyper.append({"dimension": d, "bytes": nbytes, "ranks": 2 ** d, **summarize(samples)})
            tick()
    results.append({"kernel": "hypercube", "params": {}, "rows": hyper})

    count, reps = (10, 5) if quick else (100, 10)
    matchings = comm.bcast(random_matchings(p, count, MATCHING_SEED) if comm.rank == 0 else None, root=0)
    rows = []
    for nbytes in sizes:
        medians = [float(np.median(_core.bench_matching(comm, partner, nbytes, reps, 1, validate)))
                   for partner in matchings]
        if comm.rank == 0:
            low = min(medians)
            rows.append({"bytes": nbytes, "ranks": p, "matchings": count,
                         "spread": max(medians) / low if low > 0 else None, **summarize(medians)})
        tick()
    results.append({"kernel": "matching", "params": {"seed": MATCHING_SEED}, "rows": rows})

    chain = chain_partners(p)
    rows = []
    for nbytes in sizes:
        samples = _adaptive(comm, lambda reps: _core.bench_matching(comm, chain, nbytes, reps, 2, validate), quick)
        if comm.rank == 0:
            rows.append({"bytes": nbytes, "ranks": p, **summarize(samples)})
        tick()
    results.append({"kernel": "chain", "params": {}, "rows": rows})

    mesh_rows, mesh_cols = mesh_shape(p)
    powers_of_two = _is_power_of_two(mesh_rows) and _is_power_of_two(mesh_cols)
    for placement in PLACEMENTS:
        if placement != "row-major" and not powers_of_two:
            continue  # Gray codes and bit shuffles place power-of-two sides
        rows = []
        for direction in DIRECTIONS:
            for nbytes in sizes:
                own: List[float] = []

                def measure(reps):
                    slowest, mine = _core.bench_mesh_shift(comm, mesh_rows, mesh_cols, placement, direction, nbytes,
                                                           reps, 2, validate)
                    own.extend(mine)
                    return slowest

                samples = _adaptive(comm, measure, quick)
                rank_medians = comm.gather(float(np.median(own)) * 1e6, root=0)
                if comm.rank == 0:
                    rows.append({"direction": direction, "bytes": nbytes, "ranks": p,
                                 "min_rank_median_us": min(rank_medians), "max_rank_median_us": max(rank_medians),
                                 **summarize(samples)})
                tick()
        results.append({"kernel": "mesh_shift", "params": {"placement": placement, "mesh": [mesh_rows, mesh_cols]},
                        "rows": rows})
    return results


SUITES: Dict[str, Callable] = {"pt2pt": suite_pt2pt, "collectives": suite_collectives, "local": suite_local,
                               "patterns": suite_patterns}


def _warnings(on_host: int, results) -> List[str]:
    notes = []
    cores = os.cpu_count() or 1
    if on_host > cores:
        notes.append(f"{on_host} ranks share {cores} cores on a host: timings include oversubscription")
    for r in results:
        for row in r["rows"]:
            if row["mean_us"] > 1.5 * row["median_us"]:
                notes.append(f"{r['kernel']} {row['bytes']} bytes: mean {row['mean_us']:.2f} us exceeds 1.5 x "
                             f"median {row['median_us']:.2f} us (noisy)")
    return notes


def run_suites(names: Sequence[str], comm: Optional[MPI.Comm] = None, quick: bool = False,
               validate: bool = False, progress=None) -> Optional[dict]:
    """Collective. Runs the named suites ("all" for every suite) and returns the
    results document on rank 0 (None elsewhere)."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if comm.size < 2:
        raise ValueError("the benchmarks need at least 2 ranks")
    names = list(SUITES) if "all" in names else list(names)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        raise ValueError(f"unknown suite(s) {unknown}; choose from {sorted(SUITES)} or 'all'")
    info = provenance(comm)
    results = []
    for name in names:
        results += SUITES[name](comm, quick=quick, validate=validate, progress=progress)
    host = comm.Split_type(MPI.COMM_TYPE_SHARED)  # collective: ranks sharing this node
    on_host = host.size
    host.Free()
    if comm.rank != 0:
        return None
    warnings = _warnings(on_host, results)
    info["environment"] = {k: v for k, v in os.environ.items()
                           if k.startswith(("MPIR_CVAR", "OMPI_MCA", "MPICH_", "I_MPI_", "UCX_", "FI_"))}
    return {"schema": SCHEMA, "provenance": info, "quick": quick, "validated": validate,
            "warnings": warnings, "results": results}


def write_results(doc: dict, path: str) -> None:
    """Writes a results document as JSON (whole or not at all)."""
    with atomic_write(path) as f:
        json.dump(doc, f, indent=1)
