"""Halo exchange: datamotion against a hand-written mpi4py exchange (and GHEX).

    mpiexec -n 2 python benchmarks/halo_vs_peers.py [--reps 21] [--quick] [--no-overlap]

Where ranks (or other work) outnumber the cores, busy-polling ranks lose whole time
slices and every method measures the scheduler; MPICH's
MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
makes waiting ranks yield instead (compare rows of one run only).

Per case (2-d local extents 8^2, 64^2, 512^2; 3-d 8^3, 32^3, 64^3; ghost width 1
and 2; faces only and with corners; float64; periodic on every axis), side by side
in one run, the rows interleaved repetition by repetition:

  dm         datamotion Halo.exchange (blocking), plan set up once;
  dm-split   datamotion Halo.start() then .wait();
  hand       what a Python user writes: one NumPy buffer per neighbour rank, the
             pieces packed into it with NumPy, Irecv/Isend/Waitall, unpacked; ghosts
             whose source is this rank itself are copied directly;
  ghex       GHEX's Python package, when importable (a note otherwise).

Every method's ghosts are checked against datamotion's once before timing. Times
are the slowest rank's, per exchange, medians over repetitions; "ratio" is the
faster datamotion row over the best peer (target <= 1.0); "iqr" the largest
interquartile range over the median of the row's methods; "r(min)" the ratio of
the fastest repetitions, a check that a loaded machine did not make the ratio. The executor column is
what the plan's describe() reports on rank 0: messages sent (direct/packed/datatype)
and local copies.

The overlap section times a stencil loop: exchange then compute on the interior,
against start() / compute on the interior / wait(), with the compute longer than
the exchange, and prints the fraction of the exchange time hidden; with and
without the compute calling MPI progress (an Iprobe) between slabs.
"""

import argparse
import itertools
import re
import sys

import mpi4py

mpi4py.rc.thread_level = "single"  # measured at MPI_THREAD_SINGLE

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import datamotion as dm  # noqa: E402

CASES = [(2, 8), (2, 64), (2, 512), (3, 8), (3, 32), (3, 64)]
QUICK = [(2, 8), (2, 512), (3, 8), (3, 64)]
THREAD_LEVELS = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                 MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}


class HandHalo:
    """Ghost exchange as a Python user writes it: per neighbour rank one send and one
    receive buffer; the pieces are NumPy views into them, packed and unpacked with
    NumPy; one Irecv and one Isend per neighbour rank."""

    def __init__(self, comm, grid, u, w, corners):
        n, nd, me = [s - 2 * w for s in u.shape], u.ndim, comm.rank
        inner = lambda d: tuple(slice(w, 2 * w) if x < 0 else slice(m, m + w) if x > 0 else slice(w, w + m)
                                for x, m in zip(d, n))
        ghost = lambda d: tuple(slice(0, w) if x < 0 else slice(m + w, m + 2 * w) if x > 0 else slice(w, w + m)
                                for x, m in zip(d, n))
        nbr = lambda d: grid.rank_of([(c + x) % p for c, x, p in zip(grid.coords, d, grid.dims)])
        dirs = [d for d in itertools.product((-1, 0, 1), repeat=nd) if any(d) and (corners or sum(map(abs, d)) == 1)]
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
    as direct/packed/datatype, then local copies."""
    text = plan.describe()
    head = re.search(r"executor (\w+)", text).group(1)
    send = re.search(r"send: (\d+) messages.*?; (\d+) direct, (\d+) packed, (\d+) datatype", text)
    local = re.search(r"local: (\d+) copies", text)
    parts = []
    if send and int(send.group(1)):
        kinds = [f"{send.group(k)}{name}" for k, name in ((2, "dir"), (3, "pack"), (4, "dt")) if int(send.group(k))]
        parts.append(f"{send.group(1)}msg " + "+".join(kinds))
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


def case_row(comm, nd, L, w, corners, reps):
    grid, a = setup(comm, nd, L, w, corners)
    halo = dm.Halo(a, corners=corners)
    u = a.local_with_ghosts.copy()
    hand = HandHalo(comm, grid, u, w, corners)
    g, note = ghex_exchange(comm, grid, u, w, corners)
    # Same ghosts: one exchange each from the same start.
    halo.exchange(a)
    hand.exchange()
    ok = comm.allreduce(bool(np.array_equal(u, a.local_with_ghosts)), op=MPI.LAND)
    split = lambda: halo.start(a).wait()
    methods = {"dm": lambda: halo.exchange(a), "dm-split": split, "hand": hand.exchange}
    if g is not None:
        methods["ghex"] = g
    inner = comm.bcast(repeats_for(comm, hand.exchange))
    spread = {}
    t = interleaved(comm, methods, reps, inner, spread)
    peers = {k: v for k, v in t.items() if not k.startswith("dm")}
    best = min(peers, key=peers.get)
    ratio = min(t["dm"], t["dm-split"]) / peers[best]
    fastest = {k: spread.pop(k + " min") for k in methods}
    ratio_min = min(fastest["dm"], fastest["dm-split"]) / min(v for k, v in fastest.items() if not k.startswith("dm"))
    return dict(case=f"{nd}-d {L}^{nd}", w=w, corners="yes" if corners else "no", t=t, best=best, ratio=ratio,
                ratio_min=ratio_min, ok=ok, spread=max(spread.values()), executor=executor_of(halo), grid="x".join(map(str, grid.dims)),
                note=note)


def overlap(comm, nd, L, w, corners, reps):
    """Stencil loop: exchange then compute, against start / compute / wait. The
    compute updates slabs of the interior (1 plane in 3-d, 4 rows in 2-d) that read
    no ghost, as many as take about twice the exchange."""
    grid, a = setup(comm, nd, L, w, corners)
    halo = dm.Halo(a, corners=corners)
    x = a.local
    out = np.empty_like(x)
    thick = 1 if nd == 3 else 4
    slabs = list(range(1, x.shape[0] - 1 - thick + 1, thick))

    def slab(i0, progress):
        i1 = i0 + thick
        core = (slice(1, -1),) * (nd - 1)
        acc = x[(slice(i0 - 1, i1 - 1),) + core] + x[(slice(i0 + 1, i1 + 1),) + core]
        for ax in range(1, nd):
            lo = tuple(slice(i0, i1) if b == 0 else slice(0, -2) if b == ax else slice(1, -1) for b in range(nd))
            hi = tuple(slice(i0, i1) if b == 0 else slice(2, None) if b == ax else slice(1, -1) for b in range(nd))
            acc += x[lo] + x[hi]
        out[(slice(i0, i1),) + core] = acc * (1.0 / (2 * nd))
        if progress:
            comm.Iprobe(MPI.ANY_SOURCE, 32767)  # drives MPI progress; matches nothing

    t_x = interleaved(comm, {"x": lambda: halo.exchange(a)}, reps, 20)["x"]
    t_slab = interleaved(comm, {"s": lambda: [slab(i, False) for i in slabs]}, 5, 2)["s"] / len(slabs)
    count = comm.bcast(max(4, int(np.ceil(2.0 * t_x / t_slab))))  # compute about twice the exchange
    exposed = {False: [], True: []}  # time in start() and wait() of the overlapped steps

    def compute(progress=False):
        for k in range(count):
            slab(slabs[k % len(slabs)], progress)

    def ovl(progress):
        t0 = MPI.Wtime()
        ex = halo.start(a)
        t1 = MPI.Wtime()
        compute(progress)
        t2 = MPI.Wtime()
        ex.wait()
        exposed[progress].append(t1 - t0 + MPI.Wtime() - t2)

    t = interleaved(comm, {"exchange": lambda: halo.exchange(a), "compute": compute,
                           "compute+progress": lambda: compute(True),
                           "exchange,compute": lambda: (halo.exchange(a), compute()),
                           "start,compute,wait": lambda: ovl(False),
                           "start,compute+progress,wait": lambda: ovl(True)}, reps, 10)
    seq = t["exchange,compute"]
    r = dict(case=f"{nd}-d {L}^{nd}", w=",".join(map(str, w)) if isinstance(w, list) else str(w),
             corners="yes" if corners else "no", t=t, executor=executor_of(halo),
             slabs=count)
    for progress, key in ((False, "start,compute,wait"), (True, "start,compute+progress,wait")):
        tag = "+pr" if progress else ""
        r["hidden" + tag] = (seq - t[key]) / t["exchange"]
        r["exposed" + tag] = comm.allreduce(float(np.median(exposed[progress])), op=MPI.MAX)
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
    say(f"Halo exchange on {comm.size} ranks, {MPI.Get_library_version().splitlines()[0].strip()}, "
        f"thread level {level}; float64, periodic; medians of {args.reps} interleaved repetitions, us per exchange "
        f"(slowest rank)")
    _, note = ghex_exchange(comm, None, None, 1, False)
    if note:
        say(f"note: {note}")
    if not args.only_overlap:
        say(f"\n{'case':<11} {'grid':<6} {'w':>2} {'corners':>7} {'dm':>9} {'dm-split':>9} {'hand':>9} "
            f"{'best peer':>9} {'ratio':>6} {'iqr':>5} {'r(min)':>6} {'same':>5}  executor (rank 0)")
        worst = 0.0
        for nd, L in (QUICK if args.quick else CASES):
            for w in (1, 2):
                for corners in (False, True):
                    r = case_row(comm, nd, L, w, corners, args.reps)
                    t = r["t"]
                    worst = max(worst, r["ratio"])
                    say(f"{r['case']:<11} {r['grid']:<6} {r['w']:>2} {r['corners']:>7} {t['dm'] * 1e6:9.1f} "
                        f"{t['dm-split'] * 1e6:9.1f} {t['hand'] * 1e6:9.1f} {r['best']:>9} {r['ratio']:6.2f} "
                        f"{r['spread']:5.0%} {r['ratio_min']:6.2f} "
                        f"{'yes' if r['ok'] else 'NO':>5}  {r['executor']}")
                    sys.stdout.flush()
        say(f"worst ratio datamotion / best peer: {worst:.2f} (target <= 1.0)")
    if not args.no_overlap:
        say("\nOverlap: a stencil on slabs of the interior (about twice the exchange) with the exchange; us per step.")
        say("hidden = (exchange,compute - start,compute,wait) / exchange; exposed = time in start() and wait() "
            "in the overlapped step; '+pr': the compute calls MPI_Iprobe after every slab (MPI progress)")
        say(f"{'case':<11} {'w':>5} {'corners':>7} {'slabs':>5} {'exchange':>8} {'compute':>8} {'ex,comp':>8} "
            f"{'overlap':>8} {'exposed':>7} {'hidden':>6} | {'comp+pr':>8} {'ovl+pr':>8} {'exposed':>7} {'hidden':>6}"
            f"  executor")
        # The last row has ghosts along the split axis only: no local copies, messages alone.
        for nd, L, w, corners in [(2, 512, 1, False), (3, 64, 1, False), (3, 64, 1, True), (3, 128, 1, False),
                                  (3, 128, [1, 0, 0], False)]:
            r = overlap(comm, nd, L, w, corners, args.reps)
            t = r["t"]
            say(f"{r['case']:<11} {r['w']:>5} {r['corners']:>7} {r['slabs']:>5} {t['exchange'] * 1e6:8.1f} "
                f"{t['compute'] * 1e6:8.1f} {t['exchange,compute'] * 1e6:8.1f} {t['start,compute,wait'] * 1e6:8.1f} "
                f"{r['exposed'] * 1e6:7.1f} {r['hidden']:6.0%} | {t['compute+progress'] * 1e6:8.1f} "
                f"{t['start,compute+progress,wait'] * 1e6:8.1f} {r['exposed+pr'] * 1e6:7.1f} {r['hidden+pr']:6.0%}"
                f"  {r['executor']}")
            sys.stdout.flush()

if __name__ == "__main__":
    main()
