"""The CM-5 paper's remaining experiments (Dincer, Bozkus, Ranka & Fox): scalar
arithmetic (Table 1), every reduction and scan operator by element type (Table 4),
the message-alignment sawtooth (Figures 5 and 6), distance at 16 bytes and 1 KB
(Figures 8 and 9), torus shifts on every mesh shape (Table 5), hypercube exchange
one dimension at a time (Figure 15) and the aggregate rate of the vector
operations on 1 .. P ranks (the peak rates of Tables 2 and 3). Their section of
the report is measure/report/cm5.py."""

from __future__ import annotations

import os
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np
from mpi4py import MPI

from ... import _core
from ..stats import adaptive, summarize

SCALAR_DTYPES = ("int16", "int32", "float32", "float64")
"""Table 1's columns: short int, long int (32 bits on the CM-5's SPARC), single, double."""
SCALAR_OPS = ("add", "subtract", "multiply", "divide", "madd")
SCALAR_OPERANDS = ("registers", "a&s1&s2", "a&b&c", "a&b&s")
"""Where the operands come from: registers (the text of section 4.1), then Table 1's
three rows of operands in cache."""
SCALAR_ELEMENTS = 512
"""Array length of the scalar statements: three arrays of it fit in any L1 cache,
like the paper's operands "available in the on-board cache"."""

REDUCTION_COLLECTIVES = ("reduce", "allreduce", "scan")
REDUCTION_DTYPES = ("int32", "uint32", "int64", "float32", "float64")
"""Table 4's integer, unsigned integer and double precision, and the widths beside them."""
ARITHMETIC_OPS = ("sum", "prod", "max", "min")
BITWISE_OPS = ("band", "bor", "bxor", "land", "lor")
"""Table 4's ior, xor and and, with the logical and/or MPI adds; integers only."""
SEGSCAN_COMBOS = tuple((dtype, op) for dtype in ("int64", "float64") for op in ("add", "max", "min"))
"""Table 4's segmented scans that bench_segscan implements."""
SEGMENT_LENGTH = 10
"""One segment start in ten elements: the paper's segment bit on with probability 10%."""


def table4_combinations() -> List[Tuple[str, str, str]]:
    """Every (collective, op, dtype) the Table 4 experiment measures."""
    return [(coll, op, dtype) for coll in REDUCTION_COLLECTIVES for dtype in REDUCTION_DTYPES
            for op in ARITHMETIC_OPS + (BITWISE_OPS if dtype in ("int32", "uint32", "int64") else ())]


def mesh_shapes(p: int) -> List[Tuple[int, int]]:
    """Every rows x cols torus of p ranks (both orientations), fewest rows first."""
    return [(r, p // r) for r in range(1, p + 1) if p % r == 0]


def hypercube_dimensions(p: int) -> int:
    """Dimensions of the largest hypercube on p ranks (log2 of the largest power of two <= p)."""
    return p.bit_length() - 1


ALIGNMENT_OFFSETS = (0, 1, 2, 4, 8)
"""Buffer start addresses past a 64-byte boundary: byte, half-word, word, double-word."""
MESH_SIZES = (16384, 32768, 65536)
"""Table 5's message lengths."""
DISTANCE_SIZES = (16, 1024)
"""Figures 8 (16 bytes) and 9 (1 Kilobyte)."""
VECTOR_OPS = ("b+s", "b+c", "b*s", "b*c", "s*b+c", "b*c+d*e")
AGGREGATE_ELEMENTS = 4096
"""Vector length of the aggregate rate: 32 KB of float64, the paper's longest vectors."""


def _sizes(quick: bool) -> Dict[str, list]:
    return {
        "reduction_counts": [1] if quick else [1, 128, 8192],
        "sawtooth": list(range(0, 577, 4)) if quick else list(range(0, 577, 1)),
        "sawtooth_offset": list(range(256, 577, 8)) if quick else list(range(0, 577, 4)),
        "hypercube": [16, 1024, 16384, 65536] if quick else [16, 256, 1024, 4096, 16384, 32768, 65536, 262144],
        "mesh": [16384, 65536] if quick else list(MESH_SIZES),
        "vector_ops": ["s*b+c", "b*c+d*e"] if quick else list(VECTOR_OPS),
    }


def _local(measure: Callable[[int], List[float]], quick: bool) -> List[float]:
    return adaptive(MPI.COMM_SELF, measure, quick)


def scalar_ops(comm, quick=False, progress=None) -> List[dict]:
    """Table 1 on rank 0 while the others wait: one row per operand placement,
    operation and type, with ns per statement and Mop/s (madd counts two)."""
    rows = []
    if comm.rank == 0:
        iters = 64 if quick else 256
        for operands in SCALAR_OPERANDS:
            for op in SCALAR_OPS:
                count = _core.cm5_scalar_op_count(op)
                for dtype in SCALAR_DTYPES:
                    samples = _local(lambda reps: _core.bench_cm5_scalar_op(dtype, op, operands, SCALAR_ELEMENTS,
                                                                          reps, 2, iters), quick)
                    s = summarize(samples)
                    ns = s["median_us"] * 1e3
                    rows.append({"operands": operands, "op": op, "dtype": dtype, "ops_per_statement": count,
                                 "elements": SCALAR_ELEMENTS, "ns_per_statement": ns,
                                 "mops": count * 1e3 / ns if ns > 0 else None, "ranks": 1, **s})
            if progress:
                progress()
    comm.Barrier()
    return [{"kernel": "cm5_scalar_ops", "params": {"elements": SCALAR_ELEMENTS}, "rows": rows}] \
        if comm.rank == 0 else []


def reduction_ops(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Table 4 on all ranks: every collective, operator and type of
    table4_combinations() at the paper's one element per rank (and longer
    vectors in full runs), then the segmented scans of SEGSCAN_COMBOS."""
    rows = []
    for coll, op, dtype in table4_combinations():
        width = 8 if dtype in ("int64", "float64") else 4
        for count in _sizes(quick)["reduction_counts"]:
            samples = adaptive(comm, lambda reps: _core.bench_cm5_reduction(comm, coll, op, dtype, count, reps, 2,
                                                                            validate), quick)
            if comm.rank == 0:
                rows.append({"collective": coll, "op": op, "dtype": dtype, "count": count, "bytes": count * width,
                             "ranks": comm.size, **summarize(samples)})
        if progress:
            progress()
    for dtype, op in SEGSCAN_COMBOS:
        samples = adaptive(comm, lambda reps: _core.bench_segscan(comm, dtype, op, 8, SEGMENT_LENGTH, reps, 2,
                                                                  validate), quick)
        if comm.rank == 0:
            rows.append({"collective": "segscan", "op": "sum" if op == "add" else op, "dtype": dtype, "count": 1,
                         "bytes": 8, "ranks": comm.size, **summarize(samples)})
    return [{"kernel": "cm5_reduction_ops", "params": {"ranks": comm.size, "segment_length": SEGMENT_LENGTH},
             "rows": rows}] if comm.rank == 0 else []


def alignment_sawtooth(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Figures 5 and 6: ping-pong between ranks 0 and 1 against the size in small
    steps with 64-byte aligned buffers, and at every offset of ALIGNMENT_OFFSETS
    on a coarser set of sizes. The offsets of one size are measured one after
    the other, so a change in the machine's load shifts them together instead
    of looking like an effect of alignment."""
    sizes = _sizes(quick)
    coarse = set(sizes["sawtooth_offset"])
    points = [(b, off) for b in sorted(set(sizes["sawtooth"]) | coarse) for off in ALIGNMENT_OFFSETS
              if (off == 0 and b in sizes["sawtooth"]) or (off and b in coarse)]
    rows = []
    for nbytes, offset in points:
        samples = adaptive(comm, lambda reps: _core.bench_cm5_aligned_pingpong(comm, 0, 1, nbytes, offset, reps, 2,
                                                                               10, validate), quick)
        if comm.rank == 0:
            rows.append({"bytes": nbytes, "offset": offset, "ranks": 2, "src": 0, "dst": 1, **summarize(samples)})
    if progress:
        progress()
    return [{"kernel": "cm5_alignment", "params": {"offsets": list(ALIGNMENT_OFFSETS)}, "rows": rows}] \
        if comm.rank == 0 else []


def distance(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Figures 8 and 9: ping-pong from rank 0 to every other rank at 16 bytes and 1 KB."""
    rows = []
    for nbytes in DISTANCE_SIZES:
        for peer in range(1, comm.size):
            samples = adaptive(comm, lambda reps: _core.bench_pair("pingpong", comm, 0, peer, nbytes, reps, 2, 20, 1,
                                                                     validate), quick)
            if comm.rank == 0:
                rows.append({"bytes": nbytes, "ranks": 2, "src": 0, "dst": peer, **summarize(samples)})
    if progress:
        progress()
    return [{"kernel": "cm5_distance", "params": {"sizes": list(DISTANCE_SIZES)}, "rows": rows}] \
        if comm.rank == 0 else []


def mesh_shift_shapes(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Table 5: one-step torus shifts in every direction on every mesh shape of
    the ranks, under the paper's shuffled row-major placement (its Figure 13),
    with the fastest and slowest rank's median (the paper's min and max)."""
    directions = ("north", "east", "west", "south")
    results = []
    for rows_, cols in mesh_shapes(comm.size):
        rows = []
        for direction in directions:
            for nbytes in _sizes(quick)["mesh"]:
                own: List[float] = []

                def measure(reps):
                    slowest, mine = _core.bench_mesh_shift(comm, rows_, cols, "shuffle", direction, nbytes, reps, 2,
                                                           validate)
                    own.extend(mine)
                    return slowest

                samples = adaptive(comm, measure, quick)
                medians = comm.gather(float(np.median(own)) * 1e6, root=0)
                if comm.rank == 0:
                    rows.append({"direction": direction, "bytes": nbytes, "ranks": comm.size,
                                 "min_rank_median_us": min(medians), "max_rank_median_us": max(medians),
                                 **summarize(samples)})
        results.append({"kernel": "cm5_mesh_shift", "params": {"placement": "shuffle", "mesh": [rows_, cols]},
                        "rows": rows})
        if progress:
            progress()
    return results if comm.rank == 0 else []


def hypercube_per_dimension(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Figure 15: exchange along one hypercube dimension at a time, i = 0 .. log2 P - 1."""
    rows = []
    for dim in range(hypercube_dimensions(comm.size)):
        for nbytes in _sizes(quick)["hypercube"]:
            samples = adaptive(comm, lambda reps: _core.bench_cm5_hypercube_dimension(comm, dim, nbytes, reps, 2,
                                                                                      validate), quick)
            if comm.rank == 0:
                rows.append({"dimension": dim, "bytes": nbytes, "ranks": 2 ** hypercube_dimensions(comm.size),
                             **summarize(samples)})
        if progress:
            progress()
    return [{"kernel": "cm5_hypercube_dimension", "params": {}, "rows": rows}] if comm.rank == 0 else []


def aggregate_flops(comm, quick=False, progress=None) -> List[dict]:
    """Tables 2 and 3's peak rates: the first p ranks (p = 1 .. P) run a vector
    operation at once, each sample about a millisecond of sweeps. A rank's rate
    is flops x length over its median sweep time: its speed while it runs, like
    the paper's R_inf per node; the row's aggregate_mflops is the sum over the p
    ranks (the paper's peak rate), its summary the per-sweep samples of all of
    them. aggregate_wall_mflops sums flops over wall time instead, time a rank
    was descheduled included: below aggregate_mflops when ranks outnumber free
    cores. shared_cores marks rows where ranks of a host outnumber its cores: their
    rates do not add up to a machine's."""
    ops = _sizes(quick)["vector_ops"]
    n = AGGREGATE_ELEMENTS
    results = {(op, dtype): [] for dtype in ("float64", "float32") for op in ops}
    cores = os.cpu_count() or 1
    for p in range(1, comm.size + 1):
        sub = comm.Split(0 if comm.rank < p else MPI.UNDEFINED, comm.rank)
        if sub != MPI.COMM_NULL:
            host = sub.Split_type(MPI.COMM_TYPE_SHARED)
            shared = host.allreduce(1 if host.size > cores else 0, op=MPI.MAX) > 0
            host.Free()
            for (op, dtype), rows in results.items():
                flops, single = _core.vector_op_flops(op), dtype == "float32"
                probe = _core.bench_vector(op, single, n, 3, 1, 16)  # warm caches; size the samples
                iters = max(1, min(100000, int(1e-3 / max(float(np.median(probe)), 1e-9))))
                own: List[float] = []
                wall = [0.0]

                def measure(reps):
                    sub.Barrier()  # every rank computes at the same time
                    t0 = MPI.Wtime()
                    samples = _core.bench_vector(op, single, n, reps, 0, iters)
                    wall[0] += MPI.Wtime() - t0
                    own.extend(samples)
                    return samples

                adaptive(sub, measure, quick)
                rate = flops * n / (float(np.median(own)) * 1e6)  # Mflop/s of this rank while it runs
                rates = sub.gather(rate, root=0)
                walls = sub.gather(flops * n * iters * len(own) / (wall[0] * 1e6), root=0)
                everyone = sub.gather(own, root=0)
                if comm.rank == 0:
                    rows.append({"ranks": p, "elements": n, "bytes": n * (4 if single else 8),
                                 "aggregate_mflops": float(sum(rates)), "min_rank_mflops": float(min(rates)),
                                 "max_rank_mflops": float(max(rates)), "aggregate_wall_mflops": float(sum(walls)),
                                 "shared_cores": bool(shared),
                                 **summarize([s for samples in everyone for s in samples])})
            sub.Free()
        if progress:
            progress()
    comm.Barrier()
    if comm.rank != 0:
        return []
    return [{"kernel": "cm5_aggregate_flops", "params": {"op": f"a={op}", "dtype": dtype, "elements": n,
                                                         "flops_per_element": _core.vector_op_flops(op)},
             "rows": rows} for (op, dtype), rows in results.items()]


EXPERIMENTS: Sequence[Tuple[str, Callable]] = (
    ("cm5_scalar_ops", lambda comm, quick, validate, progress: scalar_ops(comm, quick, progress)),
    ("cm5_reduction_ops", reduction_ops),
    ("cm5_alignment", alignment_sawtooth),
    ("cm5_distance", distance),
    ("cm5_mesh_shift", mesh_shift_shapes),
    ("cm5_hypercube_dimension", hypercube_per_dimension),
    ("cm5_aggregate_flops", lambda comm, quick, validate, progress: aggregate_flops(comm, quick, progress)),
)
"""Kernel name -> the function that measures it, in the order the suite runs them."""


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm (at least 2 ranks). Every experiment of EXPERIMENTS: result
    entries on rank 0, [] elsewhere."""
    if comm.size < 2:
        raise ValueError("the CM-5 experiments need at least 2 ranks")
    results: List[dict] = []
    for _, experiment in EXPERIMENTS:
        results += experiment(comm, quick, validate, progress)
    return results
