"""The message size from which the on-node transport beats packed messages.

    mpiexec -n P python benchmarks/onnode_crossover.py [--reps 21] [--sizes 1 2 4 ...]

A periodic ring of P ranks (grid P x 1); every rank holds a (4, K) float64 block
with ghost width 1 along the ring, so one halo exchange sends one row of K values
(8K bytes, contiguous: "pack" sends it straight from the array) to each of its two
neighbours (at 2 ranks both go to the one other rank). For each size (KiB per message) the same
halo is planned twice, ``executor="pack"`` and ``executor="onnode"``, and the two
are timed interleaved, repetition by repetition (a barrier before each, the slowest
rank's time), medians over the repetitions. The table gives both medians, their
ratio, and which executor ``auto`` took (from ``describe()``); the last line the
smallest size from which on-node stays ahead: what the engine's
``kOnNodeMinBytes`` (src/exchange/on_node.hpp) should be on this machine at this rank count.

The header says how the ranks lie on nodes (docs/hosts.md); "x-node msgs" counts the
pack plan's messages between ranks of different nodes, summed over the ranks (0: the
benchmark runs on one node only). MPI runs at MPI_THREAD_SINGLE (printed). Skipped, with a note, where the ranks
span several nodes or node memory is off.
"""

import argparse
import sys

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion import _core  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout  # noqa: E402


def timed(comm, fn):
    comm.Barrier()
    t0 = MPI.Wtime()
    fn()
    return comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 2, 4, 8, 16, 32, 64, 128, 256],
                        help="KiB per message")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    p, rank = comm.Get_size(), comm.Get_rank()
    layout = job_layout(comm)
    say = print if rank == 0 else (lambda *a, **k: None)
    if p < 2 or layout.nodes > 1 or not _core.node_memory_enabled():
        say(f"on-node crossover skipped: needs 2 or more ranks on one node with node memory on ({describe(layout)})")
        return
    say(f"## On-node transport against packed messages: {p} ranks, {describe(layout)}, "
        f"{MPI.Get_library_version().splitlines()[0].strip()}, thread level "
        f"{'single' if MPI.Query_thread() == MPI.THREAD_SINGLE else MPI.Query_thread()}")
    say(f"Halo of a periodic ring, two messages per rank; medians of {args.reps} interleaved repetitions, "
        "slowest rank, us per exchange.\n")
    say("| KiB per message | pack (us) | onnode (us) | onnode / pack | auto took | x-node msgs |")
    say("|---:|---:|---:|---:|---|---:|")
    grid = dm.ProcessGrid(comm, dims=[p, 1], periods=[True, False])
    ahead_from = None
    for kib in args.sizes:
        k = max(1, int(kib * 1024) // 8)
        a = dm.DistArray.zeros(grid, (4 * p, k), ghost=(1, 0))
        a.local[...] = rank
        plans = {e: dm.Halo(a, executor=e) for e in ("pack", "onnode")}
        auto = dm.Halo(a)
        took = "onnode" if "on-node: the receiver reads" in auto.describe() else "messages"
        crossed = crossing(comm, plans["pack"].messages(), layout)[0]
        for plan in plans.values():  # warm up, and check once
            plan.exchange(a)
        ghosts = a.local_with_ghosts
        if not (ghosts[0] == (rank - 1) % p).all() or not (ghosts[-1] == (rank + 1) % p).all():
            sys.exit("on-node crossover: wrong ghosts")
        times = {e: [] for e in plans}
        for _ in range(args.reps):
            for e, plan in plans.items():
                times[e].append(timed(comm, lambda: plan.exchange(a)))
        med = {e: float(np.median(t)) * 1e6 for e, t in times.items()}
        ratio = med["onnode"] / med["pack"]
        ahead_from = (ahead_from or kib) if ratio < 1 else None
        say(f"| {kib:g} | {med['pack']:.1f} | {med['onnode']:.1f} | {ratio:.2f} | {took} | {crossed} |")
        del plans, auto, a
    say(f"\non-node ahead from: {f'{ahead_from:g} KiB' if ahead_from else 'no size measured'} "
        f"(at {p} ranks on this node)")


if __name__ == "__main__":
    main()
