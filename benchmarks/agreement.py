"""What a collective call's agreement costs, beside the MPI floor it is built on.

    mpiexec -n 2 python benchmarks/agreement.py [--reps 2001]
    DATAMOTION_TIMEOUT=300 mpiexec -n 2 python benchmarks/agreement.py

Every agreement of a datamotion collective call (docs/concepts.md, "The agreement")
starts with one fixed-size step: an MPI_Allreduce(MAX) of 12 int64 words (the call,
the check, whether this rank failed, a digest of the values). Without a deadline it is
a blocking MPI_Allreduce; with one (DATAMOTION_TIMEOUT, or checked mode's default
300 s) an MPI_Iallreduce tested in a loop. Rows, side by side in one run (the
contenders alternate inside each repetition, a barrier before each; medians over the
repetitions of the slowest rank's time):

  floor, 1 int        mpi4py Allreduce of one int32: what an agreement cost before it
                      carried the call (one MPI_Allreduce of the failing rank)
  floor, 12 int64     mpi4py Allreduce of the step's 12 words: the MPI floor of the step
  agree               datamotion's agreement (_core.agree, no error), through the path
                      printed in the header (blocking, or the deadline's test loop)
  vector after a      Vector.to_numpy of a 1-element vector right after a constructor,
  constructor         which compares the constructor's length first (one more step)
  vector alone        the same to_numpy with no constructor since the last comparison

Measured at MPI_THREAD_SINGLE (set before mpi4py initialises MPI); the thread level
is printed. Run outside checked mode (DATAMOTION_CHECK unset): checked mode compares
every vector call's arguments anyway.
"""

import argparse
import os
import statistics
import time

import mpi4py

mpi4py.rc.thread_level = "single"

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion import _core  # noqa: E402
from datamotion import vector as cv  # noqa: E402
from datamotion.measure.hosts import job_description  # noqa: E402


def timed(comm, fn) -> float:
    """Collective. Seconds of fn() on the slowest rank, after a barrier."""
    comm.Barrier()
    start = time.perf_counter()
    fn()
    return comm.allreduce(time.perf_counter() - start, op=MPI.MAX)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=2001)
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    one, one_out = np.zeros(1, np.int32), np.zeros(1, np.int32)
    words, words_out = np.zeros(24, np.int64), np.zeros(24, np.int64)
    kept = cv.Vector(1)
    kept.to_numpy()  # compared once: later calls on it find no constructor pending

    def after_constructor():
        cv.Vector(1).to_numpy()

    rows = {
        "floor, 1 int": lambda: comm.Allreduce(one, one_out, op=MPI.MAX),
        "floor, 12 int64": lambda: comm.Allreduce(words[:12], words_out[:12], op=MPI.MAX),
        "agree": lambda: _core.agree(comm, 1, None),
        "vector after a constructor": after_constructor,
        "vector alone": kept.to_numpy,
    }
    samples = {name: [] for name in rows}
    for _ in range(args.reps):
        for name, fn in rows.items():
            samples[name].append(timed(comm, fn))
    layout = job_description(comm)
    if comm.rank == 0:
        timeout = os.environ.get("DATAMOTION_TIMEOUT", "")
        path = (f"deadline (MPI_Iallreduce + test loop, DATAMOTION_TIMEOUT={timeout})"
                if timeout not in ("", "0") or _core.checked_mode() else "blocking MPI_Allreduce (no deadline)")
        level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized",
                 MPI.THREAD_MULTIPLE: "multiple"}[MPI.Query_thread()]
        print(f"{comm.size} ranks ({layout}), MPI thread level {level}, checked mode {'on' if _core.checked_mode() else 'off'}; "
              f"agreement path: {path}; medians of {args.reps} repetitions")
        floor = statistics.median(samples["floor, 12 int64"])
        print(f"{'row':<28} {'median us':>10} {'/ floor 12 int64':>17}")
        for name, times in samples.items():
            median = statistics.median(times)
            print(f"{name:<28} {median * 1e6:>10.2f} {median / floor:>17.2f}")


if __name__ == "__main__":
    main()
