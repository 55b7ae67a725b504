"""One-shot calls against reused plans and the hand-written floor, side by side.

    mpiexec -n 2 python benchmarks/one_shot_vs_plan.py [--rows 2000] [--cols 4000] [--reps 20]

A float64 array of `rows` x `cols` elements per rank, block-distributed along
axis 0 on a 1-d grid. Every variant runs once per round, rounds interleaved,
medians of the slowest rank's time over `reps` rounds:

  create   DistArray.zeros / DistArray.empty  vs  numpy.zeros / numpy.empty of the local block,
           and each followed by a first write of every element (where the pages are paid)
  cshift   dm.cshift(a, 1, 0) (one-shot, plan kept on the grid)
           vs PShift.execute into an existing array (a reused plan), and into a new one
           vs mpi4py + NumPy: the boundary rows by Sendrecv, the rest by slicing into
              a new array (what a Python user writes in ten lines)
  redist   dm.redistribute(a, Cyclic()) (one-shot) vs RedistPlan.execute (reused), into an
           existing array and into a new one (the one-shot call's own work)

MPI is initialised at MPI_THREAD_SINGLE (as a C program would), unless
MPI4PY_RC_THREAD_LEVEL says otherwise; the level is printed.
"""

import argparse
import os

import mpi4py

mpi4py.rc.thread_level = os.environ.get("MPI4PY_RC_THREAD_LEVEL", "single")

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion.measure.hosts import job_description  # noqa: E402

THREAD_LEVELS = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                 MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}


def numpy_cshift(comm, local):
    """r[i] = a[i + 1] along axis 0 of a block-distributed array, by hand: the first
    row of the next rank arrives by Sendrecv, the rest is a local slice copy."""
    out = np.empty_like(local)
    out[:-1] = local[1:]
    right, left = (comm.rank + 1) % comm.size, (comm.rank - 1) % comm.size
    comm.Sendrecv(np.ascontiguousarray(local[0]), dest=left, recvbuf=out[-1], source=right)
    return out


def interleaved(comm, variants, reps):
    """Median over rounds of the slowest rank's time of each variant, run in turn."""
    times = {name: [] for name in variants}
    for fn in variants.values():  # warm-up: first touch, plans made, requests bound
        fn()
    for _ in range(reps):
        for name, fn in variants.items():
            comm.Barrier()
            t0 = MPI.Wtime()
            fn()
            times[name].append(comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX))
    return {name: float(np.median(t)) for name, t in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2000, help="rows per rank")
    parser.add_argument("--cols", type=int, default=4000)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    grid = dm.ProcessGrid(comm, dims=[comm.size, 1], periods=[True, True], order="send")  # rank = row of blocks
    shape = (args.rows * comm.size, args.cols)
    a = dm.DistArray.from_global(grid, np.random.default_rng(1).standard_normal(shape))
    local_shape = a.local_shape

    plan = dm.PShift(a, [dm.CShift(1, axis=0)])
    shifted = dm.DistArray.empty(grid, shape)
    target = dm.DistArray.empty(grid, shape, dist=dm.Cyclic())
    redist = dm.RedistPlan(a, target)

    check = dm.cshift(a, 1, 0).to_global()
    floor = np.concatenate(comm.allgather(numpy_cshift(comm, a.local)))
    if comm.rank == 0 and not np.array_equal(check, floor):
        raise SystemExit("one_shot_vs_plan: the hand-written shift differs from dm.cshift")

    rows = [
        ("create", interleaved(comm, {
            "DistArray.zeros": lambda: dm.DistArray.zeros(grid, shape),
            "DistArray.empty": lambda: dm.DistArray.empty(grid, shape),
            "numpy.zeros": lambda: np.zeros(local_shape),
            "numpy.empty": lambda: np.empty(local_shape),
            "DistArray.empty + fill": lambda: dm.DistArray.empty(grid, shape).local.fill(1.0),
            "numpy.empty + fill": lambda: np.empty(local_shape).fill(1.0),
        }, args.reps), "numpy.empty + fill"),
        ("cshift", interleaved(comm, {
            "dm.cshift (one-shot)": lambda: dm.cshift(a, 1, 0),
            "PShift.execute (reused)": lambda: plan.execute([shifted], [a]),
            "empty + PShift.execute": lambda: plan.execute([dm.DistArray.empty(grid, shape)], [a]),
            "mpi4py + NumPy": lambda: numpy_cshift(comm, a.local),
        }, args.reps), "mpi4py + NumPy"),
        ("redist", interleaved(comm, {
            "dm.redistribute (one-shot)": lambda: dm.redistribute(a, dm.Cyclic()),
            "RedistPlan.execute (reused)": lambda: redist.execute(a, target),
            "empty + RedistPlan.execute": lambda: redist.execute(a, dm.DistArray.empty(grid, shape, dist=dm.Cyclic())),
        }, args.reps), "empty + RedistPlan.execute"),
    ]
    layout = job_description(comm)
    if comm.rank == 0:
        level = THREAD_LEVELS.get(MPI.Query_thread(), "?")
        print(f"# {comm.size} ranks ({layout}), {args.rows} x {args.cols} float64 per rank, thread level {level}, "
              f"{args.reps} interleaved rounds, medians of the slowest rank")
        print(f"# executors: cshift {plan.describe().splitlines()[1].strip()}; "
              f"redist {redist.method}, {redist.describe().splitlines()[2].strip()}")
        print("| case | variant | median ms | / baseline |")
        print("|---|---|---|---|")
        for case, medians, baseline in rows:
            for name, t in medians.items():
                print(f"| {case} | {name} | {t * 1e3:.2f} | {t / medians[baseline]:.2f}x |")


if __name__ == "__main__":
    main()
