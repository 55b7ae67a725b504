"""The experiments of the Paragon/SP2/CS-2 paper (Bokhari, 1995) that the point-to-point
suite does not cover: contention (its Section 7), memcpy by alignment (Section 4), the
0-2000 byte sweep in steps of 16 (Figure 2) and the barrier on 2^d ranks (Section 3),
which with the fits give its one-table summary (Table 1). See measure/report/paragon.py."""

from __future__ import annotations

from typing import List

from mpi4py import MPI

from ... import _core
from ..stats import adaptive, iterations, summarize

SWEEP_SIZES = list(range(0, 2001, 16))
"""Figure 2 of the paper: 0 to 2000 bytes in steps of 16."""
SWEEP_METHODS = ("pingpong", "exchange", "paper")
"""The sweep's definitions of one message's time: our blocking ping-pong (half the round
trip), our one-message nonblocking exchange, and the paper's own: both ranks post ITERS
receives, meet in a barrier, send ITERS messages each and wait; the time over 2 ITERS."""
PAPER_ITERS = 200
"""ITERS on the Paragon and the CS-2 (Section 2)."""

CONTENTION_LEVELS = (1, 2, 4, 8, 16)
"""Messages sharing a path, up to the paper's maximum contention (16, a chain of 32 nodes)."""
QUICK_CONTENTION_LEVELS = (1, 4, 16)
CONTENTION_SIZES = [0, 256, 1024, 1792, 4096, 16384, 65536, 262144, 1 << 20]  # 1792: the Paragon's packet
QUICK_CONTENTION_SIZES = [0, 1792, 16384, 262144]
CONTENTION_MODES = ("messages", "chain")
"""How k messages share a path: "messages" sends k at once each way between ranks 0 and 1
(contention on one pair's path through the node), "chain" has k pairs, rank i with
2k-1-i, all crossing the middle of the chain (the paper's definition; k <= ranks / 2)."""

MEMCPY_OFFSETS = list(range(64))
QUICK_MEMCPY_OFFSETS = [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 48, 63]
MEMCPY_SIZES = [256, 4096, 65536, 1 << 20]
QUICK_MEMCPY_SIZES = [4096, 1 << 20]
MEMCPY_SWEEPS = ("src", "dst", "both")
"""Which offset varies: the source's (destination aligned), the destination's, or both
alike (the paper's "starting address of the transfer")."""
MEMCPY_RATE_SIZES = [1 << k for k in range(6, 25, 2)]
QUICK_MEMCPY_RATE_SIZES = [1 << k for k in range(10, 25, 2)]


def _tick(progress) -> None:
    if progress:
        progress()


def _sweep(comm, quick, validate, progress) -> List[dict]:
    entries = []
    for method in SWEEP_METHODS:
        rows = []
        for nbytes in SWEEP_SIZES:
            if method == "paper":
                def measure(reps):
                    samples = _core.bench_chain_exchange(comm, 1, PAPER_ITERS, nbytes, reps, 2, validate)
                    return [s / (2 * PAPER_ITERS) for s in samples]
            else:
                def measure(reps):
                    return _core.bench_pair(method, comm, 0, 1, nbytes, reps, 2, iterations(nbytes), 1, validate)
            samples = adaptive(comm, measure, quick)
            if comm.rank == 0:
                rows.append({"bytes": nbytes, "ranks": 2, "src": 0, "dst": 1, **summarize(samples)})
            _tick(progress)
        params = {"method": method, **({"iters": PAPER_ITERS} if method == "paper" else {})}
        entries.append({"kernel": "paragon_sweep", "params": params, "rows": rows})
    return entries


def _contention(comm, quick, validate, progress) -> List[dict]:
    levels = QUICK_CONTENTION_LEVELS if quick else CONTENTION_LEVELS
    sizes = QUICK_CONTENTION_SIZES if quick else CONTENTION_SIZES
    entries = []
    for mode in CONTENTION_MODES:
        ks = levels if mode == "messages" else range(1, comm.size // 2 + 1)
        rows, base = [], {}
        for k in ks:
            pairs, messages = (1, k) if mode == "messages" else (k, 1)
            for nbytes in sizes:
                samples = adaptive(comm, lambda reps: _core.bench_chain_exchange(comm, pairs, messages, nbytes, reps,
                                                                                   2, validate), quick)
                if comm.rank == 0:
                    row = {"k": k, "pairs": pairs, "messages": messages, "bytes": nbytes, "ranks": 2 * pairs,
                           **summarize(samples)}
                    base.setdefault(nbytes, row["median_us"])  # k = 1 comes first
                    row["slowdown"] = row["median_us"] / base[nbytes] if base[nbytes] > 0 else None
                    rows.append(row)
                _tick(progress)
        entries.append({"kernel": "paragon_contention", "params": {"mode": mode}, "rows": rows})
    return entries


def _memcpy_samples(nbytes, src, dst, quick, validate) -> List[float]:
    iters = max(1, min(1000, (1 << 18) // max(nbytes, 1)))
    return adaptive(MPI.COMM_SELF, lambda reps: _core.bench_memcpy_offsets(nbytes, src, dst, reps, 2, iters, validate),
                    quick)


def _memcpy(comm, quick, validate, progress) -> List[dict]:
    """On rank 0 while the others wait."""
    entries = []
    if comm.rank == 0:
        rows = []

        def add(sweep, nbytes, src, dst):
            s = summarize(_memcpy_samples(nbytes, src, dst, quick, validate))
            rows.append({"sweep": sweep, "bytes": nbytes, "src_offset": src, "dst_offset": dst, "ranks": 1, **s,
                         "ns_per_byte": 1e3 * s["median_us"] / nbytes})
            _tick(progress)

        for nbytes in QUICK_MEMCPY_RATE_SIZES if quick else MEMCPY_RATE_SIZES:
            add("size", nbytes, 0, 0)
        for nbytes in QUICK_MEMCPY_SIZES if quick else MEMCPY_SIZES:
            for offset in QUICK_MEMCPY_OFFSETS if quick else MEMCPY_OFFSETS:
                add("src", nbytes, offset, 0)
                add("dst", nbytes, 0, offset)
                add("both", nbytes, offset, offset)
        entries.append({"kernel": "paragon_memcpy_alignment", "params": {"page_bytes": 4096}, "rows": rows})
    comm.Barrier()
    return entries


def _barrier(comm, quick, progress) -> List[dict]:
    rows = []
    for p in range(2, comm.size + 1):
        sub = comm.Split(0 if comm.rank < p else MPI.UNDEFINED, comm.rank)
        if sub != MPI.COMM_NULL:
            samples = adaptive(sub, lambda reps: _core.bench_barrier(sub, reps, 2), quick)
            if comm.rank == 0:
                rows.append({"bytes": 0, "ranks": p, **summarize(samples)})
            sub.Free()
        comm.Barrier()
        _tick(progress)
    return [{"kernel": "paragon_barrier", "params": {}, "rows": rows}]


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm (at least 2 ranks). On rank 0, the entries:

    * ``paragon_sweep`` (one per ``method`` of :data:`SWEEP_METHODS`): ranks 0 and 1 at
      every multiple of 16 bytes from 0 to 2000 (the paper's Figure 2);
    * ``paragon_contention`` (one per ``mode`` of :data:`CONTENTION_MODES`): k messages
      sharing a path, rows per k and size with the ``slowdown`` over k = 1 (Section 7);
    * ``paragon_memcpy_alignment``: memcpy on rank 0 at offsets from a page boundary,
      rows per ``sweep`` (``size``: aligned, over sizes; ``src``, ``dst``, ``both``: over
      offsets 0..63) with ``ns_per_byte`` (Section 4);
    * ``paragon_barrier``: MPI_Barrier on the first P ranks, P = 2 .. ranks (Section 3).

    [] on the other ranks."""
    if comm.size < 2:
        raise ValueError("the paragon suite needs at least 2 ranks")
    results = _sweep(comm, quick, validate, progress)
    results += _contention(comm, quick, validate, progress)
    results += _memcpy(comm, quick, validate, progress)
    results += _barrier(comm, quick, progress)
    return results if comm.rank == 0 else []
