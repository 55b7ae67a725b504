"""Block-size expansion r -> K r by each executor (the redistribution paper's
Figures 11-12 and Table 1), side by side in one run.

    mpiexec -n 4 python benchmarks/redist_executors.py [--reps 30] [--blocks 800] [--r 4]

Every rank holds `blocks` blocks of r int32 (800 blocks of 4 integers, as in the
paper), block-cyclic over all ranks; each plan (set up once) expands the block
size to K r, for K = 2 .. 20. Medians over repetitions, in microseconds:

  sendrecv     (a) K phases of MPI_Sendrecv with the optimal schedule and derived
               datatypes: no buffer beyond the arrays;
  nonblocking  (b) unsynchronised: every receive posted, every send started, one
               wait (one message per peer; datatypes, so no user buffer either);
  simple       (c) synchronised phases with the simple schedule B(k, p) = k P + p;
  random       (d) synchronised phases with a random send order;
  alltoallw    (e) one MPI_Alltoallw.

Ratios are over (b): the target is (a) within 1.2x of (b). "x-node" counts each
method's messages between ranks of different nodes, summed over the ranks, as
a/b/c/d/e (the header says how the ranks lie on nodes, docs/hosts.md; the Table 1
collectives have no plan to ask). The Table 1 lines
time MPI_Bcast of `blocks * r` integers from rank 0 and MPI_Alltoall of
floor(blocks * r / P) integers per pair, the paper's comparison volumes.
"""

import argparse

import numpy as np
from mpi4py import MPI

import datamotion as dm
from datamotion import redist
from datamotion.measure.hosts import crossing, describe, job_layout
from datamotion.measure.stats import time_collective

METHODS = ("sendrecv", "nonblocking", "simple", "random", "alltoallw")


def median_us(comm, fn, reps):
    return 1e6 * time_collective(comm, fn, reps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--blocks", type=int, default=800, help="blocks of r elements per rank")
    parser.add_argument("--r", type=int, default=4, help="the block size before expansion")
    parser.add_argument("--ks", type=int, nargs="+", default=[2, 3, 4, 5, 8, 10, 16, 20])
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    P, r = comm.size, args.r
    n = args.blocks * r * P
    grid = dm.ProcessGrid(dims=[P])
    x = np.arange(n, dtype=np.int32)
    layout = job_layout(comm)
    small = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(r))
    rows = []
    for K in args.ks:
        large = dm.DistArray.zeros(grid, (n,), np.int32, dist=dm.BlockCyclic(K * r))
        row = {"K": K}
        crossed = []
        for method in METHODS:
            plan = redist.RedistPlan(small, large, method)
            crossed.append(crossing(comm, plan.messages(), layout)[0])
            row[method] = median_us(comm, lambda: plan.execute(small, large), args.reps)
            if not np.array_equal(large.to_global(), x):
                raise SystemExit(f"{method} K={K}: wrong result")
        row["x-node"] = "/".join(map(str, crossed))
        rows.append(row)
    count = args.blocks * r
    buf = np.arange(count, dtype=np.int32)
    bcast = median_us(comm, lambda: comm.Bcast(buf, root=0), args.reps)
    per_pair = count // P
    send, recv = np.zeros(per_pair * P, np.int32), np.zeros(per_pair * P, np.int32)
    alltoall = median_us(comm, lambda: comm.Alltoall(send, recv), args.reps)
    if comm.rank == 0:
        print(f"# {P} ranks, {describe(layout)}; {args.blocks} blocks of r = {r} int32 per rank, median of {args.reps} (us)")
        print("| K | " + " | ".join(METHODS) + " | (a)/(b) | (c)/(b) | (d)/(b) | (e)/(b) | x-node msgs |")
        print("|---" * (len(METHODS) + 6) + "|")
        for row in rows:
            b = row["nonblocking"]
            print(f"| {row['K']} | " + " | ".join(f"{row[m]:.1f}" for m in METHODS) + " | "
                  + " | ".join(f"{row[m] / b:.2f}" for m in ("sendrecv", "simple", "random", "alltoallw"))
                  + f" | {row['x-node']} |")
        k2 = next((row for row in rows if row["K"] == 2), rows[0])
        k20 = next((row for row in rows if row["K"] == 20), rows[-1])
        print(f"\nTable 1 analogue ({P} ranks, us): bcast {bcast:.1f}, alltoall {alltoall:.1f}, "
              f"redist sendrecv (K={k2['K']}) {k2['sendrecv']:.1f}, (K={k20['K']}) {k20['sendrecv']:.1f}")


if __name__ == "__main__":
    main()
