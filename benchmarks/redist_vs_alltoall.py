"""Redistribution against MPI_Alltoallv of exactly the same bytes, side by side in one run.

    mpiexec -n 2 python benchmarks/redist_vs_alltoall.py [--reps 15] [--reps-large 7] [--quick]

With --shared-floor a row "shm-floor" times the on-node alternative to messages:
every source block in an MPI_Win_allocate_shared window, each rank copying what
it receives straight out of its owners' windows (NumPy slices, one copy that
also changes the layout); skipped, with a note, when the ranks span several nodes.

Cases (float64, row-major local storage as DistArray keeps it):

  block  n^2, n = 4000 and 8000: block-cyclic 36 -> 128 on both axes, on a
         1 x P grid and, when P is not prime, on MPI_Dims_create's grid;
  grid   4000^2, block 64: grid 1 x P -> P x 1;
  split  a 4-d 48^4 array (Block) split along axis 0 -> split along axis 3.

Each case builds one plan per executor (auto and every forced ``executor=``
name of datamotion._exchange.EXECUTORS; a name that raises datamotion.Error for
a case is skipped with one line saying why) and times,
interleaved in every repetition, each plan's execute and an MPI_Alltoallv
whose count for every rank pair (the pair with itself included) is what the
redistribution moves between them, in contiguous buffers: the floor a
redistribution of this volume can hope for. A time is the slowest rank's, after
a barrier; the table shows medians over repetitions (spread min..max below) and
the ratio to the Alltoallv of the same repetitions. The executor column says
how each rank-0 message travelled (from ``describe()``). Every plan's result is
checked against the global-index oracle after the warm-up and after the last
repetition. The header says how the ranks lie on nodes (docs/hosts.md); "x-node
msgs" counts the plan's messages between ranks of different nodes, summed over
the ranks (the Alltoallv sends one for every pair with data). A last table puts auto beside the fastest forced executor of each
case ("auto / best forced"), and beside the shm-floor row when it ran.

MPI runs at MPI_THREAD_SINGLE (printed), the library the mpi4py in use loads.
"""

import argparse
import re
import sys

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion import redist  # noqa: E402
from datamotion._exchange import EXECUTORS  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout  # noqa: E402


def dims_of(P):
    """MPI_Dims_create's 2-d grid, rows <= columns."""
    d = MPI.Compute_dims(P, 2)
    return [min(d), max(d)]


def cases(P, quick):
    sizes = [4000] if quick else [4000, 8000]
    out = []
    grids = [[1, P]]
    if dims_of(P)[0] > 1:
        grids.append(dims_of(P))
    for n in sizes:
        for g in grids:
            out.append((f"{n}^2 {g[0]}x{g[1]}, block 36 -> 128", (n, n), g, dm.BlockCyclic(36), g, dm.BlockCyclic(128)))
    out.append((f"4000^2 grid 1x{P} -> {P}x1, block 64", (4000, 4000), [1, P], dm.BlockCyclic(64), [P, 1],
                dm.BlockCyclic(64)))
    m = 32 if quick else 48
    out.append((f"{m}^4 split axis 0 -> 3", (m,) * 4, [P, 1, 1, 1], dm.Block(), [1, 1, 1, P], dm.Block()))
    return out


def axis_maps(a):
    return [a.axis_map(axis) for axis in range(a.ndim)]


def global_indices(m, coord):
    """Global indices of the local positions of `coord` on an axis map."""
    P, b, s = m.nprocs, m.block, m.src
    local = np.arange(m.extent(coord), dtype=np.int64)
    return (local // b) * b * P + ((coord - s) % P) * b + local % b


def owners(m):
    g = np.arange(m.length, dtype=np.int64)
    return (g // m.block + m.src) % m.nprocs


def fill(a):
    """Each element = its row-major global linear index (exact in float64)."""
    coords = a.grid.coords
    index = np.zeros(a.local_shape, dtype=np.int64)
    for axis, m in enumerate(axis_maps(a)):
        shape = [1] * a.ndim
        shape[axis] = -1
        stride = int(np.prod(a.shape[axis + 1:], dtype=np.int64))
        index = index + (global_indices(m, coords[axis]) * stride).reshape(shape)
    return index.astype(np.float64)


def pair_counts(comm, src, dst):
    """Elements moving from every rank to every rank: per axis a histogram of
    (source coordinate, destination coordinate), multiplied over the axes."""
    P = comm.size
    src_coords = comm.allgather(tuple(src.grid.coords))
    dst_coords = comm.allgather(tuple(dst.grid.coords))
    hist = []
    for ms, md in zip(axis_maps(src), axis_maps(dst)):
        h = np.zeros((ms.nprocs, md.nprocs), dtype=np.int64)
        np.add.at(h, (owners(ms), owners(md)), 1)
        hist.append(h)
    counts = np.ones((P, P), dtype=np.int64)
    for p in range(P):
        for q in range(P):
            for axis, h in enumerate(hist):
                counts[p, q] *= h[src_coords[p][axis], dst_coords[q][axis]]
    return counts


def axis_runs(ms, cs, md, cd):
    """(source local start, destination local start, length) of the positions of
    an axis owned by source coordinate cs and destination coordinate cd, merged
    where contiguous on both sides."""
    g = np.arange(ms.length, dtype=np.int64)
    both = g[((g // ms.block + ms.src) % ms.nprocs == cs) & ((g // md.block + md.src) % md.nprocs == cd)]
    if both.size == 0:
        return []
    def local(m, x):
        return (x // (m.block * m.nprocs)) * m.block + x % m.block
    ls, ld = local(ms, both), local(md, both)
    breaks = np.flatnonzero((np.diff(ls) != 1) | (np.diff(ld) != 1)) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [both.size]])
    return [(int(ls[a]), int(ld[a]), int(b - a)) for a, b in zip(starts, ends)]


class SharedFloor:
    """The on-node floor: every rank's source block in an MPI-3 shared-memory window
    (MPI_Win_allocate_shared, filled once, untimed), and each rank copying what it
    receives straight from the owners' windows into its destination with NumPy
    slices: one copy that also changes the layout, no message, no packing."""

    def __init__(self, comm, src, dst):
        self.comm = comm
        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        if node.size != comm.size:
            raise RuntimeError("the shared-memory floor needs every rank on one node")
        self.win = MPI.Win.Allocate_shared(max(src.local.nbytes, 8), 8, comm=node)
        shapes = comm.allgather(src.local_shape)
        self.views = []
        for r in range(comm.size):
            buf, _ = self.win.Shared_query(r)
            self.views.append(np.frombuffer(buf, dtype=np.float64, count=int(np.prod(shapes[r]))).reshape(shapes[r]))
        self.win.Lock_all()  # one passive epoch for the object's life (the unified memory model)
        self.views[comm.rank][...] = src.local
        self.win.Sync()
        comm.Barrier()
        self.win.Sync()
        src_coords = comm.allgather(tuple(src.grid.coords))
        ms_all, md_all = axis_maps(src), axis_maps(dst)
        me = tuple(dst.grid.coords)
        self.dst = dst
        self.copies = []  # (source rank, source slices, destination slices)
        for r in range(comm.size):
            per_axis = [axis_runs(ms, src_coords[r][a], md, me[a]) for a, (ms, md) in enumerate(zip(ms_all, md_all))]
            if any(not runs for runs in per_axis):
                continue
            for combo in np.ndindex(*[len(runs) for runs in per_axis]):
                pick = [per_axis[a][i] for a, i in enumerate(combo)]
                self.copies.append((r, tuple(slice(s, s + n) for s, _, n in pick),
                                    tuple(slice(d, d + n) for _, d, n in pick)))

    def __call__(self):
        local = self.dst.local
        for r, s, d in self.copies:
            local[d] = self.views[r][s]
        self.comm.Barrier()  # no source may change before every rank has read it

    def free(self):
        self.views = []
        self.win.Unlock_all()
        self.win.Free()


def ways(text):
    """How this rank's messages travel, from describe(): 'send ..., recv ...', and
    how many peers the on-node transport serves (the receiver reads in place)."""
    out = []
    for side in ("send", "receive"):
        line = next((l for l in text.splitlines() if l.strip().startswith(side + ":")), "")
        found = [f"{k} {w}" for k, w in re.findall(r"(\d+) (direct|packed|hybrid|datatype|split)", line) if k != "0"]
        out.append(("send " if side == "send" else "recv ") + ("+".join(found) if found else "-"))
    on_node = [sum(1 for l in text.splitlines() if l.strip().startswith(side) and "on-node:" in l)
               for side in ("to rank", "from rank")]
    if any(on_node):
        out.append(f"on-node in place: to {on_node[0]}, from {on_node[1]} peers")
    return ", ".join(out)


def stats(t):
    t = np.asarray(t) * 1e3
    return float(np.median(t)), float(t.min()), float(t.max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15, help="timed repetitions for n <= 4000")
    parser.add_argument("--reps-large", type=int, default=7, help="timed repetitions for larger cases")
    parser.add_argument("--quick", action="store_true", help="4000^2 and 32^4 only, for a smoke test")
    parser.add_argument("--executors", nargs="+", default=list(EXECUTORS), choices=EXECUTORS)
    parser.add_argument("--method", default="auto", choices=redist.METHODS)
    parser.add_argument("--shared-floor", action="store_true",
                        help="also time the on-node floor: one copy from MPI-3 shared-memory windows")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    P = comm.size
    layout = job_layout(comm)
    levels = {MPI.THREAD_SINGLE: "MPI_THREAD_SINGLE", MPI.THREAD_FUNNELED: "MPI_THREAD_FUNNELED",
              MPI.THREAD_SERIALIZED: "MPI_THREAD_SERIALIZED", MPI.THREAD_MULTIPLE: "MPI_THREAD_MULTIPLE"}
    if comm.rank == 0:
        print("# datamotion redistribution vs MPI_Alltoallv of the same bytes per rank pair\n")
        print(f"- ranks: {P}; MPI: {MPI.Get_library_version().splitlines()[0].strip()}")
        print(f"- layout: {describe(layout)}")
        print(f"- thread level: {levels.get(MPI.Query_thread(), MPI.Query_thread())}; method: {args.method}")
        print(f"- repetitions: {args.reps} (4000^2 and smaller), {args.reps_large} (larger), after one warm-up; "
              "medians of the slowest rank's time, ms\n")
        sys.stdout.flush()
    if args.shared_floor:
        node = comm.Split_type(MPI.COMM_TYPE_SHARED)
        sizes = sorted(set(comm.allgather(node.size)))
        node.Free()
        if sizes != [P]:  # the floor reads other ranks' memory directly
            args.shared_floor = False
            if comm.rank == 0:
                print(f"- shm-floor skipped: the ranks span several nodes (ranks per node: "
                      f"{', '.join(map(str, sizes))} of {P}); it needs every rank on one node\n")
    rows = []
    versus = []  # per case: auto beside the fastest forced executor (and the floor)
    skipped = []
    for label, shape, gs, ds, gd, dd in cases(P, args.quick):
        grid_s, grid_d = dm.ProcessGrid(comm, dims=gs), dm.ProcessGrid(comm, dims=gd)
        src = dm.DistArray.zeros(grid_s, shape, np.float64, dist=ds)
        src.local[...] = fill(src)
        expected = None
        plans = {}
        for e in args.executors:
            dst = dm.DistArray.zeros(grid_d, shape, np.float64, dist=dd)
            if expected is None:
                expected = fill(dst)
            # An executor that cannot take this case (a name added later, for
            # one kind of layout or memory) is skipped; the error is collective.
            try:
                plan = redist.RedistPlan(src, dst, args.method, executor=e)
                plan.execute(src, dst)
            except dm.Error as err:
                skipped.append((label, e, (str(err).strip().splitlines() or [type(err).__name__])[0]))
                continue
            plans[e] = (plan, dst)
        counts = pair_counts(comm, src, dst)
        send_counts, recv_counts = counts[comm.rank], counts[:, comm.rank]
        sendbuf = np.ones(int(send_counts.sum()), np.float64)
        recvbuf = np.zeros(int(recv_counts.sum()), np.float64)
        sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]])
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])

        def alltoallv():
            comm.Alltoallv([sendbuf, (send_counts, sdispl), MPI.DOUBLE], [recvbuf, (recv_counts, rdispl), MPI.DOUBLE])

        crossed = {e: crossing(comm, p.messages(), layout)[0] for e, (p, d) in plans.items()}
        variants = {e: (lambda p=p, d=d: p.execute(src, d)) for e, (p, d) in plans.items()}
        variants["alltoallv"] = alltoallv
        floor_dst = dm.DistArray.zeros(grid_d, shape, np.float64, dist=dd)
        floor = SharedFloor(comm, src, floor_dst) if args.shared_floor else None
        if floor:
            variants["shm-floor"] = floor
        reps = args.reps if np.prod(shape) <= 4000 ** 2 else args.reps_large
        times = {k: [] for k in variants}
        for rep in range(-1, reps):
            for k, fn in variants.items():
                comm.Barrier()
                t0 = MPI.Wtime()
                fn()
                dt = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
                if rep >= 0:
                    times[k].append(dt)
            if rep in (-1, reps - 1):
                checked = list(plans.items()) + ([("shm-floor", (None, floor_dst))] if floor else [])
                for e, (p, d) in checked:
                    bad = int(np.count_nonzero(d.local != expected))
                    bad = comm.allreduce(bad)
                    if bad:
                        if comm.rank == 0:
                            print(f"MISMATCH {label}, executor {e}: {bad} wrong elements", file=sys.stderr)
                        comm.Abort(2)
        base = np.asarray(times["alltoallv"])
        for e, (p, d) in plans.items():
            t = np.asarray(times[e])
            ratio = float(np.median(t / base))
            rows.append((label, e, p.method, ways(p.describe()), crossed[e], stats(t), stats(base), ratio))
        if floor:
            t = np.asarray(times["shm-floor"])
            rows.append((label, "shm-floor", "-", "NumPy copies from MPI_Win_allocate_shared windows", "-", stats(t),
                         stats(base), float(np.median(t / base))))
            floor.free()
        forced = [e for e in plans if e != "auto"]
        if "auto" in plans and forced:
            auto = np.asarray(times["auto"])
            best = min(forced, key=lambda e: np.median(times[e]))
            to_floor = float(np.median(auto / np.asarray(times["shm-floor"]))) if floor else None
            versus.append((label, stats(auto)[0], best, stats(times[best])[0],
                           float(np.median(auto / np.asarray(times[best]))), to_floor))
        if comm.rank == 0:
            print(f"  done: {label}", file=sys.stderr)
            sys.stderr.flush()
        del plans, variants
    if comm.rank == 0:
        print("| case | executor | method | rank 0's messages | x-node msgs | datamotion ms | alltoallv ms | ratio |")
        print("|---|---|---|---|---:|---:|---:|---:|")
        for label, e, method, how, crossed, t, b, ratio in rows:
            print(f"| {label} | {e} | {method} | {how} | {crossed} | {t[0]:.1f} | {b[0]:.1f} | {ratio:.2f}x |")
        print("\nSpread (min .. max ms); ratio is the median of per-repetition ratios:\n")
        print("| case | executor | datamotion | alltoallv |")
        print("|---|---|---|---|")
        for label, e, method, how, crossed, t, b, ratio in rows:
            print(f"| {label} | {e} | {t[1]:.1f} .. {t[2]:.1f} | {b[1]:.1f} .. {b[2]:.1f} |")
        if versus:
            floor = args.shared_floor
            print("\nauto beside the fastest forced executor (by median); ratios are medians of per-repetition "
                  "ratios" + (", auto / shm-floor likewise" if floor else "") + ":\n")
            print("| case | auto ms | best forced | best forced ms | auto / best forced |"
                  + (" auto / shm-floor |" if floor else ""))
            print("|---|---:|---|---:|---:|" + ("---:|" if floor else ""))
            for label, auto, best, t_best, ratio, to_floor in versus:
                print(f"| {label} | {auto:.1f} | {best} | {t_best:.1f} | {ratio:.2f}x |"
                      + (f" {to_floor:.2f}x |" if floor else ""))
        elif "auto" not in args.executors:
            print("\nauto was not run (--executors): no auto / best forced comparison")
        if skipped:
            print()
        for label, e, why in skipped:
            print(f"- executor {e} skipped for {label}: {why}")


if __name__ == "__main__":
    main()
