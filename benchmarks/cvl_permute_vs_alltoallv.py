"""CVL permute and bpermute against three floors: the values floor (a NumPy local
scatter or gather of the same count plus one MPI_Alltoallv of the same values), the
on-node one-copy floor (values written straight into shared windows), and the whole
permutation written directly with NumPy and mpi4py.

    mpiexec -n 2 python benchmarks/cvl_permute_vs_alltoallv.py [--n 1000000] [--reps 31]

A random permutation of n = N x ranks elements (N per rank, the same on every rank),
float64 and int32, side by side in one run (the contenders alternate inside each
repetition, a barrier before each, the slowest rank's time), medians over the
repetitions:

  permute   datamotion.vector.permute(v, index)    d[index[k]] = v[k]; on one node
            (blocks of 8 KiB and more) each rank places its (offset, value) records
            in node memory and each receiver reads its records straight out of the
            senders' buffers; the "path" column says which path each row took
  smp_pu    CVL's smp_pu? into an existing vector (what a C program calls; no result
            to allocate and zero-fill)
  permute, messages
            permute with DM_EXCHANGE=pack set around the call, which keeps the
            records on messages (as between nodes)
  bpermute  datamotion.vector.bpermute(v, index)   d[k] = v[index[k]]; on one node it
            reads each value out of its owner's block in place
  bpermute, messages
            the same, from a source in memory the user adopted, which the other
            ranks cannot read: requests and replies by message (as between nodes)

  floor     (the values floor, the target's) NumPy's ``out[local] = values``
            (``values[local]`` for bpermute) over the N elements of this rank with a
            random local permutation (intp indices), then one MPI_Alltoallv (mpi4py,
            buffer interface) of the N values of this rank with the permutation's
            counts per destination rank, computed before the timing. It moves no
            indices and agrees on nothing: a lower bound, not a permutation.
  message floor
            (issue 33's, permute only) ``np.take(values, order, out=packed)``
            into destination-rank order, one MPI_Alltoallv of the packed values,
            and ``out[land] = received`` into place: both orders computed before
            the timing. A permutation with its indices known in advance, moving
            values only.
  python    the whole permutation as a NumPy + mpi4py user writes it (about ten
            lines, ``python_permute`` / ``python_bpermute`` below): owners by
            integer division, a stable argsort by owner, bincount, one MPI_Alltoall
            of the counts, MPI_Alltoallv of the values and of the int32 local
            offsets (bpermute: of the requests, then of the replies), and the local
            scatter (gather, then the reply order undone).

  one-copy floor
            every rank's destination block (bpermute: source block) in an
            MPI_Win_allocate_shared window over the node communicator
            (MPI_Comm_split_type SHARED); each rank writes each of its values
            straight into its position in the owner's block, one NumPy fancy-index
            assignment per destination rank (bpermute: reads them out of the
            owners' blocks), the grouping made before the timing; MPI_Win_sync and
            MPI_Barrier before and after. NumPy's fancy indexing on both sides of
            an assignment goes through a temporary, so grouped, each value is
            copied twice. Where the windows lie one after another in memory (MPI's
            default, checked) "one assignment" writes the whole vector in a single
            ``whole[index] = values`` (``np.take(whole, index, out=...)`` for
            bpermute): one pass, the tighter floor. Skipped, with a note, when the
            ranks span several nodes.

Ratios are datamotion / floor: of the medians, and the median (with the 10th-90th
percentiles) of the per-repetition ratios, whose two times were taken moments apart,
which is steadier on a shared machine. The target of issue 14 is <= 1.5 to the
values floor for permute and bpermute (issue 24). A second table gives datamotion / one-copy floor, both
forms, from the same repetitions; the one-copy floor sends no index and agrees on
nothing (its result is checked once, before the timing). A permutation must also move where each value goes (datamotion
sends a 16-bit offset beside each value), agree on bad indices on every rank, and
permute allocates and zero-fills its result (positions no index names are 0).

The header says how the ranks lie on nodes (docs/hosts.md). permute and bpermute are
one-shot calls with no plan to ask for their messages: "floor x-node msgs" counts the
values floor's MPI_Alltoallv messages between ranks of different nodes (one per pair
of ranks with values to move), summed over the ranks; the rows on the message path
send their records between the same pairs.

Measured at MPI_THREAD_SINGLE (set before mpi4py initialises MPI); the thread level
is printed.
"""

import argparse
import os
import sys

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402
from node_floor import node_of  # noqa: E402

import datamotion as dm  # noqa: E402
from datamotion import _core  # noqa: E402
from datamotion import vector as cv  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout, sent_to  # noqa: E402

# The executor each forced contender names.
FORCED = {"permute, forced onnode": "onnode", "permute, messages": "pack", "bpermute, forced onnode": "onnode",
          "bpermute, forced pack": "pack"}

# How each contender moves its data (printed beside its row).
PATHS = {
    "permute": "on one node: counting sort by (rank, 2^16-element window) of (16-bit offset, value) records "
               "into a send buffer in node memory; MPI_Ialltoall of counts, faults and where each receiver's "
               "segment lies; each receiver reads its segments straight out of the senders' buffers and writes "
               "them into the result window by window, in rank order; one barrier before returning",
    "smp_pu": "as permute, into an existing vector",
    "permute, messages": "permute under DM_EXCHANGE=pack (the path between nodes): the records placed while the "
                         "MPI_Ialltoall of counts travels; engine variable exchange (one Isend/Irecv per nonzero "
                         "peer) of the records, the own segment read from the send buffer; written into the result "
                         "on arrival, in rank order",
    "bpermute": "on one node, every source block in node memory (vectors datamotion allocates): one row gather "
                "agrees on faults and on where the owners' blocks are, each value is read straight out of its "
                "owner's block, one barrier before returning (each value copied once)",
    "bpermute, messages": "bpermute of a source in memory the user adopted (DistArray.adopt), which peers cannot "
                          "read: counting sort by (rank, window); MPI_Ialltoall of counts, the requests placed "
                          "while it travels; variable exchanges of 16-bit requests and of replies, each peer "
                          "answered on arrival, own requests answered without MPI (the path between nodes)",
    "floor": "NumPy local scatter/gather + one MPI_Alltoallv (values only)",
    "message floor": "permute only: NumPy take into destination-rank order + MPI_Alltoallv + NumPy scatter of the "
                     "received values into place, both orders computed before the timing",
    "python": "NumPy + mpi4py: owners, stable argsort by owner, bincount, MPI_Alltoall of counts, "
              "MPI_Alltoallv of values and int32 offsets (bpermute: requests, then replies), local scatter/gather",
    "one-copy floor": "MPI_Win_allocate_shared windows over the node hold the destination (bpermute: the source) "
                      "blocks; per owner rank one NumPy fancy-index assignment straight into (out of) its block, "
                      "grouped before the timing; MPI_Win_sync + MPI_Barrier before and after",
    "one assignment": "the same windows seen as one vector (contiguous allocation): a single "
                      "whole[index] = values (np.take(whole, index) for bpermute), no grouping",
}


def block(n, p):
    """The vectors' block distribution: ceil(n / p) per rank, trailing ranks short."""
    b = -(-n // p)
    starts = np.minimum(np.arange(p, dtype=np.int64) * b, n)
    return np.minimum(starts + b, n) - starts, starts


def alltoallv_of(comm, send, scounts, rcounts, mpitype):
    """One MPI_Alltoallv of `send` (grouped by destination) with these counts."""
    recv = np.empty(int(rcounts.sum()), dtype=send.dtype)
    sdispl = np.concatenate([[0], np.cumsum(scounts)[:-1]])
    rdispl = np.concatenate([[0], np.cumsum(rcounts)[:-1]])
    comm.Alltoallv([send, (scounts, sdispl), mpitype], [recv, (rcounts, rdispl), mpitype])
    return recv


def python_permute(comm, b, index, values, out, mpitype):
    """out[index[k] - start] = values[k] across the ranks, as a NumPy + mpi4py user writes it."""
    owner = index // b
    order = np.argsort(owner, kind="stable")
    scounts = np.bincount(owner, minlength=comm.size)
    rcounts = np.empty_like(scounts)
    comm.Alltoall(scounts, rcounts)
    got = alltoallv_of(comm, values[order], scounts, rcounts, mpitype)
    at = alltoallv_of(comm, (index - owner * b).astype(np.int32)[order], scounts, rcounts, MPI.INT32_T)
    out[at] = got


def python_bpermute(comm, b, index, values, out, mpitype):
    """out[k] = (global values)[index[k]] across the ranks, as a NumPy + mpi4py user writes it."""
    owner = index // b
    order = np.argsort(owner, kind="stable")
    scounts = np.bincount(owner, minlength=comm.size)
    rcounts = np.empty_like(scounts)
    comm.Alltoall(scounts, rcounts)
    asked = alltoallv_of(comm, (index - owner * b).astype(np.int32)[order], scounts, rcounts, MPI.INT32_T)
    out[order] = alltoallv_of(comm, values[asked], rcounts, scounts, mpitype)


class SharedVector:
    """A block-distributed vector whose blocks live in one MPI_Win_allocate_shared
    window over the node: `views[r]` is rank r's block, readable and writable by
    every rank. `whole` is the vector as one array when the blocks lie one after
    another in memory (MPI's default, contiguous allocation; checked, None if not)."""

    def __init__(self, comm, node, counts, starts, dtype):
        self.comm = comm
        item = np.dtype(dtype).itemsize
        self.win = MPI.Win.Allocate_shared(int(counts[comm.rank]) * item, item, comm=node)
        bufs = [self.win.Shared_query(r)[0] for r in range(comm.size)]  # node rank r is comm rank r
        self.views = [np.frombuffer(b, dtype=dtype, count=int(c)) for b, c in zip(bufs, counts)]
        base = MPI.Get_address(bufs[0])
        contiguous = all(MPI.Get_address(b) == base + int(s) * item for b, s, c in zip(bufs, starts, counts) if c)
        self.whole = None
        if comm.allreduce(contiguous, op=MPI.LAND):
            memory = getattr(MPI, "buffer", None) or MPI.memory  # mpi4py 4 / 3
            self.whole = np.frombuffer(memory.fromaddress(base, int(counts.sum()) * item), dtype=dtype)
        self.win.Lock_all()  # one passive epoch for the object's life (the unified memory model)
        self.mine = self.views[comm.rank]

    def sync(self):
        """Every rank's stores to the window visible to every rank: MPI_Win_sync,
        MPI_Barrier, MPI_Win_sync (MPI-3's unified model)."""
        self.win.Sync()
        self.comm.Barrier()
        self.win.Sync()

    def free(self):
        self.views, self.whole, self.mine = [], None, None
        self.win.Unlock_all()
        self.win.Free()


class OneCopyFloor:
    """The on-node one-copy floor of permute and bpermute: no message, no
    agreement, each value moved once, by NumPy, between this rank's block and the
    owners' blocks in shared windows. The grouping by destination rank is made
    before the timing, as is everything that depends on the index only.

    permute   every rank's destination block in a window (`dst`); each rank writes
              its values straight into their positions in the owners' blocks: per
              destination rank one fancy-index assignment ``views[q][at] = values[k]``
              (grouped), or, when the blocks are contiguous, one assignment into the
              whole vector ``whole[index] = values`` (one assignment: no gather of
              the values per group, a single pass);
    bpermute  every rank's values in a window (`src`); each rank reads its results
              straight out of the owners' blocks: ``out[k] = views[q][at]`` per
              source rank (grouped), or ``np.take(whole, index, out=out)``.

    A barrier (with MPI_Win_sync) before: the blocks read are written, the blocks
    written are no longer read; and after: every write landed."""

    def __init__(self, comm, node, counts, starts, index, values):
        self.comm = comm
        self.index = index.astype(np.intp)
        owner = np.searchsorted(starts, self.index, side="right") - 1
        order = np.argsort(owner, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=comm.size))])
        self.groups = []  # (rank, this rank's positions k, positions in rank's block)
        for q in range(comm.size):
            k = order[bounds[q]:bounds[q + 1]]
            if k.size:
                self.groups.append((q, k, self.index[k] - starts[q]))
        self.values = values
        self.dst = SharedVector(comm, node, counts, starts, values.dtype)
        self.src = SharedVector(comm, node, counts, starts, values.dtype)
        self.src.mine[...] = values  # bpermute's source, written once, untimed
        self.src.sync()

    def permute(self):
        self.dst.sync()
        views, values = self.dst.views, self.values
        for q, k, at in self.groups:
            views[q][at] = values[k]
        self.dst.sync()

    def permute_whole(self):
        self.dst.sync()
        self.dst.whole[self.index] = self.values
        self.dst.sync()

    def bpermute(self, out):
        self.src.sync()
        views = self.src.views
        for q, k, at in self.groups:
            out[k] = views[q][at]
        self.src.sync()

    def bpermute_whole(self, out):
        self.src.sync()
        np.take(self.src.whole, self.index, out=out)
        self.src.sync()

    def free(self):
        self.dst.free()
        self.src.free()


def forced(executor, fn):
    """fn() with DM_EXCHANGE=executor: "pack" keeps datamotion's vector movements on
    messages, "onnode" reads in place wherever the memory allows."""
    saved = os.environ.get("DM_EXCHANGE")
    os.environ["DM_EXCHANGE"] = executor
    try:
        return fn()
    finally:
        if saved is None:
            del os.environ["DM_EXCHANGE"]
        else:
            os.environ["DM_EXCHANGE"] = saved


def slowest(comm, seconds):
    return comm.allreduce(seconds, op=MPI.MAX)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="elements per rank")
    parser.add_argument("--reps", type=int, default=31)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()

    comm = MPI.COMM_WORLD
    rank, p = comm.Get_rank(), comm.Get_size()
    n = args.n * p
    if n >= 2**31:
        sys.exit("the vector must have fewer than 2^31 elements")
    counts, starts = block(n, p)
    mine = slice(int(starts[rank]), int(starts[rank] + counts[rank]))
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(n).astype(np.int32)
    owner = np.searchsorted(starts, perm, side="right") - 1
    # Values this rank sends to each rank under the permutation (and receives from each).
    send_counts = np.bincount(owner[mine], minlength=p).astype(np.int64)
    recv_counts = np.array([np.count_nonzero(owner[starts[r]:starts[r] + counts[r]] == rank) for r in range(p)],
                           dtype=np.int64)
    local = np.random.default_rng(args.seed + 1 + rank).permutation(int(counts[rank]))  # intp, NumPy's own
    # The message floor's two placements: this rank's values in destination-rank order
    # (stable, as they travel), and where each value received lands in this rank's block.
    dest_order = np.argsort(owner[mine], kind="stable")
    arrived = [perm[starts[r]:starts[r] + counts[r]] for r in range(p)]
    land = np.concatenate([a[owner[starts[r]:starts[r] + counts[r]] == rank] for r, a in enumerate(arrived)])
    land = (land - starts[rank]).astype(np.intp)

    node, no_floor = node_of(comm, "writes into other ranks' memory directly")
    layout = job_layout(comm)
    crossed = crossing(comm, sent_to(send_counts), layout)[0]  # the floor's Alltoallv messages
    floor_rows, forced_rows = [], []
    thread_level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                    MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}[MPI.Query_thread()]
    if rank == 0:
        print(f"## CVL permute vs NumPy scatter + MPI_Alltoallv: {p} ranks ({describe(layout)}), {args.n} elements per rank, "
              f"{args.reps} repetitions")
        print(f"MPI: {MPI.Get_library_version().splitlines()[0].strip()}; thread level: {thread_level}; "
              f"NumPy {np.__version__}")
        print("Times: slowest rank per repetition, median over repetitions (ms); contenders interleaved, in a new "
              "random order each repetition.\n")
        for name, path in PATHS.items():
            print(f"- {name}: {path}")
        if no_floor:
            print(f"\nThe one-copy floor is skipped: {no_floor}")
        print()
        print("| dtype | operation | path | datamotion (ms) | floor (ms) | floor: NumPy part | floor: Alltoallv part "
              "| ratio of medians | median ratio (p10-p90) | message floor (ms) | dm / message floor (p10-p90) "
              "| python (ms) | median ratio to python | floor x-node msgs |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    # The path each row takes: in place where every rank shares this node and node
    # memory is on (permute: with destination blocks of at least 8 KiB); the rows
    # named "messages" always travel by message.
    shared = p > 1 and node is not None and _core.node_memory_enabled()
    index = cv.Vector.from_numpy(perm, comm)
    grid = dm.ProcessGrid(comm)
    for dtype in (np.float64, np.int32):
        whole = np.arange(n).astype(dtype)
        scattered = shared and int(counts.max()) * np.dtype(dtype).itemsize >= 8 << 10
        path = {"permute": "in place on node" if scattered else "messages", "permute, messages": "messages",
                "bpermute": "in place on node" if shared else "messages", "bpermute, messages": "messages"}
        path["smp_pu"] = path["permute"]
        v = cv.Vector.from_numpy(whole, comm)
        # Correctness first: both against NumPy.
        expect = np.empty_like(whole)
        expect[perm] = whole
        if not np.array_equal(cv.permute(v, index).to_numpy(), expect):
            sys.exit("permute: wrong result")
        if not np.array_equal(forced("pack", lambda: cv.permute(v, index)).to_numpy(), expect):
            sys.exit("permute, messages: wrong result")
        if not np.array_equal(cv.bpermute(v, index).to_numpy(), whole[perm]):
            sys.exit("bpermute: wrong result")
        if not np.array_equal(forced("onnode", lambda: cv.permute(v, index)).to_numpy(), expect):
            sys.exit("permute, forced onnode: wrong result")
        for executor in ("onnode", "pack"):
            if not np.array_equal(forced(executor, lambda: cv.bpermute(v, index)).to_numpy(), whole[perm]):
                sys.exit(f"bpermute, forced {executor}: wrong result")

        # The same source in adopted (private) memory: bpermute takes the message path.
        adopted = cv.Vector.from_distarray(dm.DistArray.adopt(grid, whole[mine].copy(), (n,), dist=dm.Block()))
        adopted_index = cv.Vector.from_numpy(perm, adopted.comm)
        if not np.array_equal(cv.bpermute(adopted, adopted_index).to_numpy(), whole[perm]):
            sys.exit("bpermute, messages: wrong result")
        into = cv.Vector(n, dtype, comm)
        kind = {np.float64: "d", np.int32: "z"}[dtype]
        values = whole[mine].copy()
        out = np.empty_like(values)
        recv = np.empty(int(recv_counts.sum()), dtype=dtype)
        sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]])
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])
        mpitype = MPI.DOUBLE if dtype == np.float64 else MPI.INT32_T
        send_spec = [values, (send_counts, sdispl), mpitype]
        recv_spec = [recv, (recv_counts, rdispl), mpitype]

        def scatter():
            out[local] = values

        def gather():
            np.take(values, local, out=out)

        def alltoallv():
            comm.Alltoallv(send_spec, recv_spec)

        packed = np.empty_like(values)
        packed_spec = [packed, (send_counts, sdispl), mpitype]

        def message_floor():  # issue 33's: into destination order, Alltoallv, into place
            np.take(values, dest_order, out=packed)
            comm.Alltoallv(packed_spec, recv_spec)
            out[land] = recv

        message_floor()  # correctness first: the message floor is a permutation
        if not comm.allreduce(bool(np.array_equal(out, expect[mine])), op=MPI.LAND):
            sys.exit("message floor: wrong result")
        b = int(counts[0])
        my_index = perm[mine].astype(np.int64)
        got = np.empty_like(values)
        python_permute(comm, b, my_index, values, got, mpitype)  # correctness first
        if not np.array_equal(got, expect[mine]):
            sys.exit("python permute: wrong result")
        python_bpermute(comm, b, my_index, values, got, mpitype)
        if not np.array_equal(got, whole[perm[mine]]):
            sys.exit("python bpermute: wrong result")

        shm, one_assignment = None, False
        if node is not None:
            shm = OneCopyFloor(comm, node, counts, starts, perm[mine], values)
            floor_out = np.empty_like(values)
            one_assignment = shm.dst.whole is not None and shm.src.whole is not None
            ways = [(shm.permute, shm.bpermute)]
            if one_assignment:
                ways.append((shm.permute_whole, shm.bpermute_whole))
            ok = True
            for pu, bpu in ways:  # correctness first, from blocks that hold no answer
                shm.dst.mine[...] = -1  # the first sync of pu orders it before the others' writes
                pu()
                ok = ok and bool(np.array_equal(shm.dst.mine, expect[mine]))
                floor_out[...] = -1
                bpu(floor_out)
                ok = ok and bool(np.array_equal(floor_out, whole[perm[mine]]))
            if not comm.allreduce(ok, op=MPI.LAND):
                sys.exit("one-copy floor: wrong result")

        def timed(fn):
            comm.Barrier()
            t0 = MPI.Wtime()
            fn()
            return slowest(comm, MPI.Wtime() - t0)

        contenders = {
            "permute": lambda: cv.permute(v, index),
            "smp_pu": lambda: v._space.permute(f"smp_pu{kind}", into._handle, v._handle, index._handle, n),
            "permute, messages": lambda: forced("pack", lambda: cv.permute(v, index)),
            "bpermute": lambda: cv.bpermute(v, index),
            "bpermute, messages": lambda: cv.bpermute(adopted, adopted_index),
            "permute, forced onnode": lambda: forced("onnode", lambda: cv.permute(v, index)),
            "bpermute, forced onnode": lambda: forced("onnode", lambda: cv.bpermute(v, index)),
            "bpermute, forced pack": lambda: forced("pack", lambda: cv.bpermute(v, index)),
            "scatter": scatter,
            "gather": gather,
            "alltoallv": alltoallv,
            "floor_s": lambda: (scatter(), alltoallv()),
            "floor_g": lambda: (gather(), alltoallv()),
            "floor_m": message_floor,
            "python_s": lambda: python_permute(comm, b, my_index, values, got, mpitype),
            "python_g": lambda: python_bpermute(comm, b, my_index, values, got, mpitype),
        }
        if shm is not None:
            contenders.update({"shm_s": shm.permute, "shm_g": lambda: shm.bpermute(floor_out)})
            if one_assignment:
                contenders.update({"shm1_s": shm.permute_whole, "shm1_g": lambda: shm.bpermute_whole(floor_out)})
        for fn in contenders.values():  # warm up: first touch, buffers grown
            fn()
        times = {k: [] for k in contenders}
        order = np.random.default_rng(args.seed)  # the same on every rank
        for _ in range(args.reps):
            # A new order each repetition: no contender always follows the same one (whose
            # cache footprint it would inherit).
            for k in order.permutation(list(contenders)):
                times[k].append(timed(contenders[k]))
        t = {k: np.asarray(s) for k, s in times.items()}
        med = {k: float(np.median(s)) for k, s in t.items()}
        if rank == 0:
            for op, floor, part, python in (("permute", "floor_s", "scatter", "python_s"),
                                            ("smp_pu", "floor_s", "scatter", "python_s"),
                                            ("permute, messages", "floor_s", "scatter", "python_s"),
                                            ("bpermute", "floor_g", "gather", "python_g"),
                                            ("bpermute, messages", "floor_g", "gather", "python_g")):
                ratios = t[op] / t[floor]
                lo, hi = np.percentile(ratios, [10, 90])
                if floor == "floor_s":  # the message floor places the values of a permute only
                    to_messages = t[op] / t["floor_m"]
                    m_lo, m_hi = np.percentile(to_messages, [10, 90])
                    message = (f"{med['floor_m'] * 1e3:.2f} | **{np.median(to_messages):.2f}** "
                               f"({m_lo:.2f}-{m_hi:.2f})")
                else:
                    message = "- | -"
                print(f"| {np.dtype(dtype).name} | {op} | {path[op]} | {med[op] * 1e3:.2f} | {med[floor] * 1e3:.2f} "
                      f"| {med[part] * 1e3:.2f} | {med['alltoallv'] * 1e3:.2f} | {med[op] / med[floor]:.2f} "
                      f"| **{np.median(ratios):.2f}** ({lo:.2f}-{hi:.2f}) | {message} | {med[python] * 1e3:.2f} "
                      f"| {np.median(t[op] / t[python]):.2f} | {crossed} |")
            for op, ways in (("permute", ("permute, forced onnode", "permute, messages")),
                             ("bpermute", ("bpermute, forced onnode", "bpermute, forced pack"))):
                best = min(ways, key=lambda k: med[k])
                ratios = t[op] / t[best]
                lo, hi = np.percentile(ratios, [10, 90])
                forced_rows.append(f"| {np.dtype(dtype).name} | {op} | {path[op]} | {med[op] * 1e3:.2f} | "
                                   f"{FORCED[best]} | {med[best] * 1e3:.2f} | **{np.median(ratios):.2f}** "
                                   f"({lo:.2f}-{hi:.2f}) |")
            if shm is not None:
                for op, kind in (("permute", "s"), ("smp_pu", "s"), ("permute, messages", "s"), ("bpermute", "g"),
                                 ("bpermute, messages", "g")):
                    cells = []
                    for key in ("shm_" + kind, "shm1_" + kind):
                        if key in t:
                            ratios = t[op] / t[key]
                            lo, hi = np.percentile(ratios, [10, 90])
                            cells.append(f"{med[key] * 1e3:.2f} | **{np.median(ratios):.2f}** ({lo:.2f}-{hi:.2f})")
                        else:
                            cells.append("- | -")
                    floor_rows.append(f"| {np.dtype(dtype).name} | {op} | {path[op]} | {med[op] * 1e3:.2f} | "
                                      + " | ".join(cells)
                                      + " |")
        if shm is not None:
            shm.free()
        del v, into, adopted, adopted_index
    if rank == 0:
        print("\nratio = datamotion / floor (values floor); target for permute and bpermute <= 1.5. "
              "dm / message floor: the permute against issue 33's message floor (values into destination "
              "order, MPI_Alltoallv, received values into place); target <= 1.5")
    if rank == 0:
        print("\nauto against the best forced executor (DM_EXCHANGE=onnode or pack, same run): datamotion / best "
              "forced, median of the per-repetition ratios (p10-p90)\n")
        print("| dtype | operation | auto's path | auto (ms) | best forced | best forced (ms) | auto / best forced |")
        print("|---|---|---|---:|---|---:|---:|")
        for row in forced_rows:
            print(row)
    if rank == 0 and floor_rows:
        print("\nAgainst the one-copy floor (same run, same repetitions): datamotion / floor, median of the "
              "per-repetition ratios (p10-p90)\n")
        print("| dtype | operation | path | datamotion (ms) | one-copy floor, grouped (ms) | dm / floor "
              "| one assignment (ms) | dm / one assignment |")
        print("|---|---|---|---:|---:|---:|---:|---:|")
        for row in floor_rows:
            print(row)
        if not one_assignment:
            print("\nThe windows are not contiguous: no one-assignment floor.")
    if node is not None:
        node.Free()


if __name__ == "__main__":
    main()
