"""The CVL on MPI paper's experiments, on ``datamotion.vector`` over the ranks of the
communicator the suite is given:
its Figure 2 (buffer size against permutation bandwidth), Figure 3 (permutation
bandwidth against the number of ranks), Figure 4 (bandwidth against the number of
elements per rank), Figures 5 and 6 (the NESL line-fit and median benchmarks of its
appendix) and Tables 1 and 2 (per-element rates of the vector operations out of
cache, and the fixed overhead of a plus-reduce in 64-bit additions).

Kernels (see measure/report/cvl.py for their section):

- ``cvl_buffer_size``: a random permutation of float64 elements in plain MPI, sent as
  messages of at most ``buffer_bytes`` (the knob of the paper's MPI CVL; our library
  has none: ``vector.permute`` sends one message per peer, whatever its size), each
  element travelling with its 32-bit destination offset, bucketed by owner once
  before timing, beside ``vector.permute`` of the same permutation (bucketing
  included).
- ``cvl_sweep``: one entry per operation (elementwise add, add-scan, add-reduce,
  random permutation) over elements per rank; params hold t0, the asymptotic rate
  and n_1/2 of T(n) = t0 + n / r.
- ``cvl_scaling``: the random permutation's bandwidth per rank on the first P ranks,
  P = 2 .. size, at a length per rank past the caches (Figure 3: horizontal is perfect).
- ``cvl_nesl``: one entry per benchmark (``linefit``: the least-squares line of the
  appendix, five plus-reductions; ``median``: quickselect, the partitions packed and
  load-balanced by ``vector.pack``) over elements per rank; params hold t0, the
  asymptotic rate and n_1/2 as for ``cvl_sweep``.
- ``cvl_table2``: the operations at an out-of-cache length (ns per element, Mflop/s
  of the arithmetic ones, Mwords/s of the permutation), and the overhead of an int32
  plus-reduce of one element per rank with the number of additions it is worth.
"""

from __future__ import annotations

import gc
from typing import Dict, List

import numpy as np
from mpi4py import MPI

from ... import _core
from ... import vector as cv
from ..fit import fit_piecewise_linear
from ..memory import machine_caches
from ..nesl import linefit, select_kth
from ..stats import time_call

RECORD = np.dtype([("offset", "<u4"), ("value", "<f8")])  # packed: 12 bytes per element on the wire
BUFFER_BYTES = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
QUICK_BUFFER_BYTES = [256, 4096, 65536]
BUFFER_ELEMENTS, QUICK_BUFFER_ELEMENTS = 1 << 17, 1 << 14  # per rank

SWEEP_ELEMENTS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576]
QUICK_SWEEP_ELEMENTS = [1, 16, 256, 4096, 65536]
SWEEP_OPS = ("add", "scan", "reduce", "permute")
TABLE_ELEMENTS, QUICK_TABLE_ELEMENTS = 1 << 22, 1 << 20  # per rank: 32 MiB and 8 MiB per vector
TABLE_OPS = ("add", "mul", "scan", "reduce", "permute")
FLOPS = {"add": 1, "mul": 1, "scan": 1, "reduce": 1, "permute": 0}
"""64-bit floating-point operations per element."""
SCALING_ELEMENTS, QUICK_SCALING_ELEMENTS = 1 << 18, 1 << 16  # per rank: 2 MiB and 512 KiB of float64
NESL_ELEMENTS = [16, 64, 256, 1024, 4096, 16384, 65536, 262144]
QUICK_NESL_ELEMENTS = [16, 256, 4096, 65536]
NESL_BENCHMARKS = ("linefit", "median")
SEED = 1994


def _permutation(comm, n_per_rank: int) -> np.ndarray:
    """The same random permutation of every element on every rank."""
    return np.random.default_rng(SEED).permutation(n_per_rank * comm.size).astype(np.int32)


# ---------------------------------------------------------------------------
# Figure 2: buffer size
# ---------------------------------------------------------------------------


class BufferedPermute:
    """``y[perm[k]] = x[k]`` over the ranks in plain MPI, the elements bound for each
    rank sent as messages of at most ``buffer_bytes`` (every message to every peer in
    flight at once), the own ones copied, all written into place on arrival. The
    elements are bucketed by owner, with their offsets there, once at construction:
    a call times the messages and the unpacking, which is where the buffer size acts."""

    def __init__(self, comm: MPI.Comm, perm: np.ndarray, n_per_rank: int):
        self.comm, self.n = comm, n_per_rank
        lo = comm.rank * n_per_rank
        index = perm[lo:lo + n_per_rank].astype(np.int64)
        owner = index // n_per_rank
        order = np.argsort(owner, kind="stable")
        self.records = np.empty(n_per_rank, RECORD)
        self.records["offset"] = (index - owner * n_per_rank)[order]
        self.records["value"] = np.arange(lo, lo + n_per_rank, dtype=np.float64)[order]
        counts = np.bincount(owner, minlength=comm.size).astype(np.int64)
        incoming = np.empty(comm.size, np.int64)
        comm.Alltoall(counts, incoming)
        self.send_at = np.concatenate(([0], np.cumsum(counts))).tolist()
        self.recv_at = np.concatenate(([0], np.cumsum(incoming))).tolist()
        self.arrived = np.empty(self.recv_at[-1], RECORD)
        self.y = np.zeros(n_per_rank)

    def _pieces(self, at, per_message):
        me = self.comm.rank
        for peer in range(self.comm.size):
            if peer != me:
                for start in range(at[peer], at[peer + 1], per_message):
                    yield peer, start, min(start + per_message, at[peer + 1])

    def __call__(self, buffer_bytes: int) -> int:
        """Moves the elements; returns the number of messages this rank sent."""
        comm, me = self.comm, self.comm.rank
        per_message = max(1, buffer_bytes // RECORD.itemsize)
        requests = [comm.Irecv([self.arrived[a:b].view(np.uint8), MPI.BYTE], peer)
                    for peer, a, b in self._pieces(self.recv_at, per_message)]
        received = len(requests)
        requests += [comm.Isend([self.records[a:b].view(np.uint8), MPI.BYTE], peer)
                     for peer, a, b in self._pieces(self.send_at, per_message)]
        self.arrived[self.recv_at[me]:self.recv_at[me + 1]] = self.records[self.send_at[me]:self.send_at[me + 1]]
        MPI.Request.Waitall(requests)
        self.y[self.arrived["offset"]] = self.arrived["value"]
        return len(requests) - received

    def correct(self, perm: np.ndarray) -> bool:
        lo = self.comm.rank * self.n
        expected = np.empty(len(perm))
        expected[perm] = np.arange(len(perm), dtype=np.float64)
        return bool(np.array_equal(self.y, expected[lo:lo + self.n]))


def buffer_size_entry(comm, quick: bool, validate: bool) -> dict:
    n = QUICK_BUFFER_ELEMENTS if quick else BUFFER_ELEMENTS
    perm = _permutation(comm, n)
    mover = BufferedPermute(comm, perm, n)
    base = {"elements_per_rank": n, "elements": n * comm.size, "ranks": comm.size, "bytes": 8 * n}
    rows = []
    for nbytes in (QUICK_BUFFER_BYTES if quick else BUFFER_BYTES):
        messages = comm.allreduce(mover(nbytes), op=MPI.MAX)
        if validate and not comm.allreduce(mover.correct(perm), op=MPI.LAND):
            raise RuntimeError(f"the buffered permutation with {nbytes}-byte messages moved wrong values")
        row = time_call(comm, lambda: mover(nbytes), quick)
        rows.append({"method": "buffered", "buffer_bytes": nbytes, "messages_per_rank": messages, **base,
                     "mwords_per_s": n / row["median_us"], **row})
    x = cv.Vector.from_numpy(np.arange(n * comm.size, dtype=np.float64), comm)
    index = cv.Vector.from_numpy(perm, comm)
    if validate:
        expected = np.empty(len(perm))
        expected[perm] = np.arange(len(perm), dtype=np.float64)
        if not np.array_equal(cv.permute(x, index).to_numpy(), expected):
            raise RuntimeError("vector.permute moved wrong values")
    row = time_call(comm, lambda: cv.permute(x, index), quick)
    rows.append({"method": "vector.permute", "buffer_bytes": None, "messages_per_rank": comm.size - 1, **base,
                 "mwords_per_s": n / row["median_us"], **row})
    return {"kernel": "cvl_buffer_size", "params": {"dtype": "float64", "record_bytes": RECORD.itemsize,
                                                    "permutation": "random", "seed": SEED}, "rows": rows}


# ---------------------------------------------------------------------------
# Figure 4 and Tables 1-2: the operations per length
# ---------------------------------------------------------------------------


class Operands:
    """The vectors of one length (elements per rank) on ``comm`` and the operations on them."""

    def __init__(self, comm, n_per_rank: int):
        n = n_per_rank * comm.size
        self.x = cv.distribute(1.5, n, np.float64, comm)
        self.y = cv.distribute(0.25, n, np.float64, comm)
        self.index = cv.Vector.from_numpy(_permutation(comm, n_per_rank), comm)

    def run(self, op: str):
        if op == "add":
            return self.x + self.y
        if op == "mul":
            return self.x * self.y
        if op == "scan":
            return cv.scan(self.x, "add")
        if op == "reduce":
            return cv.reduce(self.x, "add")
        if op == "permute":
            return cv.permute(self.x, self.index)
        raise ValueError(f"unknown vector operation {op!r}")


def rate_fit(n_per_rank, median_us) -> dict:
    """T(n) = t0 + n / r weighted by 1/T^2 (the short vectors decide t0): t0 in µs, r in
    elements per µs per rank (M elements/s), n_1/2 = t0 r elements per rank."""
    line = fit_piecewise_linear(list(n_per_rank), list(median_us), max_breakpoints=0, min_points=2).segments[0]
    rate = 1.0 / line.us_per_byte if line.us_per_byte > 0 else None  # "bytes" are elements here
    t0 = max(0.0, line.t0_us)
    return {"t0_us": t0, "rate_melem_per_s": rate, "nhalf": t0 * rate if rate else None}


def sweep_entries(comm, quick: bool, progress=None) -> List[dict]:
    lengths = QUICK_SWEEP_ELEMENTS if quick else SWEEP_ELEMENTS
    rows: Dict[str, List[dict]] = {op: [] for op in SWEEP_OPS}
    for n in lengths:
        operands = Operands(comm, n)
        for op in SWEEP_OPS:
            row = time_call(comm, lambda: operands.run(op), quick)
            rows[op].append({"elements_per_rank": n, "elements": n * comm.size, "bytes": 8 * n, "ranks": comm.size,
                             "mwords_per_s": n / row["median_us"], **row})
        del operands
        gc.collect()  # the vectors' memory goes back before the next, longer ones are made
        if progress:
            progress()
    return [{"kernel": "cvl_sweep", "params": {"op": op, "dtype": "float64", **rate_fit(
        [r["elements_per_rank"] for r in rows[op]], [r["median_us"] for r in rows[op]])}, "rows": rows[op]}
        for op in SWEEP_OPS]


def table2_entry(comm, quick: bool) -> dict:
    n = QUICK_TABLE_ELEMENTS if quick else TABLE_ELEMENTS
    operands = Operands(comm, n)
    rows = []
    for op in TABLE_OPS:
        row = time_call(comm, lambda: operands.run(op), quick)
        rate = n / row["median_us"]  # elements per µs per rank
        rows.append({"op": op, "dtype": "float64", "elements_per_rank": n, "elements": n * comm.size,
                     "bytes": 8 * n, "ranks": comm.size, "ns_per_element": 1e3 * row["median_us"] / n,
                     "mflops": FLOPS[op] * rate if FLOPS[op] else None,
                     "mwords_per_s": rate if op == "permute" else None, **row})
    del operands
    gc.collect()
    one = cv.distribute(1, comm.size, np.int32, comm)  # one element per rank
    overhead = time_call(comm, lambda: cv.reduce(one, "add"), quick)
    rows.append({"op": "plus-reduce overhead", "dtype": "int32", "elements_per_rank": 1, "elements": comm.size,
                 "ranks": comm.size, "ns_per_element": 1e3 * overhead["median_us"], "mflops": None,
                 "mwords_per_s": None, **overhead})
    by_op = {r["op"]: r for r in rows}
    add_us = by_op["add"]["median_us"] / n  # one out-of-cache 64-bit addition, per rank
    mflops, mwords = by_op["add"]["mflops"], by_op["permute"]["mwords_per_s"]
    return {"kernel": "cvl_table2", "params": {
        "elements_per_rank": n, "reduce_overhead_us": overhead["median_us"], "add_mflops": mflops,
        "flops_equivalent": overhead["median_us"] / add_us, "permute_mwords_per_s": mwords,
        "ratio": mflops / mwords, "checked_mode": bool(_core.checked_mode()),
        # whether the vectors left the caches: the report says so beside the paper's out-of-cache rates
        "last_level_cache_bytes": max((c["bytes"] for c in machine_caches()), default=None)}, "rows": rows}


# ---------------------------------------------------------------------------
# Figure 3: the permutation against the number of ranks
# ---------------------------------------------------------------------------


def scaling_entry(comm, quick: bool, progress=None) -> dict:
    """Collective on comm. The random permutation on the first P ranks, P = 2 .. size."""
    n = QUICK_SCALING_ELEMENTS if quick else SCALING_ELEMENTS
    rows = []
    for P in range(2, comm.size + 1):
        sub = comm.Split(0 if comm.rank < P else MPI.UNDEFINED, comm.rank)
        if sub != MPI.COMM_NULL:
            x = cv.distribute(1.5, n * P, np.float64, sub)
            index = cv.Vector.from_numpy(_permutation(sub, n), sub)
            row = time_call(sub, lambda: cv.permute(x, index), quick)
            del x, index
            gc.collect()
            if sub.rank == 0:
                rows.append({"ranks": P, "elements_per_rank": n, "elements": n * P, "bytes": 8 * n,
                             "mwords_per_s": n / row["median_us"], **row})
            sub.Free()
        if progress:
            progress()
    return {"kernel": "cvl_scaling", "params": {"dtype": "float64", "permutation": "random", "seed": SEED},
            "rows": rows}


# ---------------------------------------------------------------------------
# Figures 5 and 6: the NESL benchmarks of the appendix
# ---------------------------------------------------------------------------


def nesl_entries(comm, quick: bool, validate: bool, progress=None) -> List[dict]:
    lengths = QUICK_NESL_ELEMENTS if quick else NESL_ELEMENTS
    rows: Dict[str, List[dict]] = {b: [] for b in NESL_BENCHMARKS}
    for n in lengths:
        total = n * comm.size
        rng = np.random.default_rng(SEED + n)
        xs = np.arange(total, dtype=np.float64)
        ys = 2.0 + 0.5 * xs + rng.normal(0.0, 1.0, total)
        keys = rng.permutation(total).astype(np.float64)
        x, y, s = (cv.Vector.from_numpy(v, comm) for v in (xs, ys, keys))
        if validate:
            a, b, _, _ = linefit(x, y)
            slope, intercept = np.polyfit(xs, ys, 1)
            if not (np.isclose(a, intercept) and np.isclose(b, slope)):
                raise RuntimeError(f"linefit of {total} points gave a={a}, b={b}, NumPy {intercept}, {slope}")
            if select_kth(s, total // 2) != np.sort(keys)[total // 2]:
                raise RuntimeError(f"the median of {total} keys differs from NumPy's")
        for bench, call in (("linefit", lambda: linefit(x, y)), ("median", lambda: select_kth(s, total // 2))):
            row = time_call(comm, call, quick)
            rows[bench].append({"elements_per_rank": n, "elements": total, "bytes": 8 * n, "ranks": comm.size,
                                "melements_per_s": n / row["median_us"], **row})
        del x, y, s
        gc.collect()
        if progress:
            progress()
    return [{"kernel": "cvl_nesl", "params": {"benchmark": b, "dtype": "float64", **rate_fit(
        [r["elements_per_rank"] for r in rows[b]], [r["median_us"] for r in rows[b]])}, "rows": rows[b]}
        for b in NESL_BENCHMARKS]


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm, whose ranks hold the vectors (on a duplicate of comm, so that
    the suite's messages and vectors stay its own). The experiments' result entries on
    rank 0, [] elsewhere."""
    comm = comm.Dup()
    try:
        results = [buffer_size_entry(comm, quick, validate)]
        if progress:
            progress()
        results += sweep_entries(comm, quick, progress)
        results.append(scaling_entry(comm, quick, progress))
        results += nesl_entries(comm, quick, validate, progress)
        results.append(table2_entry(comm, quick))
        if progress:
            progress()
        return results if comm.rank == 0 else []
    finally:
        comm.Free()
