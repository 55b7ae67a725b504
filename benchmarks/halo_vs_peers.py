"""Halo exchange: datamotion against a hand-written mpi4py exchange (and GHEX) and the one-copy floor.

    mpiexec -n 2 python benchmarks/halo_vs_peers.py [--reps 21] [--quick] [--no-overlap]

Where ranks (or other work) outnumber the cores, busy-polling ranks lose whole time
slices and every method measures the scheduler; MPICH's
MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
makes waiting ranks yield instead (compare rows of one run only).

Per case (2-d local extents 8^2, 64^2, 512^2; 3-d 8^3, 32^3, 64^3; ghost width 1
and 2; faces only and with corners; float64; periodic on every axis), side by side
in one run, the rows interleaved repetition by repetition:

  dm         datamotion Halo.exchange (blocking), plan set up once, executor auto;
  dm-split   datamotion Halo.start() then .wait();
  dm <name>  Halo.exchange with the executor forced (executor=<name>), one per name
             of datamotion._exchange.EXECUTORS but auto; a name that raises
             datamotion.Error for a case is skipped with one line saying why;
  hand       what a Python user writes: one NumPy buffer per neighbour rank, the
             pieces packed into it with NumPy, Irecv/Isend/Waitall, unpacked; ghosts
             whose source is this rank itself are copied directly;
  ghex       GHEX's Python package, when importable (a note otherwise);
  floor      the on-node one-copy floor: every rank's array, ghosts included, in an
             MPI_Win_allocate_shared window over the node communicator
             (MPI_Comm_split_type SHARED); each ghost region filled by one NumPy copy
             straight out of the neighbour's window (periodic neighbours, corners
             when the case has them). Synchronised before the copies (neighbours'
             interiors written) and after (our interior read), timed both with
             barriers and with per-rank counters in the window that only
             neighbours wait on; the table takes the faster. Skipped, with a note,
             when the ranks span more than one node.

Every method's ghosts are checked against datamotion's once before timing ("same").
Times are the slowest rank's, per exchange, medians over repetitions; "ratio" is the
faster datamotion row over the best peer (target <= 1.0); "dm/floor" the dm row
over the floor; "best forced" the forced executor with the fastest median and
"auto/bf" the dm row (auto) over it; "iqr" the largest interquartile range over
the median of the row's methods; "r(min)" the ratio of the fastest repetitions, a
check that a loaded machine did not make the ratio. The executor column is what
the plan's describe() reports on rank 0: messages sent (direct/packed/datatype)
and local copies; "x-node" how many of the dm plan's messages go between ranks of
different nodes, summed over the ranks (the header says how the ranks lie on nodes,
docs/hosts.md). Below the table, per case: the floor under both
synchronisations and what it copies, and every forced executor's time and path.

The floor is NumPy's copies plus the synchronisation, so where the ghosts are
small, or many (corners in 3-d: 26 regions), the Python calls and the two
synchronisations dominate it and dm/floor reads well below 1: there it bounds
nothing. It is a floor for the larger arrays, where the copies dominate.

The overlap section times a stencil loop: exchange then compute on the interior,
against start() / compute on the interior / wait(), with the compute longer than
the exchange, and prints the fraction of the exchange time hidden: without MPI
calls in the compute, with an Iprobe between slabs (MPI progress), and with the
Exchange's test() between slabs (which also copies on-node messages and unpacks).
"""

import argparse
import itertools
import os
import re
import sys

import mpi4py

mpi4py.rc.thread_level = "single"  # measured at MPI_THREAD_SINGLE

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import datamotion as dm  # noqa: E402
from node_floor import node_of  # noqa: E402
from datamotion._exchange import EXECUTORS  # noqa: E402
from datamotion.measure.hosts import crossing, describe, job_layout  # noqa: E402

CASES = [(2, 8), (2, 64), (2, 512), (3, 8), (3, 32), (3, 64)]
QUICK = [(2, 8), (2, 512), (3, 8), (3, 64)]
THREAD_LEVELS = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                 MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}


def directions(nd, corners):
    """The neighbour offsets whose ghosts are filled: faces, plus edges and corners."""
    return [d for d in itertools.product((-1, 0, 1), repeat=nd) if any(d) and (corners or sum(map(abs, d)) == 1)]


def interior_side(d, n, w):
    """Slices of the interior next to side `d` of a local array (with ghosts of width
    w) whose interior extents are n: what the neighbour at `d` receives."""
    return tuple(slice(w, 2 * w) if x < 0 else slice(m, m + w) if x > 0 else slice(w, w + m) for x, m in zip(d, n))


def ghost_side(d, n, w):
    """Slices of the ghosts on side `d`: what the neighbour at `d` sends."""
    return tuple(slice(0, w) if x < 0 else slice(m + w, m + 2 * w) if x > 0 else slice(w, w + m) for x, m in zip(d, n))


def as_rows(x):
    """The same memory with its last axis as one item of that many bytes (the last
    axis must be contiguous, as in every ghost region). NumPy then copies a region
    whose rows are short, like the w-wide ghosts along the last axis, row by row with
    one memcpy each instead of running its inner loop over w elements per row:
    about 5x faster for w = 2, and the floor should not pay NumPy's overhead."""
    return x.view(np.dtype((np.void, x.shape[-1] * x.itemsize)))


class FloorHalo:
    """The on-node one-copy floor of a halo exchange: every rank's array, ghosts
    included, in an MPI_Win_allocate_shared window over the node, and each ghost
    region filled by one NumPy copy straight out of the neighbour's window. No
    packing, no message; what is left is the copy and the synchronisation: before
    the copies every neighbour must have finished writing its interior, after
    them every neighbour must have finished reading ours before we write it again.

    Two ways to synchronise, timed side by side: `barrier` (MPI_Win_sync,
    MPI_Barrier, MPI_Win_sync) and `flags`, one counter per rank in the window
    that the rank raises at both points while its neighbours wait for it, the
    MPI_Win_sync polling pattern of MPI-3's unified memory model. Only neighbours
    wait on each other, which is what the exchange needs."""

    HEADER = 64  # bytes before the array: this rank's counter, on a cache line of its own

    def __init__(self, comm, node, grid, start, w, corners):
        self.comm, self.node = comm, node
        shapes = comm.allgather(start.shape)
        self.win = MPI.Win.Allocate_shared(self.HEADER + start.nbytes, 1, comm=node)
        flags, arrays = [], []
        for r in range(comm.size):  # node rank r is comm rank r (node_of keeps the order)
            buf, _ = self.win.Shared_query(r)
            flags.append(np.frombuffer(buf, dtype=np.int64, count=1))
            arrays.append(np.frombuffer(buf, dtype=np.float64, count=int(np.prod(shapes[r])),
                                        offset=self.HEADER).reshape(shapes[r]))
        self.win.Lock_all()  # one passive epoch for the object's life (the unified memory model)
        me = comm.rank
        self.u = arrays[me]
        self.u[...] = start
        self.flag = flags[me]
        self.flag[0] = 0
        self.win.Sync()
        node.Barrier()
        self.win.Sync()
        interior = lambda r: [s - 2 * w for s in shapes[r]]
        nbr = lambda d: grid.rank_of([(c + x) % p for c, x, p in zip(grid.coords, d, grid.dims)])
        # The ghosts on side d are the interior of the neighbour at d on its side -d.
        # The views are made once: an exchange is then one copyto per ghost region.
        self.copies = []
        for d in directions(len(start.shape), corners):
            q = nbr(d)
            self.copies.append((as_rows(self.u[ghost_side(d, interior(me), w)]),
                                as_rows(arrays[q][interior_side([-x for x in d], interior(q), w)])))
        peers = sorted({nbr(d) for d in directions(len(start.shape), corners)} - {me})
        self.peer_flags = [flags[q] for q in peers]
        self.own = sum(1 for d in directions(len(start.shape), corners) if nbr(d) == me)
        self.epoch = 0

    def _raise_and_wait(self, level):
        """Publishes `level` on this rank's counter and waits until every neighbour's
        counter has reached it."""
        self.win.Sync()
        self.flag[0] = level
        for f in self.peer_flags:
            spins = 0
            while f[0] < level:
                self.win.Sync()
                spins += 1
                if spins > 64:  # more ranks than cores: let the neighbour run
                    os.sched_yield()
        self.win.Sync()

    def flags(self):
        self.epoch += 1
        self._raise_and_wait(2 * self.epoch - 1)  # my interior is written; wait for the neighbours'
        for to, frm in self.copies:
            np.copyto(to, frm)
        self._raise_and_wait(2 * self.epoch)  # I have read; wait until they have read mine

    def barrier(self):
        self.win.Sync()
        self.node.Barrier()  # every interior written before it is read
        self.win.Sync()
        for to, frm in self.copies:
            np.copyto(to, frm)
        self.win.Sync()
        self.node.Barrier()  # every neighbour has read before an interior changes
        self.win.Sync()

    def describe(self):
        return (f"{len(self.copies)} copies ({self.own} from this rank's own window), "
                f"{len(self.peer_flags)} neighbour ranks")

    def free(self):
        self.u = self.flag = None
        self.copies, self.peer_flags = [], []
        self.win.Unlock_all()
        self.win.Free()


class HandHalo:
    """Ghost exchange as a Python user writes it: per neighbour rank one send and one
    receive buffer; the pieces are NumPy views into them, packed and unpacked with
    NumPy; one Irecv and one Isend per neighbour rank."""

    def __init__(self, comm, grid, u, w, corners):
        n, nd, me = [s - 2 * w for s in u.shape], u.ndim, comm.rank
        inner = lambda d: interior_side(d, n, w)
        ghost = lambda d: ghost_side(d, n, w)
        nbr = lambda d: grid.rank_of([(c + x) % p for c, x, p in zip(grid.coords, d, grid.dims)])
        dirs = directions(nd, corners)
        # Direction d goes to nbr(d) and lands in its ghost(-d); the receiver lists the
        # same directions in the same order, so both sides agree on the packing order.
        self.copies = [(ghost([-x for x in d]), inner(d)) for d in dirs if nbr(d) == me]
        peers = sorted({nbr(d) for d in dirs} - {me})
        self.sends, self.recvs = [], []
        for p in peers:
            out = [(inner(d), u[inner(d)].shape) for d in dirs if nbr(d) == p]
            back = [[-x for x in d] for d in dirs]
            into = [(ghost(e), u[ghost(e)].shape) for e in back if nbr(e) == p]
            self.sends.append((p,) + self._buffer(out))
            self.recvs.append((p,) + self._buffer(into))
        self.comm, self.u = comm, u

    @staticmethod
    def _buffer(pieces):
        buf = np.empty(sum(int(np.prod(s)) for _, s in pieces))
        views, at = [], 0
        for where, shape in pieces:
            size = int(np.prod(shape))
            views.append((where, buf[at:at + size].reshape(shape)))
            at += size
        return buf, views

    def exchange(self):
        u, comm = self.u, self.comm
        reqs = [comm.Irecv(buf, p, 7) for p, buf, _ in self.recvs]
        for p, buf, views in self.sends:
            for where, v in views:
                v[...] = u[where]
            reqs.append(comm.Isend(buf, p, 7))
        for to, frm in self.copies:
            u[to] = u[frm]
        MPI.Request.Waitall(reqs)
        for p, buf, views in self.recvs:
            for where, v in views:
                u[where] = v


def ghex_exchange(comm, grid, u, w, corners):
    """GHEX's Python exchange of `u`, or None with a note when GHEX is not importable."""
    try:
        import ghex  # noqa: F401
    except ImportError as e:
        return None, f"GHEX not importable ({e}); its rows are skipped"
    return None, "GHEX is importable but no adapter is written for its Python API here; its rows are skipped"


def executor_of(plan):
    """What describe() says on this rank, short: the executor, then messages sent
    as direct/packed/datatype, to how many peers the on-node transport serves them
    (the receiver reads them in place from node memory), then local copies."""
    text = plan.describe()
    head = re.search(r"executor (\w+)", text).group(1)
    send = re.search(r"send: (\d+) messages.*?; (\d+) direct, (\d+) packed, (\d+) datatype", text)
    local = re.search(r"local: (\d+) copies", text)
    parts = []
    if send and int(send.group(1)):
        kinds = [f"{send.group(k)}{name}" for k, name in ((2, "dir"), (3, "pack"), (4, "dt")) if int(send.group(k))]
        parts.append(f"{send.group(1)}msg " + "+".join(kinds))
        in_place = sum(1 for l in text.splitlines() if l.strip().startswith("to rank") and "on-node:" in l)
        if in_place:
            parts.append(f"{in_place}in-place")
    if local and int(local.group(1)):
        parts.append(f"{local.group(1)}cp")
    return f"{head}:" + ",".join(parts)


def interleaved(comm, methods, reps, inner, spread=None):
    """Collective. Per method, the median over `reps` of the slowest rank's time per
    call, the methods run in turn within every repetition (rotating the order),
    after one unrecorded repetition. `spread`, if given, receives per method the
    interquartile range over the median and the minimum (as "<name> min")."""
    names = list(methods)
    samples = {k: [] for k in names}
    for name in names:  # warm up: first touch, requests bound, caches
        for _ in range(inner):
            methods[name]()
    for r in range(reps):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            fn = methods[name]
            comm.Barrier()
            t0 = MPI.Wtime()
            for _ in range(inner):
                fn()
            samples[name].append(comm.allreduce((MPI.Wtime() - t0) / inner, op=MPI.MAX))
    if spread is not None:
        for k, v in samples.items():
            q1, q2, q3 = np.percentile(v, [25, 50, 75])
            spread[k] = float((q3 - q1) / q2)
            spread[k + " min"] = float(np.min(v))
    return {k: float(np.median(v)) for k, v in samples.items()}


def repeats_for(comm, fn, target=2e-3):
    """Collective. Calls per sample so that a sample lasts about `target` seconds."""
    fn()
    comm.Barrier()
    t0 = MPI.Wtime()
    fn()
    t = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    return int(min(2000, max(1, target / max(t, 1e-7))))


def setup(comm, nd, L, w, corners):
    grid = dm.ProcessGrid(comm, dims=nd, periods=[True] * nd)
    a = dm.DistArray.zeros(grid, [L * p for p in grid.dims], ghost=w)
    a.local_with_ghosts[...] = -1.0
    a.local[...] = np.random.default_rng(comm.rank).standard_normal(a.local_shape)
    return grid, a


def forced_halos(a, corners, start, reference):
    """Collective. A Halo per forced executor (every name of EXECUTORS but auto), each
    run once from `start` and compared with `reference` (auto's result). A name that
    raises datamotion.Error for this case is skipped, with the first line of why."""
    plans, skipped, same = {}, {}, True
    for e in EXECUTORS:
        if e == "auto":
            continue
        try:
            plan = dm.Halo(a, corners=corners, executor=e)
            a.local_with_ghosts[...] = start
            plan.exchange(a)
        except dm.Error as err:
            skipped[e] = (str(err).strip().splitlines() or [type(err).__name__])[0]
            continue
        same = same and bool(np.array_equal(a.local_with_ghosts, reference))
        plans[e] = plan
    return plans, skipped, same


def case_row(comm, layout, node, nd, L, w, corners, reps):
    grid, a = setup(comm, nd, L, w, corners)
    start = a.local_with_ghosts.copy()
    halo = dm.Halo(a, corners=corners)
    u = start.copy()
    hand = HandHalo(comm, grid, u, w, corners)
    floor = FloorHalo(comm, node, grid, start, w, corners) if node is not None else None
    g, note = ghex_exchange(comm, grid, u, w, corners)
    # Same ghosts: one exchange each from the same start.
    halo.exchange(a)
    reference = a.local_with_ghosts.copy()
    hand.exchange()
    same = bool(np.array_equal(u, reference))
    if floor is not None:
        for sync in (floor.flags, floor.barrier):
            floor.u[...] = start  # safe: the last call's closing sync has every neighbour's reads done
            sync()
            same = same and bool(np.array_equal(floor.u, reference))
    forced, skipped, same_forced = forced_halos(a, corners, start, reference)
    ok = comm.allreduce(same and same_forced, op=MPI.LAND)
    split = lambda: halo.start(a).wait()
    methods = {"dm": lambda: halo.exchange(a), "dm-split": split, "hand": hand.exchange}
    if g is not None:
        methods["ghex"] = g
    if floor is not None:
        methods.update({"floor flags": floor.flags, "floor barrier": floor.barrier})
    for e, plan in forced.items():
        methods["dm " + e] = lambda plan=plan: plan.exchange(a)
    inner = comm.bcast(repeats_for(comm, hand.exchange))
    spread = {}
    t = interleaved(comm, methods, reps, inner, spread)
    fastest = {k: spread.pop(k + " min") for k in methods}
    peers = [k for k in ("hand", "ghex") if k in t]
    best = min(peers, key=t.get)
    ratio = min(t["dm"], t["dm-split"]) / t[best]
    ratio_min = min(fastest["dm"], fastest["dm-split"]) / min(fastest[k] for k in peers)
    r = dict(case=f"{nd}-d {L}^{nd}", w=w, corners="yes" if corners else "no", t=t, best=best, ratio=ratio,
             ratio_min=ratio_min, ok=ok, spread=max(spread.values()), executor=executor_of(halo),
             grid="x".join(map(str, grid.dims)), note=note, skipped=skipped,
             crossed=crossing(comm, halo.messages(), layout)[0],
             forced={e: (t["dm " + e], executor_of(plan)) for e, plan in forced.items()})
    if floor is not None:
        # The floor is the faster of its two synchronisations (both give the same ghosts).
        way = min(("flags", "barrier"), key=lambda k: t["floor " + k])
        r.update(floor=t["floor " + way], floor_way=way, dm_floor=t["dm"] / t["floor " + way],
                 floor_how=floor.describe())
        floor.free()
    if forced:
        r["best_forced"] = min(forced, key=lambda e: t["dm " + e])
        r["auto_forced"] = t["dm"] / t["dm " + r["best_forced"]]
    return r


def overlap(comm, layout, nd, L, w, corners, reps):
    """Stencil loop: exchange then compute, against start / compute / wait. The
    compute updates slabs of the interior (1 plane in 3-d, 4 rows in 2-d) that read
    no ghost, as many as take about twice the exchange."""
    grid, a = setup(comm, nd, L, w, corners)
    halo = dm.Halo(a, corners=corners)
    x = a.local
    out = np.empty_like(x)
    thick = 1 if nd == 3 else 4
    slabs = list(range(1, x.shape[0] - 1 - thick + 1, thick))

    def iprobe():
        comm.Iprobe(MPI.ANY_SOURCE, 32767)  # drives MPI progress; matches nothing

    def slab(i0, poll):
        i1 = i0 + thick
        core = (slice(1, -1),) * (nd - 1)
        acc = x[(slice(i0 - 1, i1 - 1),) + core] + x[(slice(i0 + 1, i1 + 1),) + core]
        for ax in range(1, nd):
            lo = tuple(slice(i0, i1) if b == 0 else slice(0, -2) if b == ax else slice(1, -1) for b in range(nd))
            hi = tuple(slice(i0, i1) if b == 0 else slice(2, None) if b == ax else slice(1, -1) for b in range(nd))
            acc += x[lo] + x[hi]
        out[(slice(i0, i1),) + core] = acc * (1.0 / (2 * nd))
        if poll is not None:
            poll()

    t_x = interleaved(comm, {"x": lambda: halo.exchange(a)}, reps, 20)["x"]
    t_slab = interleaved(comm, {"s": lambda: [slab(i, None) for i in slabs]}, 5, 2)["s"] / len(slabs)
    count = comm.bcast(max(4, int(np.ceil(2.0 * t_x / t_slab))))  # compute about twice the exchange
    exposed = {"": [], "+pr": [], "+test": []}  # time in start() and wait() of the overlapped steps

    def compute(poll=None):
        for k in range(count):
            slab(slabs[k % len(slabs)], poll)

    def ovl(way):
        # way "": no MPI call while computing; "+pr": an Iprobe between slabs;
        # "+test": Exchange.test() between slabs (advances this exchange itself).
        t0 = MPI.Wtime()
        ex = halo.start(a)
        t1 = MPI.Wtime()
        compute({"": None, "+pr": iprobe, "+test": ex.test}[way])
        t2 = MPI.Wtime()
        ex.wait()
        exposed[way].append(t1 - t0 + MPI.Wtime() - t2)

    t = interleaved(comm, {"exchange": lambda: halo.exchange(a), "compute": compute,
                           "compute+progress": lambda: compute(iprobe),
                           "exchange,compute": lambda: (halo.exchange(a), compute()),
                           "start,compute,wait": lambda: ovl(""),
                           "start,compute+progress,wait": lambda: ovl("+pr"),
                           "start,compute+test,wait": lambda: ovl("+test")}, reps, 10)
    seq = t["exchange,compute"]
    r = dict(case=f"{nd}-d {L}^{nd}", w=",".join(map(str, w)) if isinstance(w, list) else str(w),
             corners="yes" if corners else "no", t=t, executor=executor_of(halo),
             slabs=count, crossed=crossing(comm, halo.messages(), layout)[0])
    for tag, key in (("", "start,compute,wait"), ("+pr", "start,compute+progress,wait"),
                     ("+test", "start,compute+test,wait")):
        r["hidden" + tag] = (seq - t[key]) / t["exchange"]
        r["exposed" + tag] = comm.allreduce(float(np.median(exposed[tag])), op=MPI.MAX)
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="fewer sizes")
    parser.add_argument("--no-overlap", action="store_true", help="skip the overlap section")
    parser.add_argument("--only-overlap", action="store_true", help="only the overlap section")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    say = print if comm.rank == 0 else (lambda *a, **k: None)
    level = THREAD_LEVELS.get(MPI.Query_thread(), str(MPI.Query_thread()))
    layout = job_layout(comm)
    say(f"Halo exchange on {comm.size} ranks ({describe(layout)}), {MPI.Get_library_version().splitlines()[0].strip()}, "
        f"thread level {level}; float64, periodic; medians of {args.reps} interleaved repetitions, us per exchange "
        f"(slowest rank)")
    _, note = ghex_exchange(comm, None, None, 1, False)
    if note:
        say(f"note: {note}")
    if not args.only_overlap:
        node, why = node_of(comm, "reads neighbours' memory directly")
        if node is None:
            say(f"note: the one-copy floor rows are skipped: {why}")
        say(f"\n{'case':<11} {'grid':<6} {'w':>2} {'corners':>7} {'dm':>9} {'dm-split':>9} {'hand':>9} "
            f"{'best peer':>9} {'ratio':>6} {'floor':>9} {'dm/floor':>8} {'best forced':>11} {'auto/bf':>7} "
            f"{'iqr':>5} {'r(min)':>6} {'same':>5} {'x-node':>6}  executor (rank 0)")
        rows = []
        for nd, L in (QUICK if args.quick else CASES):
            for w in (1, 2):
                for corners in (False, True):
                    r = case_row(comm, layout, node, nd, L, w, corners, args.reps)
                    rows.append(r)
                    t = r["t"]
                    floor = (f"{r['floor'] * 1e6:9.1f} {r['dm_floor']:8.2f}" if "floor" in r else f"{'-':>9} {'-':>8}")
                    forced = (f"{r['best_forced']:>11} {r['auto_forced']:7.2f}" if "best_forced" in r
                              else f"{'-':>11} {'-':>7}")
                    say(f"{r['case']:<11} {r['grid']:<6} {r['w']:>2} {r['corners']:>7} {t['dm'] * 1e6:9.1f} "
                        f"{t['dm-split'] * 1e6:9.1f} {t['hand'] * 1e6:9.1f} {r['best']:>9} {r['ratio']:6.2f} "
                        f"{floor} {forced} {r['spread']:5.0%} {r['ratio_min']:6.2f} "
                        f"{'yes' if r['ok'] else 'NO':>5} {r['crossed']:>6}  {r['executor']}")
                    for e, why in r["skipped"].items():
                        say(f"    forced executor {e} skipped for this case: {why}")
                    sys.stdout.flush()
        say(f"worst ratio datamotion / best peer: {max(r['ratio'] for r in rows):.2f} (target <= 1.0)")
        say("\nPer case: the one-copy floor's two synchronisations and what it copies; every forced executor "
            "(us, describe() on rank 0); auto against the fastest of them")
        for r in rows:
            head = f"{r['case']:<11} w={r['w']} corners={r['corners']:<3}"
            if "floor" in r:
                t = r["t"]
                say(f"{head}  floor: flags {t['floor flags'] * 1e6:.1f}, barrier {t['floor barrier'] * 1e6:.1f} "
                    f"(took {r['floor_way']}); {r['floor_how']}")
                head = " " * len(head)
            if r["forced"]:
                say(f"{head}  " + ", ".join(f"{e} {us * 1e6:.1f} [{how}]" for e, (us, how) in r["forced"].items())
                    + f"; auto / best forced ({r['best_forced']}): {r['auto_forced']:.2f}x")
        if node is not None:
            lo = min(rows, key=lambda r: r["dm_floor"])
            hi = max(rows, key=lambda r: r["dm_floor"])
            say(f"dm / one-copy floor: {lo['dm_floor']:.2f} ({lo['case']} w={lo['w']} corners={lo['corners']}) "
                f"to {hi['dm_floor']:.2f} ({hi['case']} w={hi['w']} corners={hi['corners']})")
            node.Free()
        with_forced = [r for r in rows if "best_forced" in r]
        if with_forced:
            hi = max(with_forced, key=lambda r: r["auto_forced"])
            say(f"worst auto / best forced: {hi['auto_forced']:.2f} ({hi['case']} w={hi['w']} "
                f"corners={hi['corners']}, best forced {hi['best_forced']})")
    if not args.no_overlap:
        say("\nOverlap: a stencil on slabs of the interior (about twice the exchange) with the exchange; us per step.")
        say("hidden = (exchange,compute - start,compute,wait) / exchange; exposed = time in start() and wait() "
            "in the overlapped step; '+pr': the compute calls MPI_Iprobe after every slab (MPI progress); "
            "'+test': it calls the Exchange's test() after every slab (advances and unpacks this exchange)")
        say(f"{'case':<11} {'w':>5} {'corners':>7} {'slabs':>5} {'exchange':>8} {'compute':>8} {'ex,comp':>8} "
            f"{'overlap':>8} {'exposed':>7} {'hidden':>6} | {'comp+pr':>8} {'ovl+pr':>8} {'exposed':>7} {'hidden':>6}"
            f" | {'ovl+test':>8} {'exposed':>7} {'hidden':>6} {'x-node':>6}  executor")
        # The last row has ghosts along the split axis only: no local copies, messages alone.
        for nd, L, w, corners in [(2, 512, 1, False), (3, 64, 1, False), (3, 64, 1, True), (3, 128, 1, False),
                                  (3, 128, [1, 0, 0], False)]:
            r = overlap(comm, layout, nd, L, w, corners, args.reps)
            t = r["t"]
            say(f"{r['case']:<11} {r['w']:>5} {r['corners']:>7} {r['slabs']:>5} {t['exchange'] * 1e6:8.1f} "
                f"{t['compute'] * 1e6:8.1f} {t['exchange,compute'] * 1e6:8.1f} {t['start,compute,wait'] * 1e6:8.1f} "
                f"{r['exposed'] * 1e6:7.1f} {r['hidden']:6.0%} | {t['compute+progress'] * 1e6:8.1f} "
                f"{t['start,compute+progress,wait'] * 1e6:8.1f} {r['exposed+pr'] * 1e6:7.1f} {r['hidden+pr']:6.0%}"
                f" | {t['start,compute+test,wait'] * 1e6:8.1f} {r['exposed+test'] * 1e6:7.1f} {r['hidden+test']:6.0%}"
                f" {r['crossed']:>6}  {r['executor']}")
            sys.stdout.flush()

if __name__ == "__main__":
    main()
