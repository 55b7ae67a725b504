"""Scatter and gather of a block-distributed matrix: datamotion against hand-written mpi4py.

    mpiexec -n 4 python benchmarks/scatter_gather.py [--sizes 256 1024 2048] [--reps 15]

The baseline is what a user writes without the library: the root cuts the
matrix into the grid's blocks with NumPy slicing, packs them and calls
Scatterv (and the reverse with Gatherv). Both sides move the same bytes; the
table gives medians over repetitions, measured side by side in one run, and
the ratio baseline / datamotion (above 1: datamotion is faster).
"""

import argparse

import numpy as np
from mpi4py import MPI

import datamotion as dm
from datamotion.measure.hosts import job_description


def blocks_of(grid, shape):
    """Row and column slices of every rank's block (Block distribution)."""
    maps = [dm.Block().axis_map(n, p) for n, p in zip(shape, grid.dims)]
    out = []
    for rank in range(grid.size):
        c = grid.coords_of(rank)
        starts = [m.global_index(c[a], 0) if m.extent(c[a]) else 0 for a, m in enumerate(maps)]
        out.append(tuple(slice(s, s + m.extent(c[a])) for a, (s, m) in enumerate(zip(starts, maps))))
    return out


def baseline_scatter(comm, grid, blocks, matrix, local):
    if comm.rank == 0:
        parts = [np.ascontiguousarray(matrix[b]).ravel() for b in blocks]
        counts = [p.size for p in parts]
        send = [np.concatenate(parts), (counts, None), MPI.DOUBLE]
    else:
        send = None
    comm.Scatterv(send, local.ravel(), root=0)


def baseline_gather(comm, grid, blocks, local, shape):
    """Returns a new global array on the root, as DistArray.to_global does."""
    out = np.empty(shape) if comm.rank == 0 else None
    counts = [int(np.prod([s.stop - s.start for s in b])) for b in blocks]
    recv = np.empty(sum(counts)) if comm.rank == 0 else None
    comm.Gatherv(np.ascontiguousarray(local).ravel(), [recv, (counts, None), MPI.DOUBLE] if comm.rank == 0 else None,
                 root=0)
    if comm.rank == 0:
        offset = 0
        for b, n in zip(blocks, counts):
            out[b] = recv[offset:offset + n].reshape(out[b].shape)
            offset += n
    return out


def median_time(comm, fn, reps):
    times = []
    for _ in range(reps):
        comm.Barrier()
        t0 = MPI.Wtime()
        fn()
        t = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)  # the slowest rank finishes the operation
        times.append(t)
    return float(np.median(times)), float(np.min(times)), float(np.max(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 1024, 2048])
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    grid = dm.ProcessGrid(comm, dims=2)
    rows = []
    for n in args.sizes:
        shape = (n, n + 1)  # uneven on purpose
        matrix = np.random.default_rng(1).standard_normal(shape) if comm.rank == 0 else None
        a = dm.DistArray.zeros(grid, shape)
        blocks = blocks_of(grid, shape)
        local = np.empty(a.local_shape)
        ours_s = median_time(comm, lambda: a.scatter(matrix, root=0), args.reps)
        base_s = median_time(comm, lambda: baseline_scatter(comm, grid, blocks, matrix, local), args.reps)
        ours_g = median_time(comm, lambda: a.to_global(root=0), args.reps)
        base_g = median_time(comm, lambda: baseline_gather(comm, grid, blocks, local, shape), args.reps)
        result = a.to_global(root=0)
        assert comm.rank != 0 or np.array_equal(result, matrix)
        rows.append((n, ours_s, base_s, ours_g, base_g))
    layout = job_description(comm)
    if comm.rank == 0:
        print(f"scatter/gather of an n x (n+1) float64 matrix on {comm.size} ranks ({layout}), grid {grid.dims}; "
              f"median [min-max] ms over {args.reps} repetitions")
        print(f"{'n':>6} | {'scatter ours':>22} {'mpi4py':>22} {'ratio':>6} | {'gather ours':>22} {'mpi4py':>22} {'ratio':>6}")
        fmt = lambda t: f"{t[0]*1e3:7.2f} [{t[1]*1e3:.2f}-{t[2]*1e3:.2f}]"
        for n, os_, bs, og, bg in rows:
            print(f"{n:>6} | {fmt(os_):>22} {fmt(bs):>22} {bs[0]/os_[0]:6.2f} | {fmt(og):>22} {fmt(bg):>22} {bg[0]/og[0]:6.2f}")


if __name__ == "__main__":
    main()
