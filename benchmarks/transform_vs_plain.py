"""What transposing and scaling on the way cost: a transform against the plain
redistribution that makes the same moves, side by side in one run.

    mpiexec -n P python benchmarks/transform_vs_plain.py [--reps 9] [--sizes 2000 4000]

Cases (n x n, a 1 x P grid, block-cyclic on both axes, blocks 64 -> 64 and
36 -> 128; float64 and complex128). Rows, timed interleaved in every repetition:

  C = A'          RedistPlan(A, C, transpose=True), the transform;
  C = 2A' + C     the same plan with alpha = 2, beta = 1 (beta != 0 reads C);
  plain           RedistPlan(A, D), D laid out as C transposed (blocks of C's size
                  on the P x 1 grid): every element goes to the rank that holds it
                  in C, untransposed, so the two move the same bytes between the
                  same ranks and differ only by the transposing copy and the
                  arithmetic;
  same layouts    RedistPlan(A, C) without transposing (for 64 -> 64 a local copy).

Ratios are medians of per-repetition ratios to "plain". A time is the slowest
rank's, after a barrier. Every result is checked against NumPy after the warm-up.
The header says how the ranks lie on nodes (docs/hosts.md); "x-node msgs" counts
each plan's messages between ranks of different nodes, summed over the ranks;
"ways" says how rank 0's messages travelled (from describe()).

MPI runs at MPI_THREAD_SINGLE (printed), the library the mpi4py in use loads.
"""

import argparse
import sys

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout  # noqa: E402

from redist_vs_alltoall import axis_maps, global_indices, ways  # noqa: E402


def values(a, transposed=False):
    """Each element = the row-major global linear index of its (i, j), or of
    (j, i) where `transposed` (what C = A' holds): exact in float64."""
    n = a.shape[1]
    rows, cols = (global_indices(m, c) for m, c in zip(axis_maps(a), a.grid.coords))
    index = cols[None, :] * n + rows[:, None] if transposed else rows[:, None] * n + cols[None, :]
    return index.astype(a.dtype)


def timed(comm, f):
    comm.Barrier()
    t = MPI.Wtime()
    f()
    return comm.allreduce(MPI.Wtime() - t, op=MPI.MAX)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="timed repetitions after one warm-up")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000], help="matrix orders")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    P = comm.size
    layout = job_layout(comm)
    if comm.rank == 0:
        print("# datamotion transform (transpose, alpha, beta) vs the plain redistribution of the same moves\n")
        print(f"- ranks: {P}; MPI: {MPI.Get_library_version().splitlines()[0].strip()}")
        print(f"- layout: {describe(layout)}")
        level = "MPI_THREAD_SINGLE" if MPI.Query_thread() == MPI.THREAD_SINGLE else str(MPI.Query_thread())
        print(f"- thread level: {level}; executor auto; {args.reps} repetitions after one warm-up, ms\n")
        print("| n | blocks | dtype | row | ms (median) | / plain | x-node msgs | ways (rank 0) |")
        print("|---:|---|---|---|---:|---:|---:|---|")
        sys.stdout.flush()
    grid, grid_t = dm.ProcessGrid(comm, dims=[1, P]), dm.ProcessGrid(comm, dims=[P, 1])
    worst = {}
    for n in args.sizes:
        for block_a, block_c in ((64, 64), (36, 128)):
            for dtype in (np.float64, np.complex128):
                a = dm.DistArray.zeros(grid, (n, n), dtype, dist=dm.BlockCyclic(block_a))
                a.local[...] = values(a)
                c = dm.DistArray.zeros(grid, (n, n), dtype, dist=dm.BlockCyclic(block_c))
                d = dm.DistArray.zeros(grid_t, (n, n), dtype, dist=dm.BlockCyclic(block_c))
                transform = dm.RedistPlan(a, c, transpose=True)
                plain, same = dm.RedistPlan(a, d), dm.RedistPlan(a, c)
                rows = {
                    "C = A'": (transform, lambda: transform.execute(a, c)),
                    "C = 2A' + C": (transform, lambda: transform.execute(a, c, alpha=2, beta=1)),
                    "plain": (plain, lambda: plain.execute(a, d)),
                    "same layouts": (same, lambda: same.execute(a, c)),
                }
                # Warm-up, checked: C = A', then C = 2A' + C on it, and the plain move.
                transform.execute(a, c)
                ok = np.array_equal(c.local, values(c, transposed=True))
                transform.execute(a, c, alpha=2, beta=1)
                ok &= np.array_equal(c.local, 3 * values(c, transposed=True))
                plain.execute(a, d)
                ok &= np.array_equal(d.local, values(d))
                same.execute(a, c)
                if not comm.allreduce(bool(ok), op=MPI.LAND):
                    if comm.rank == 0:
                        print(f"MISMATCH n = {n}, blocks {block_a} -> {block_c}, {np.dtype(dtype).name}")
                    comm.Abort(1)
                t = {k: [] for k in rows}
                for _ in range(args.reps):
                    for k, (_, f) in rows.items():
                        t[k].append(timed(comm, f))
                crossed = {k: crossing(comm, p.messages(), layout)[0] for k, (p, _) in rows.items()}
                if comm.rank == 0:
                    for k, (p, _) in rows.items():
                        ratio = float(np.median(np.asarray(t[k]) / np.asarray(t["plain"])))
                        if k in ("C = A'", "C = 2A' + C"):
                            worst[k] = max(worst.get(k, 0.0), ratio)
                        print(f"| {n} | {block_a} -> {block_c} | {np.dtype(dtype).name} | {k} | "
                              f"{1e3 * float(np.median(t[k])):.2f} | {ratio:.2f}x | {crossed[k]} | "
                              f"{ways(p.describe())} |")
                    sys.stdout.flush()
    if comm.rank == 0:
        print("\nworst ratio to plain: " + ", ".join(f"{k} {v:.2f}x" for k, v in worst.items()))


if __name__ == "__main__":
    main()
