"""Point to point between two ranks: ping-pong, exchange, streaming and bidirectional
bandwidth over message sizes, a fine sweep, and the distance from rank 0.

Each sample follows OSU 7.4's rules (``stats.osu_rules``): ping-pong and the
exchange warm up like osu_latency, streaming and bidirectional bandwidth like
osu_bw, with its window of 64 messages."""

from __future__ import annotations

from typing import List

from ... import _core
from ..constants import FINE_SIZES, FULL_SIZES, PAIR_KERNELS, QUICK_FINE_SIZES, QUICK_SIZES
from ..stats import OSU_WINDOW, adaptive, osu_params, osu_rules, summarize

_KIND = {"pingpong": "latency", "exchange": "latency", "stream": "bandwidth", "bidir": "bandwidth"}
"""Which OSU benchmark's rules a kernel follows."""


def _params(kernel: str, validate: bool = False) -> dict:
    params = osu_params(_KIND[kernel])
    if kernel == "exchange":  # one exchange between two barriers is the Paragon paper's sample
        params["iterations_per_sample"] = [1, 1]
    if _KIND[kernel] == "bandwidth":  # validating checks each message, so each needs its own buffer
        params["receive_buffers"] = "one per message (validated)" if validate else "one per window, as osu_bw"
    return params


def _pair_samples(comm, kernel, nbytes, quick, validate, a=0, b=1) -> List[float]:
    rules = osu_rules(_KIND[kernel], nbytes)
    window = OSU_WINDOW if _KIND[kernel] == "bandwidth" else 1
    return adaptive(comm, lambda reps: _core.bench_pair(kernel, comm, a, b, nbytes, reps, rules["warmup"],
                                                         rules["iterations"], window, validate), quick)


def _pair_rows(comm, kernel, sizes, quick, validate, progress=None) -> List[dict]:
    rows = []
    for nbytes in sizes:
        samples = _pair_samples(comm, kernel, nbytes, quick, validate)
        if comm.rank == 0:
            rows.append({"bytes": nbytes, "ranks": 2, "src": 0, "dst": 1, **summarize(samples)})
        if progress:
            progress()
    return rows


def pair_entry(comm, kernel: str, sizes, quick: bool, validate: bool = False, progress=None) -> dict:
    """Collective. One pair kernel between ranks 0 and 1 over ``sizes``: its entry
    (rows on rank 0 only)."""
    return {"kernel": kernel, "params": _params(kernel, validate),
            "rows": _pair_rows(comm, kernel, sizes, quick, validate, progress=progress)}


def suite_pt2pt(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Ping-pong, exchange, streaming and bidirectional bandwidth between ranks 0 and 1
    over message sizes, the fine sweep (the Paragon paper's Figure 1: steps of 64 bytes,
    of 1024 in quick runs) and the distance sweep."""
    sizes = QUICK_SIZES if quick else FULL_SIZES
    results = []
    for kernel in PAIR_KERNELS:
        results.append(pair_entry(comm, kernel, sizes, quick, validate, progress))
    results.append({"kernel": "pingpong_fine", "params": _params("pingpong"),
                    "rows": _pair_rows(comm, "pingpong", QUICK_FINE_SIZES if quick else FINE_SIZES, True, validate,
                                       progress=progress)})
    rows = []
    for peer in range(1, comm.size):  # rank 0 to every other rank
        samples = _pair_samples(comm, "pingpong", 8, quick, validate, 0, peer)
        if comm.rank == 0:
            rows.append({"bytes": 8, "ranks": 2, "src": 0, "dst": peer, **summarize(samples)})
    results.append({"kernel": "distance", "params": {"bytes": 8, **_params("pingpong")}, "rows": rows})
    return results
