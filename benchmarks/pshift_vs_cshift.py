"""PSHIFT against successive CSHIFTs and MPI_Neighbor_alltoallw (the PSHIFT paper's Tables 1-4).

    mpiexec -n 16 python benchmarks/pshift_vs_cshift.py [--reps 30] [--quick]

For arrays of rank k = 1..4 with local subgrid extent L on every axis
(global extent L times the grid extent), float64, shifts of +1 and -1 along
every axis, side by side in one run, medians over repetitions:

  (a) pshift   one PSHIFT of all 2k shifts (set up once),
  (b) cshift   the same shifts as 2k single-shift calls one after another
               (each a blocking exchange plus the local move: the CSHIFT baseline),
  (c) halo     one halo exchange filling a ghost shell of width 1 (faces), after
               which a stencil reads the shifted values in place: no local moves,
  (d) nbr-a2aw MPI_Neighbor_alltoallw on a periodic Cartesian communicator moving
               the same faces into a ghost region.

Speedups are over (b). "a/c" is the median of per-repetition ratios of (a)
over (c), the two timed alternately in the same repetitions: what PSHIFT pays
beyond the exchange it does. "x-node a/b/c" counts the messages of the plans of
(a), (b) (all 2k) and (c) between ranks of different nodes, summed over the
ranks (the header says how the ranks lie on nodes, docs/hosts.md); (d) is plain
mpi4py: "-".
The model of the paper, T = a + b L^(k-1) + c L^k, is
fitted to (a) per rank k by least squares.
"""

import argparse

import numpy as np
from mpi4py import MPI

import datamotion as dm
from datamotion.measure.hosts import crossing, describe, job_layout
from datamotion.measure.stats import time_collective

SIZES = {1: [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384],
         2: [2, 4, 8, 16, 32, 64, 128],
         3: [2, 4, 8, 16],
         4: [2, 4, 8]}
QUICK = {1: [4, 64, 1024, 16384], 2: [2, 16, 128], 3: [2, 8, 16], 4: [2, 4, 8]}


def neighbor_exchange(comm, dims, local):
    """A function moving the 2k faces of `local` (extent L, ghost 1) with one
    MPI_Neighbor_alltoallw on a periodic Cartesian communicator."""
    k = len(dims)
    cart = comm.Create_cart(dims, periods=[True] * k, reorder=False)
    storage = np.zeros([n + 2 for n in local])
    sizes = list(storage.shape)
    send_types, recv_types = [], []
    for axis in range(k):
        for side in (0, 1):  # neighbour order of a Cartesian topology: -1, then +1, per axis
            sub = [n for n in local]
            sub[axis] = 1
            start_send = [1] * k
            start_recv = [1] * k
            start_send[axis] = 1 if side == 0 else local[axis]
            start_recv[axis] = 0 if side == 0 else local[axis] + 1
            send_types.append(MPI.DOUBLE.Create_subarray(sizes, sub, start_send).Commit())
            recv_types.append(MPI.DOUBLE.Create_subarray(sizes, sub, start_recv).Commit())
    counts = [1] * (2 * k)
    displs = [0] * (2 * k)

    def run():
        cart.Neighbor_alltoallw([storage, (counts, displs), send_types], [storage, (counts, displs), recv_types])

    def free():
        for t in send_types + recv_types:
            t.Free()
        cart.Free()

    return run, free


def paired(comm, fns, reps):
    """Collective. The slowest rank's times of each of `fns`, called alternately after a
    barrier each, `reps` times after one unrecorded call of each: an array (reps, len(fns))."""
    for fn in fns:
        fn()
    local = np.empty((reps, len(fns)))
    for r in range(reps):
        for j, fn in enumerate(fns):
            comm.Barrier()
            t0 = MPI.Wtime()
            fn()
            local[r, j] = MPI.Wtime() - t0
    slowest = np.empty_like(local)
    comm.Allreduce(local, slowest, op=MPI.MAX)
    return slowest


def measure(comm, layout, k, L, reps):
    grid = dm.ProcessGrid(comm, dims=k, periods=[True] * k)
    shape = [L * d for d in grid.dims]
    src = dm.DistArray.from_global(grid, np.random.default_rng(k).standard_normal(shape))
    shifts = [dm.CShift(s, axis=axis) for axis in range(k) for s in (1, -1)]
    dsts = [dm.DistArray.zeros(grid, shape) for _ in shifts]
    together = dm.PShift(src, shifts)
    singles = [dm.PShift(src, [s]) for s in shifts]
    srcs = [src] * len(shifts)
    t_cshift = time_collective(comm, lambda: [p.execute([d], [src]) for p, d in zip(singles, dsts)], reps)
    ghosted = dm.DistArray.from_global(grid, src.to_global(), ghost=1)
    halo = dm.Halo(ghosted)
    both = paired(comm, [lambda: together.execute(dsts, srcs), lambda: halo.exchange(ghosted)], reps)
    t_pshift, t_halo = np.median(both, axis=0)
    over_halo = float(np.median(both[:, 0] / both[:, 1]))
    run, free = neighbor_exchange(comm, grid.dims, [L] * k)
    t_nbr = time_collective(comm, run, reps)
    free()
    # Check the PSHIFT results once.
    x = src.to_global()
    ok = all(np.array_equal(d.to_global(), np.roll(x, -s.shift, s.axis)) for d, s in zip(dsts, shifts))
    crossed = [crossing(comm, [m for p in plans for m in p.messages()], layout)[0]
               for plans in ([together], singles, [halo])]
    return t_pshift, t_cshift, t_halo, t_nbr, over_halo, ok, grid.dims, "/".join(map(str, crossed)) + "/-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="fewer sizes")
    parser.add_argument("--ranks", type=int, nargs="*", default=[1, 2, 3, 4], help="array ranks k")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    sizes = QUICK if args.quick else SIZES
    say = print if comm.rank == 0 else (lambda *a, **k: None)
    layout = job_layout(comm)
    say(f"PSHIFT vs CSHIFT on {comm.size} ranks, {describe(layout)} ({MPI.Get_library_version().splitlines()[0].strip()}); "
        f"float64, shifts +-1 on every axis; medians of {args.reps}")
    for k in args.ranks:
        rows = []
        for L in sizes[k]:
            reps = args.reps if L ** k <= 65536 else max(5, args.reps // 4)
            rows.append((L,) + measure(comm, layout, k, L, reps))
        say(f"\nrank {k} (grid {rows[0][7]}), local subgrid L^{k}:")
        say(f"{'L':>7} {'(a) pshift us':>14} {'(b) cshift us':>14} {'(c) halo us':>12} {'(d) nbr-a2aw us':>16} "
            f"{'b/a':>6} {'b/c':>6} {'b/d':>6} {'a/c':>6} {'ok':>4} {'x-node a/b/c/d':>15}")
        for L, tp, tc, th, tn, ac, ok, _, crossed in rows:
            say(f"{L:>7} {tp * 1e6:14.1f} {tc * 1e6:14.1f} {th * 1e6:12.1f} {tn * 1e6:16.1f} {tc / tp:6.2f} "
                f"{tc / th:6.2f} {tc / tn:6.2f} {ac:6.2f} {'yes' if ok else 'NO':>4} {crossed:>15}")
        Ls = np.array([r[0] for r in rows], dtype=float)
        T = np.array([r[1] for r in rows])
        A = np.stack([np.ones_like(Ls), Ls ** (k - 1), Ls ** k], axis=1)
        coef, *_ = np.linalg.lstsq(A, T, rcond=None)
        rel = (A @ coef - T) / T
        say(f"fit T = a + b L^{k - 1} + c L^{k}: a = {coef[0] * 1e6:.2f} us, b = {coef[1] * 1e9:.2f} ns, "
            f"c = {coef[2] * 1e9:.3f} ns; relative residuals {', '.join(f'{r:+.2f}' for r in rel)}")


if __name__ == "__main__":
    main()
