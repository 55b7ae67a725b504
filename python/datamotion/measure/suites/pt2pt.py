"""Point to point between two ranks: ping-pong, exchange, streaming and bidirectional
bandwidth over message sizes, a fine sweep, and the distance from rank 0."""

from __future__ import annotations

from typing import List

from ... import _core
from ..constants import FINE_SIZES, FULL_SIZES, PAIR_KERNELS, QUICK_SIZES
from ..stats import adaptive, iterations, summarize


def _pair_rows(comm, kernel, sizes, quick, validate, a=0, b=1, progress=None) -> List[dict]:
    rows = []
    for nbytes in sizes:
        samples = adaptive(comm, lambda reps: _core.bench_pair(kernel, comm, a, b, nbytes, reps, 2, iterations(nbytes),
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
        samples = adaptive(comm, lambda reps: _core.bench_pair("pingpong", comm, 0, peer, 8, reps, 2, 20, 1,
                                                                 validate), quick)
        if comm.rank == 0:
            rows.append({"bytes": 8, "ranks": 2, "src": 0, "dst": peer, **summarize(samples)})
    results.append({"kernel": "distance", "params": {"bytes": 8}, "rows": rows})
    return results

