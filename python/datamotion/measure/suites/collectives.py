"""Barrier, the MPI collectives and segmented scans over message sizes and rank counts.

Barrier and the collectives follow OSU 7.4's rules (``stats.osu_rules``): a
sample is the mean over ranks of each rank's mean time of a batch of calls,
after OSU's warm-up, as osu_barrier and osu_allreduce report it."""

from __future__ import annotations

from typing import Dict, List

from ..._mpi import MPI  # MPI at the thread level _mpi settles

from ... import _core
from ..stats import adaptive, osu_params, osu_rules, summarize

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
        rules = osu_rules("collective", 0)
        samples = adaptive(sub, lambda reps: _core.bench_barrier(sub, reps, rules["warmup"], rules["iterations"]),
                           quick)
        if comm.rank == 0:
            rows["barrier"].append({"bytes": 0, "ranks": p, **summarize(samples)})
        for op in COLLECTIVES:
            for nbytes in sizes:
                rules = osu_rules("collective", nbytes)
                samples = adaptive(sub, lambda reps: _core.bench_collective(op, sub, nbytes, reps, rules["warmup"],
                                                                             validate, rules["iterations"]), quick)
                if comm.rank == 0:
                    rows[op].append({"bytes": nbytes, "ranks": p, **summarize(samples)})
                if progress:
                    progress()
        for (dtype, op), out in segscan_rows.items():
            for nbytes in sizes:
                samples = adaptive(sub, lambda reps: _core.bench_segscan(sub, dtype, op, nbytes, SEGMENT_LENGTH, reps,
                                                                          2, validate), quick)
                if comm.rank == 0:
                    out.append({"bytes": nbytes, "ranks": p, **summarize(samples)})
                if progress:
                    progress()
        sub.Free()
    return ([{"kernel": kernel, "params": osu_params("collective"), "rows": r} for kernel, r in rows.items()]
            + [{"kernel": "segscan", "params": {"dtype": dtype, "op": op, "segment_length": SEGMENT_LENGTH}, "rows": r}
               for (dtype, op), r in segscan_rows.items()])

