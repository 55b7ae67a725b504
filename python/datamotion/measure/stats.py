"""Repetition and summary statistics of measurements: how many samples a point
takes, and the median with its confidence interval that every row reports."""

from __future__ import annotations

import math
import time
from typing import Callable, List, Sequence

import numpy as np
from .._mpi import MPI  # MPI at the thread level _mpi settles


def slowest_samples(comm: MPI.Comm, fn: Callable[[], object], count: int) -> List[float]:
    """Collective. ``count`` times: a barrier, then ``fn()`` timed; the slowest
    rank's time of each call in seconds (the same list on every rank)."""
    local = []
    for _ in range(count):
        comm.Barrier()
        t0 = MPI.Wtime()
        fn()
        local.append(MPI.Wtime() - t0)
    slowest = np.empty(count)
    comm.Allreduce(np.array(local), slowest, op=MPI.MAX)
    return [float(t) for t in slowest]


def time_collective(comm: MPI.Comm, fn: Callable[[], object], reps: int = 30, warmup: int = 1) -> float:
    """Collective. The median over ``reps`` of the slowest rank's time of ``fn()``
    in seconds, each call started after a barrier, after ``warmup`` unrecorded
    calls (first touch, persistent requests bound)."""
    for _ in range(warmup):
        fn()
    return float(np.median(slowest_samples(comm, fn, reps)))


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


def adaptive(comm: MPI.Comm, measure: Callable[[int], List[float]], quick: bool) -> List[float]:
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


def time_call(comm: MPI.Comm, fn: Callable[[], object], quick: bool) -> dict:
    """Collective. The row fields (:func:`summarize`) of ``fn``'s slowest-rank times,
    repeated adaptively, after one warm-up call."""
    fn()
    return summarize(adaptive(comm, lambda batch: slowest_samples(comm, fn, batch), quick))


def iterations(nbytes: int) -> int:
    """Operations per sample of kernels without OSU's rules (the Paragon paper's
    methods): small messages are timed over several round trips."""
    return 20 if nbytes <= 1024 else 5 if nbytes <= 65536 else 1


OSU_VERSION = "7.4"
OSU_LARGE_MESSAGE_BYTES = 8192
"""OSU's LARGE_MESSAGE_SIZE: messages longer than this take the "large" counts."""
OSU_WINDOW = 64
"""osu_bw's window: messages in flight before the acknowledgement."""
SAMPLES_PER_OSU_RUN = 10
"""A sample is the mean over 1/10 of the iterations OSU times for one message
size, so ten samples (a quick point) measure as many operations as one OSU run."""

# (timed iterations, skipped iterations) up to and above OSU_LARGE_MESSAGE_BYTES,
# as OSU 7.4's c/util/osu_util.h sets them: LAT_LOOP/SKIP (osu_latency),
# BW_LOOP/SKIP (osu_bw, in windows) and COLL_LOOP/SKIP (osu_barrier, osu_allreduce, ...).
_OSU_COUNTS = {
    "latency": ((10000, 100), (1000, 10)),
    "bandwidth": ((100, 10), (20, 2)),
    "collective": ((1000, 100), (100, 10)),
}


def osu_rules(kind: str, nbytes: int) -> dict:
    """The per-sample rules of a kernel comparable with OSU 7.4 ("latency",
    "bandwidth" or "collective") at ``nbytes``: ``warmup``, the unrecorded
    operations OSU skips, and ``iterations``, the operations a sample averages
    (OSU's timed iterations / SAMPLES_PER_OSU_RUN). Quick and full runs use the
    same rules; they differ in sizes and in the number of samples only."""
    timed, skipped = _OSU_COUNTS[kind][nbytes > OSU_LARGE_MESSAGE_BYTES]
    return {"warmup": skipped, "iterations": max(1, timed // SAMPLES_PER_OSU_RUN)}


def osu_params(kind: str) -> dict:
    """What a results entry's ``params`` records of the rules of ``kind``:
    [small, large] warm-up and iterations per sample, split at OSU_LARGE_MESSAGE_BYTES
    (and the window for bandwidth kernels)."""
    small, large = osu_rules(kind, 0), osu_rules(kind, OSU_LARGE_MESSAGE_BYTES + 1)
    params = {"rules": f"OSU {OSU_VERSION}", "large_message_bytes": OSU_LARGE_MESSAGE_BYTES,
              "warmup": [small["warmup"], large["warmup"]],
              "iterations_per_sample": [small["iterations"], large["iterations"]]}
    if kind == "bandwidth":
        params["window"] = OSU_WINDOW
    return params
