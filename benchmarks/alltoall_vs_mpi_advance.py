"""A uniform all-to-all three ways, side by side in one run: datamotion's exchange
(a redistribution whose every rank pair moves the same bytes), MPI_Alltoall, and
MPI Advance's all-to-all algorithms (mpi-advance/locality_aware) where its library
is present.

    mpiexec -n 4 python benchmarks/alltoall_vs_mpi_advance.py [--sizes 64 1024 ...]
        [--reps 31] [--mpi-advance PATH]

The exchange: a P x (P m) float64 array, rows Block over a P x 1 grid, redistributed
to columns Block over a 1 x P grid, so that every rank sends m values (8 m bytes,
the "bytes per pair" column) to every rank, itself included, contiguous on both
sides: exactly an all-to-all of 8 m bytes per pair. Rows:

  datamotion auto / pack / aggregate
             the redistribution plan's execute with that executor (pack: one
             message per rank pair; aggregate: node-aware, one message per node
             pair through the node's leader, where the layout allows it; an
             executor that refuses the case is skipped with one line)
  MPI_Alltoall
             mpi4py's MPI_Alltoall of the same bytes (the baseline of every ratio)
  MPI Advance <algorithm>
             MPIL_Alltoall of the same bytes after MPIL_Set_alltoall_algorithm,
             for each of its CPU algorithms (pairwise, nonblocking, hierarchical,
             multileader, node-aware, locality-aware, multileader-locality), on an
             MPIL_Comm made once. Its library is found from --mpi-advance or
             DATAMOTION_MPI_ADVANCE (liblocality_aware.so, or a build or install
             folder holding it), built with the MPI this Python uses; without it
             the rows are skipped with one line (docs/hosts.md says how to build it).

Every contender's result is checked (each value says which rank sent it and where)
after the warm-up and after the last repetition. A time is the slowest rank's after
a barrier; contenders alternate inside each repetition; the tables show medians and
the median of the per-repetition ratios to MPI_Alltoall. The header says how the
ranks lie on nodes (docs/hosts.md); "x-node msgs" counts the messages between ranks
of different nodes, summed over the ranks (MPI_Alltoall's count assumes one message
per pair; MPI Advance's are not known). A last table puts datamotion's best row
beside MPI Advance's best at each size, and node-aware beside per-rank messages.

MPI runs at MPI_THREAD_SINGLE (printed).
"""

import argparse
import ctypes
import os
import sys
from pathlib import Path

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion import redist  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout, sent_to  # noqa: E402

EXECUTORS = ("auto", "pack", "aggregate")
# MPI Advance's enum AlltoallMethod in a CPU build (locality_aware.h), in its order.
MPIL_ALGORITHMS = ("pairwise", "nonblocking", "hierarchical pairwise", "hierarchical nonblocking",
                   "multileader pairwise", "multileader nonblocking", "node-aware pairwise",
                   "node-aware nonblocking", "locality-aware pairwise", "locality-aware nonblocking",
                   "multileader-locality pairwise", "multileader-locality nonblocking")


def find_mpi_advance(given):
    """The path of liblocality_aware.so, or (None, why)."""
    where = given or os.environ.get("DATAMOTION_MPI_ADVANCE")
    if not where:
        return None, "MPI Advance not given (--mpi-advance or DATAMOTION_MPI_ADVANCE); its rows are skipped"
    path = Path(where)
    if path.is_dir():
        found = sorted(path.glob("liblocality_aware.so")) + sorted(path.glob("lib*/liblocality_aware.so"))
        if not found:
            return None, f"MPI Advance: no liblocality_aware.so in {path}; its rows are skipped"
        path = found[0]
    if not path.is_file():
        return None, f"MPI Advance: {path} does not exist; its rows are skipped"
    return path, None


class MpiAdvance:
    """MPIL_Alltoall through ctypes, on an MPIL_Comm over `comm`."""

    def __init__(self, path, comm):
        self.lib = ctypes.CDLL(str(path))
        # Handles as the C ABI of this MPI passes them: MPICH's are ints, Open MPI's pointers.
        handle = ctypes.c_int if MPI.get_vendor()[0] != "Open MPI" else ctypes.c_void_p
        self.byte = handle(MPI._handleof(MPI.BYTE))
        self.xcomm = ctypes.c_void_p()
        self.lib.MPIL_Comm_init.argtypes = [ctypes.POINTER(ctypes.c_void_p), handle]
        self.lib.MPIL_Alltoall.argtypes = [ctypes.c_void_p, ctypes.c_int, handle, ctypes.c_void_p, ctypes.c_int,
                                           handle, ctypes.c_void_p]
        self.lib.MPIL_Set_alltoall_algorithm.argtypes = [ctypes.c_int]
        self.lib.MPIL_Comm_free.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        if self.lib.MPIL_Comm_init(ctypes.byref(self.xcomm), handle(MPI._handleof(comm))) != 0:
            raise RuntimeError("MPIL_Comm_init failed")

    def alltoall(self, algorithm, send, recv, nbytes):
        self.lib.MPIL_Set_alltoall_algorithm(algorithm)
        rc = self.lib.MPIL_Alltoall(send.ctypes.data, nbytes, self.byte, recv.ctypes.data, nbytes, self.byte,
                                    self.xcomm)
        if rc != 0:
            raise RuntimeError(f"MPIL_Alltoall ({MPIL_ALGORITHMS[algorithm]}) returned {rc}")

    def free(self):
        self.lib.MPIL_Comm_free(ctypes.byref(self.xcomm))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024, 4096, 65536, 460800],
                        help="bytes per rank pair (multiples of 8)")
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--mpi-advance", help="liblocality_aware.so, or a folder holding it")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    P, rank = comm.size, comm.rank
    bad = [s for s in args.sizes if s <= 0 or s % 8]
    if bad:
        if rank == 0:
            print(f"--sizes: {bad[0]} is not a positive multiple of 8 bytes", file=sys.stderr)
        sys.exit(2)
    layout = job_layout(comm)
    path, note = find_mpi_advance(args.mpi_advance)
    advance = None
    if path is not None:
        try:
            advance = MpiAdvance(path, comm)
        except (OSError, AttributeError, RuntimeError) as e:
            note = f"MPI Advance at {path} could not be used ({e}); its rows are skipped"
    if rank == 0:
        print("# A uniform all-to-all: datamotion, MPI_Alltoall and MPI Advance\n")
        print(f"- ranks: {P}; MPI: {MPI.Get_library_version().splitlines()[0].strip()}; thread level: "
              f"{'single' if MPI.Query_thread() == MPI.THREAD_SINGLE else MPI.Query_thread()}")
        print(f"- layout: {describe(layout)}")
        print(f"- MPI Advance: {path}" if advance else f"- {note}")
        print(f"- {args.reps} repetitions after one warm-up; medians of the slowest rank's time, µs\n")
        sys.stdout.flush()
    rows, summary, skipped = [], [], []
    for nbytes in args.sizes:
        m = nbytes // 8
        shape = (P, P * m)
        src = dm.DistArray.zeros(dm.ProcessGrid(comm, dims=[P, 1]), shape, np.float64)
        # Value = sender * P * m + receiver * m + j: which rank sent it, to whom, where.
        src.local[...] = (rank * P * m + np.arange(P * m)).reshape(src.local_shape)
        expect = (np.arange(P)[:, None] * P * m + rank * m + np.arange(m)[None, :]).astype(np.float64)
        contenders, crossed, ways = {}, {}, {}
        grid_d = dm.ProcessGrid(comm, dims=[1, P])
        for e in EXECUTORS:
            dst = dm.DistArray.zeros(grid_d, shape, np.float64)
            try:
                plan = redist.RedistPlan(src, dst, executor=e)
            except dm.Error as err:
                skipped.append(f"{nbytes} B, datamotion {e}: {str(err).strip().splitlines()[0]}")
                continue
            name = f"datamotion {e}"
            contenders[name] = (lambda p=plan, d=dst: p.execute(src, d), lambda d=dst: d.local)
            crossed[name] = crossing(comm, plan.messages(), layout)[0]
            ways[name] = "datamotion"
        send = src.local.reshape(-1).copy()
        recv = np.empty(P * m)
        contenders["MPI_Alltoall"] = (lambda: comm.Alltoall(send, recv), lambda: recv.reshape(P, m))
        crossed["MPI_Alltoall"] = crossing(comm, sent_to([nbytes] * P), layout)[0]
        if advance:
            for k, algorithm in enumerate(MPIL_ALGORITHMS):
                out = np.empty(P * m)
                contenders[f"MPI Advance {algorithm}"] = (
                    lambda k=k, out=out: advance.alltoall(k, send, out, nbytes), lambda out=out: out.reshape(P, m))
                crossed[f"MPI Advance {algorithm}"] = "-"
        times = {k: [] for k in contenders}
        for rep in range(-1, args.reps):
            for name, (run, _) in contenders.items():
                comm.Barrier()
                t0 = MPI.Wtime()
                run()
                dt = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
                if rep >= 0:
                    times[name].append(dt)
            if rep in (-1, args.reps - 1):
                for name, (_, result) in contenders.items():
                    wrong = comm.allreduce(int(np.count_nonzero(result() != expect)))
                    if wrong:
                        if rank == 0:
                            print(f"{name}, {nbytes} B per pair: {wrong} wrong values", file=sys.stderr)
                        comm.Abort(2)
        base = np.asarray(times["MPI_Alltoall"])
        med = {k: float(np.median(v)) * 1e6 for k, v in times.items()}
        ratio = {k: float(np.median(np.asarray(v) / base)) for k, v in times.items()}
        for name in contenders:
            rows.append((nbytes, name, crossed[name], med[name], ratio[name]))
        ours = [k for k in contenders if k.startswith("datamotion")]
        theirs = [k for k in contenders if k.startswith("MPI Advance")]
        best_ours = min(ours, key=med.get) if ours else None
        best_theirs = min(theirs, key=med.get) if theirs else None
        node_aware = None
        if "datamotion aggregate" in times and "datamotion pack" in times:
            node_aware = float(np.median(np.asarray(times["datamotion aggregate"]) /
                                         np.asarray(times["datamotion pack"])))
        versus = None
        if best_ours and best_theirs:
            versus = float(np.median(np.asarray(times[best_ours]) / np.asarray(times[best_theirs])))
        summary.append((nbytes, best_ours, best_theirs, versus, node_aware,
                        float(np.median(np.asarray(times["datamotion auto"]) / np.asarray(times[best_ours])))
                        if "datamotion auto" in times and best_ours else None))
        if rank == 0:
            print(f"  done: {nbytes} B per pair", file=sys.stderr)
    if advance:
        advance.free()
    if rank == 0:
        for line in skipped:
            print(f"- skipped: {line}")
        print("\n| bytes per pair | contender | x-node msgs | median µs | / MPI_Alltoall |")
        print("|---:|---|---:|---:|---:|")
        for nbytes, name, x, t, r in rows:
            print(f"| {nbytes} | {name} | {x} | {t:.1f} | {r:.2f}x |")
        print("\nPer size: datamotion's fastest row, MPI Advance's fastest, their median per-repetition ratio; "
              "node-aware (aggregate) / per-rank messages (pack); auto / datamotion's fastest:\n")
        print("| bytes per pair | datamotion best | MPI Advance best | dm / MPI Advance | aggregate / pack "
              "| auto / best |")
        print("|---:|---|---|---:|---:|---:|")
        cell = lambda v: "-" if v is None else f"{v:.2f}x"  # noqa: E731
        for nbytes, ours, theirs, versus, node_aware, auto in summary:
            print(f"| {nbytes} | {ours or '-'} | {theirs or '-'} | {cell(versus)} | {cell(node_aware)} "
                  f"| {cell(auto)} |")


if __name__ == "__main__":
    main()
