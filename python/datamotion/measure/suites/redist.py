"""Walker and Otto's block-cyclic redistribution experiments (Concurrency: Practice
and Experience, 1996): the block size of a 1-d array expanded from r to K r.

- ``redist_expand`` (Figures 11(c), 11(d) and 12): the time of the expansion
  against K, for P = 1 .. size (the first P ranks), with the paper's volume: 800
  blocks of r = 4 int32 per process (its Table 1 caption). Four variants move the
  same data, interleaved in every repetition, each checked first against a NumPy
  oracle and against datamotion's :class:`~datamotion.RedistPlan`:

  ``sendrecv``   the paper's Figure 10, literally: K phases, in each one
                 ``MPI_Sendrecv`` to and from the partners of the optimal schedule,
                 one derived datatype per side picking the block of every superblock;
  ``rsend``      the unsynchronised algorithm in ready mode (Section 2.2.1): the K
                 receives posted, a barrier, then K ``MPI_Rsend``;
  ``irecv``      the synchronised nonblocking-receive algorithm (Figure 4) with the
                 optimal schedule, the algorithm of Figures 11(c) and 12(c): per phase
                 post the receive, send, wait;
  ``datamotion`` ``RedistPlan`` with its automatic method;

  and the self-describing algorithms of Section 2.2.1, every message carrying its
  global block index and received from ``MPI_ANY_SOURCE``:

  ``simple_sync``    Figure 4 (post one receive, send, wait, per phase) with the
                     simple schedule B(k, p) = k P + p: Figures 11(a), 12(a);
  ``simple_unsync``  Figure 5 (all K receives posted, K sends, K waits): 11(a);
  ``random_sync``    Figure 4 with each process's blocks in random order: 11(b), 12(b).
- ``redist_collectives`` (Table 1): ``MPI_Bcast`` of the 3200 integers a process
  holds and ``MPI_Alltoall`` of floor(3200 / P) integers per pair, at each P.
- ``redist_schedules`` (Figures 6, 8 and 9): the optimal send schedule of the
  reduced system K' = 3, P' = 4 and the send and receive schedules of P = 16,
  K = 12, as datamotion builds them (no timing).
- ``redist_fig7b`` (Figure 7): the permutation blocks of the two (alpha, beta)
  layouts for P = 16, K = 12, B' = 0, and the ``sendrecv`` expansion by K = 12
  with each layout's full schedule at P = size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np
from mpi4py import MPI
from mpi4py.util.dtlib import from_numpy_dtype

from ...array import DistArray
from ...layout import BlockCyclic, ProcessGrid
from ...redist import RedistPlan, Schedule, optimal_schedule, random_schedule, simple_schedule
from ..stats import adaptive, summarize

BLOCKS_PER_RANK = 800
"""Blocks of r elements each process holds before the expansion (Table 1's caption)."""
R = 4
"""The block size before the expansion (Table 1's caption)."""
DTYPE = np.int32
"""The paper redistributes integers."""
KS = (2, 3, 4, 6, 8, 12, 16, 20)
KS_QUICK = (2, 5, 12, 20)
"""Expansion factors K: Table 1 quotes K = 2 and K = 20, Figures 11 and 12 draw 2 .. 20."""
SELF_DESCRIBING = ("simple_sync", "simple_unsync", "random_sync")
"""The variants of Figures 11(a) and 11(b): messages that carry their block index."""
VARIANTS = ("sendrecv", "rsend", "irecv", "datamotion") + SELF_DESCRIBING
RANDOM_SEED = 1996
SCHEDULES = {"fig6": {"P": 4, "K": 3}, "fig8_fig9": {"P": 16, "K": 12}}
"""Figure 6: the reduced system K' = 3, P' = 4; Figures 8 and 9: P = 16, K = 12."""
LAYOUTS = ("a", "b")
"""Figure 7's two layouts of (alpha, beta) in a permutation block."""
FIG7 = {"P": 16, "K": 12, "Bprime": 0}
"""Figure 7's right-hand panels: the permutation blocks for P = 16, K = 12, B' = 0."""
FIG7_TIMED_K = 12


# ---------------------------------------------------------------------------
# Schedules (Section 2.2.2), local
# ---------------------------------------------------------------------------


def layout_beta(layout: str, alpha: int, gamma: int, g: int) -> int:
    """beta of the permutation block's cell in row gamma = k mod g, column alpha = p mod g.
    Layout (a) is Eq. 10, beta = (alpha - gamma) mod g; the text does not spell out
    layout (b), taken here as the other circulant, beta = (alpha + gamma) mod g.
    Both keep the paper's two restrictions (alpha is the column; every beta once per
    row), and for g <= 2 they coincide."""
    if layout == "a":
        return (alpha - gamma) % g
    if layout == "b":
        return (alpha + gamma) % g
    raise ValueError(f"unknown permutation block layout {layout!r}; choose from {LAYOUTS}")


def reduced_block(kp: int, pp: int, Kr: int, Pr: int) -> int:
    """B' of the reduced system (Eq. 7): the unique B' in [0, P'K') with B' = k' mod K'
    and B' = p' mod P' (K' and P' relatively prime)."""
    return next(B for B in range(kp, Pr * Kr, Kr) if B % Pr == pp)


def permutation_block(P: int, K: int, Bprime: int, layout: str) -> List[List[int]]:
    """The g x g permutation block of global block indices B = g B' + P K' beta + alpha
    (Eq. 8) for one entry B' of the reduced schedule, rows gamma, columns alpha."""
    g = math.gcd(P, K)
    return [[g * Bprime + P * (K // g) * layout_beta(layout, alpha, gamma, g) + alpha for alpha in range(g)]
            for gamma in range(g)]


def paper_schedule(P: int, K: int, layout: str = "a") -> Schedule:
    """Local. The optimal send schedule built as Section 2.2.2 builds it (reduced system,
    Eq. 7; permutation blocks in ``layout``, Eq. 8), and its receive schedule found by
    inverting it. Raises ValueError if a phase is not a permutation of the processes."""
    if P < 1 or K < 1:
        raise ValueError(f"P and K must be at least 1, got P={P}, K={K}")
    g = math.gcd(P, K)
    Pr, Kr = P // g, K // g
    send_block = np.empty((K, P), dtype=np.int64)
    for k in range(K):
        for p in range(P):
            beta = layout_beta(layout, p % g, k % g, g)
            send_block[k, p] = g * reduced_block(k // g, p // g, Kr, Pr) + P * Kr * beta + p % g
    send_proc = (send_block // K) % P
    recv_block = np.empty_like(send_block)
    recv_proc = np.empty_like(send_block)
    for k in range(K):
        if sorted(send_proc[k]) != list(range(P)):
            raise ValueError(f"layout {layout!r}, P={P}, K={K}: phase {k} is not a permutation")
        recv_proc[k, send_proc[k]] = np.arange(P)
        recv_block[k, send_proc[k]] = send_block[k]
    return Schedule(send_block, send_proc, send_block // P, recv_block, recv_proc, recv_block % K)


# ---------------------------------------------------------------------------
# The K-phase algorithms in mpi4py
# ---------------------------------------------------------------------------


@dataclass
class _Phase:
    dest: int
    send: list  # [buffer-less count, datatype]: count 0 when this phase sends nothing
    source: int
    recv: list


class KPhaseExpansion:
    """Collective on comm. Walker and Otto's K-phase expansion of the block size of
    ``n`` elements of ``dtype``, block-cyclic over ``comm``, from r to K r, set up once.

    In phase k process p sends its local block b(k, p) of every superblock (P K blocks)
    to q(k, p), and receives into slot t(k, p) of every expanded block from p(k, p).
    Each side of a phase is one derived datatype over the local storage (the paper's
    ``newtype``); an incomplete last superblock is handled by leaving out, or
    shortening, the blocks past the end of the array, the same ones on both sides.
    The local storages are those of :class:`~datamotion.DistArray` with
    ``BlockCyclic(r)`` and ``BlockCyclic(K r)`` on a 1-d grid over ``comm``.
    Call :meth:`free` when done.
    """

    def __init__(self, comm: MPI.Comm, n: int, r: int, K: int, dtype=DTYPE, schedule: Optional[Schedule] = None):
        P, p = comm.size, comm.rank
        self.comm, self.K = comm, K
        sched = schedule if schedule is not None else optimal_schedule(P, K)
        base = from_numpy_dtype(np.dtype(dtype))
        superblocks = -(-n // (P * K * r))
        self._types: List[MPI.Datatype] = []
        self.phases: List[_Phase] = []
        self.elements_sent = 0  # to other processes

        def side(first_block: int, local_start: Callable[[int], int]) -> list:
            """[count, datatype] of the r-element pieces of global block
            j P K + first_block, j = 0, 1, ..., that lie in the array."""
            starts, lengths = [], []
            for j in range(superblocks):
                m0 = ((j * P * K) + first_block) * r
                if m0 < n:
                    starts.append(local_start(j))
                    lengths.append(min(r, n - m0))
            if not starts:
                return [0, base]
            t = base.Create_indexed(lengths, starts).Commit()
            self._types.append(t)
            return [1, t]

        for k in range(K):
            b, t = int(sched.send_local[k, p]), int(sched.recv_slot[k, p])
            send = side(int(sched.send_block[k, p]), lambda j: (j * K + b) * r)
            recv = side(int(sched.recv_block[k, p]), lambda j: (j * K + t) * r)
            dest = int(sched.send_proc[k, p])
            self.phases.append(_Phase(dest, send, int(sched.recv_proc[k, p]), recv))
            if dest != p and send[0]:
                self.elements_sent += send[1].Get_size() // base.Get_size()

    def sendrecv(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Collective. Figure 10: one MPI_Sendrecv per phase."""
        for k, ph in enumerate(self.phases):
            self.comm.Sendrecv([src] + ph.send, ph.dest, k, [dst] + ph.recv, ph.source, k)

    def rsend(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Collective. Every receive posted, a barrier (so every receive is posted before
        any send starts, as ready mode requires), then a ready-mode send per phase."""
        requests = [self.comm.Irecv([dst] + ph.recv, ph.source, k) for k, ph in enumerate(self.phases)]
        self.comm.Barrier()
        for k, ph in enumerate(self.phases):
            self.comm.Rsend([src] + ph.send, ph.dest, k)
        MPI.Request.Waitall(requests)

    def irecv(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Collective. Figure 4's synchronised phases with the optimal schedule: post the
        receive, send, wait, phase after phase (the sources come from the receive
        schedule, so no block index travels with the data)."""
        for k, ph in enumerate(self.phases):
            request = self.comm.Irecv([dst] + ph.recv, ph.source, k)
            self.comm.Send([src] + ph.send, ph.dest, k)
            request.Wait()

    def free(self) -> None:
        for t in self._types:
            t.Free()
        self._types = []


def _block_positions(n: int, P: int, K: int, r: int, first_block: int, local_start: Callable[[int], int]):
    """Local storage positions of the r-element pieces of global block j P K +
    first_block, j = 0, 1, ..., that lie in the array (local_start(j): where the piece
    of superblock j starts)."""
    out = []
    for j in range(-(-n // (P * K * r))):
        m0 = ((j * P * K) + first_block) * r
        if m0 < n:
            start = local_start(j)
            out.extend(range(start, start + min(r, n - m0)))
    return np.array(out, dtype=np.int64)


class SelfDescribingExpansion:
    """Collective on comm. Section 2.2.1's expansion by K with wildcard receives: in
    phase k process p sends its local block b(k, p) of every superblock to q(k, p),
    the global block index B(k, p) first in the message (the paper packs it with
    MPI_PACK; here it is the first element of the same buffer), and stores what it
    receives, from any source, into the slot that index names. Only the send
    schedule is needed: the simple and random ones have no receive schedule."""

    TAG = 7

    def __init__(self, comm: MPI.Comm, n: int, r: int, K: int, schedule: Schedule, dtype=DTYPE):
        P, p = comm.size, comm.rank
        self.comm, self.K = comm, K
        self.sends = []
        for k in range(K):
            b, B = int(schedule.send_local[k, p]), int(schedule.send_block[k, p])
            take = _block_positions(n, P, K, r, B, lambda j: (j * K + b) * r)
            message = np.empty(1 + len(take), dtype)
            message[0] = B
            self.sends.append((int(schedule.send_proc[k, p]), take, message))
        # Process p receives the global blocks K p .. K p + K - 1 of each superblock, block B into slot B mod K.
        self.slots = {B: _block_positions(n, P, K, r, B, lambda j, t=B % K: (j * K + t) * r)
                      for B in range(K * p, K * p + K)}
        longest = max([len(t) for t in self.slots.values()] + [len(t) for _, t, _ in self.sends] + [0])
        self.inbox = [np.empty(1 + longest, dtype) for _ in range(K)]

    def _send(self, k: int, src: np.ndarray) -> MPI.Request:
        dest, take, message = self.sends[k]
        np.take(src, take, out=message[1:])
        return self.comm.Isend(message, dest, self.TAG)

    def _store(self, message: np.ndarray, dst: np.ndarray) -> None:
        where = self.slots[int(message[0])]
        dst[where] = message[1:1 + len(where)]

    def synchronized(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Collective. Figure 4: per phase post one receive, send, wait for both."""
        for k in range(self.K):
            request = self.comm.Irecv(self.inbox[0], MPI.ANY_SOURCE, self.TAG)
            sent = self._send(k, src)
            request.Wait()
            self._store(self.inbox[0], dst)
            sent.Wait()

    def unsynchronized(self, src: np.ndarray, dst: np.ndarray) -> None:
        """Collective. Figure 5: post every receive, send every block, store each
        message as it completes."""
        requests = [self.comm.Irecv(box, MPI.ANY_SOURCE, self.TAG) for box in self.inbox]
        sent = [self._send(k, src) for k in range(self.K)]
        for _ in range(self.K):
            self._store(self.inbox[MPI.Request.Waitany(requests)], dst)
        MPI.Request.Waitall(sent)


def self_describing_runs(comm: MPI.Comm, n: int, r: int, K: int, names: Sequence[str], src, dst):
    """Collective. variant -> zero-argument function for the SELF_DESCRIBING ``names``."""
    P = comm.size
    schedules = {"simple": simple_schedule(P, K), "random": random_schedule(P, K, RANDOM_SEED)}
    runs = {}
    for name in names:
        kind, mode = name.split("_")
        expansion = SelfDescribingExpansion(comm, n, r, K, schedules[kind])
        method = expansion.synchronized if mode == "sync" else expansion.unsynchronized
        runs[name] = lambda method=method: method(src.local, dst.local)
    return runs


# ---------------------------------------------------------------------------
# Checks and timing
# ---------------------------------------------------------------------------


def owned(n: int, block: int, P: int, p: int) -> np.ndarray:
    """Local. The NumPy oracle: global indices process p holds under BlockCyclic(block)
    over P processes, in local storage order."""
    m = np.arange(n, dtype=np.int64)
    return m[(m // block) % P == p]


def expansion_arrays(comm: MPI.Comm, n: int, r: int, K: int):
    """Collective. (grid, source array holding its global indices, zeroed destination)."""
    grid = ProcessGrid(comm=comm, dims=[comm.size], order="send")  # grid coordinate = rank, as in the paper
    src = DistArray.zeros(grid, (n,), DTYPE, dist=BlockCyclic(r))
    src.local[...] = owned(n, r, comm.size, comm.rank).astype(DTYPE)
    dst = DistArray.zeros(grid, (n,), DTYPE, dist=BlockCyclic(K * r))
    return grid, src, dst


def checked_runs(comm: MPI.Comm, n: int, r: int, K: int, variants: Sequence[str],
                 schedule: Optional[Schedule] = None):
    """Collective. (runs: variant -> zero-argument function, expansion, plan), every
    variant run once and its result compared with the NumPy oracle and with
    datamotion's RedistPlan; raises RuntimeError on every rank if one differs."""
    _, src, dst = expansion_arrays(comm, n, r, K)
    plan = RedistPlan(src, dst)
    plan.execute(src, dst)
    reference = dst.local.copy()
    expected = owned(n, K * r, comm.size, comm.rank).astype(DTYPE)
    expansion = KPhaseExpansion(comm, n, r, K, DTYPE, schedule)
    runs: Dict[str, Callable[[], None]] = self_describing_runs(
        comm, n, r, K, [v for v in variants if v in SELF_DESCRIBING], src, dst)
    for name in variants:
        if name in SELF_DESCRIBING:
            continue
        if name == "datamotion":
            runs[name] = lambda: plan.execute(src, dst)
        else:
            method = getattr(expansion, name)
            runs[name] = lambda method=method: method(src.local, dst.local)
    problems = []
    if not np.array_equal(reference, expected):
        problems.append("datamotion's RedistPlan differs from the NumPy oracle")
    for name, run in runs.items():
        dst.local[...] = -1
        comm.Barrier()  # wildcard receives must not take the previous variant's messages
        run()
        if not np.array_equal(dst.local, expected):
            problems.append(f"{name} differs from the NumPy oracle and from RedistPlan")
    reports = comm.allgather(problems)
    bad = [f"rank {rank}: {'; '.join(msgs)}" for rank, msgs in enumerate(reports) if msgs]
    if bad:
        expansion.free()
        raise RuntimeError(f"redistribution r={r} -> {K * r} of {n} elements on {comm.size} ranks: " + "; ".join(bad))
    return runs, expansion, plan


def interleaved(comm: MPI.Comm, runs: Dict[str, Callable[[], None]], quick: bool) -> Dict[str, List[float]]:
    """Collective. Samples (the slowest rank's seconds, each run started after a
    barrier) of every run, taken in turn within every repetition so that drift
    touches them alike; repeated by stats.adaptive on the round's total."""
    samples: Dict[str, List[float]] = {name: [] for name in runs}

    def measure(batch: int) -> List[float]:
        local = np.zeros((len(runs), batch))
        for i in range(batch):
            for v, run in enumerate(runs.values()):
                comm.Barrier()
                t0 = MPI.Wtime()
                run()
                local[v, i] = MPI.Wtime() - t0
        slowest = np.empty_like(local)
        comm.Allreduce(local, slowest, op=MPI.MAX)
        for v, name in enumerate(runs):
            samples[name] += slowest[v].tolist()
        return slowest.sum(axis=0).tolist()

    adaptive(comm, measure, quick)
    return samples


# ---------------------------------------------------------------------------
# The experiments
# ---------------------------------------------------------------------------


def _expand_rows(sub: MPI.Comm, Ks: Sequence[int], quick: bool, progress) -> List[dict]:
    P, n, itemsize = sub.size, BLOCKS_PER_RANK * R * sub.size, np.dtype(DTYPE).itemsize
    rows = []
    for K in Ks:
        runs, expansion, plan = checked_runs(sub, n, R, K, VARIANTS)
        try:
            samples = interleaved(sub, runs, quick)
            moved = sub.allreduce(expansion.elements_sent) * itemsize
        finally:
            expansion.free()
        if sub.rank == 0:
            for name in VARIANTS:
                row = {"variant": name, "ranks": P, "K": K, "r": R, "s": K * R, "elements": n,
                       "bytes": moved, "bytes_per_rank": BLOCKS_PER_RANK * R * itemsize, "phases": K}
                if name == "datamotion":
                    row.update(method=plan.method, phases=plan.volume()["phases"])
                rows.append({**row, **summarize(samples[name])})
        if progress:
            progress()
    return rows


def _collective_rows(sub: MPI.Comm, quick: bool) -> List[dict]:
    P, count = sub.size, BLOCKS_PER_RANK * R
    per_pair = count // P
    data = np.arange(count, dtype=DTYPE)
    send, recv = np.zeros(per_pair * P, DTYPE), np.zeros(per_pair * P, DTYPE)
    runs = {"bcast": lambda: sub.Bcast(data, root=0), "alltoall": lambda: sub.Alltoall(send, recv)}
    samples = interleaved(sub, runs, quick)
    itemsize = np.dtype(DTYPE).itemsize
    if sub.rank != 0:
        return []
    return [{"op": "bcast", "ranks": P, "bytes": count * itemsize, **summarize(samples["bcast"])},
            {"op": "alltoall", "ranks": P, "bytes": per_pair * itemsize, **summarize(samples["alltoall"])}]


def _fig7_entry(comm: MPI.Comm, quick: bool) -> Optional[dict]:
    P, K = comm.size, FIG7_TIMED_K
    n, itemsize = BLOCKS_PER_RANK * R * P, np.dtype(DTYPE).itemsize
    runs, moved = {}, 0
    expansions = []
    try:
        for layout in LAYOUTS:
            layout_runs, expansion, _ = checked_runs(comm, n, R, K, ("sendrecv",), paper_schedule(P, K, layout))
            expansions.append(expansion)
            runs[layout] = layout_runs["sendrecv"]
            moved = comm.allreduce(expansion.elements_sent) * itemsize
        samples = interleaved(comm, runs, quick)
    finally:
        for e in expansions:
            e.free()
    if comm.rank != 0:
        return None
    blocks = {layout: permutation_block(FIG7["P"], FIG7["K"], FIG7["Bprime"], layout) for layout in LAYOUTS}
    g = math.gcd(P, K)
    rows = [{"layout": layout, "variant": "sendrecv", "ranks": P, "K": K, "r": R, "s": K * R, "g": g,
             "elements": n, "bytes": moved, **summarize(samples[layout])} for layout in LAYOUTS]
    return {"kernel": "redist_fig7b", "params": {**FIG7, "permutation_blocks": blocks}, "rows": rows}


def schedules_entry() -> dict:
    """Local. Figures 6, 8 and 9's tables as datamotion's optimal_schedule builds them."""
    tables = {}
    for name, where in SCHEDULES.items():
        sched = optimal_schedule(where["P"], where["K"])
        tables[name] = {**where, **{field: getattr(sched, field).tolist() for field in
                                    ("send_block", "send_proc", "send_local", "recv_block", "recv_proc",
                                     "recv_slot")}}
    rows = [{"figure": name, "ranks": t["P"], "K": t["K"], "entries": t["P"] * t["K"]} for name, t in tables.items()]
    return {"kernel": "redist_schedules", "params": {"schedules": tables}, "rows": rows}


def run(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """Collective on comm. The experiments' result entries on rank 0, [] elsewhere.
    Every redistribution is checked before it is timed, ``validate`` or not."""
    Ks = KS_QUICK if quick else KS
    expand_rows: List[dict] = []
    collective_rows: List[dict] = []
    for P in range(1, comm.size + 1):
        sub = comm.Split(0 if comm.rank < P else MPI.UNDEFINED, comm.rank)
        if sub == MPI.COMM_NULL:
            continue
        try:
            expand_rows += _expand_rows(sub, Ks, quick, progress)
            collective_rows += _collective_rows(sub, quick)
        finally:
            sub.Free()
    fig7 = _fig7_entry(comm, quick)
    if comm.rank != 0:
        return []
    common = {"blocks_per_rank": BLOCKS_PER_RANK, "r": R, "dtype": np.dtype(DTYPE).name}
    return [{"kernel": "redist_expand", "params": {**common, "Ks": list(Ks), "variants": list(VARIANTS)},
             "rows": expand_rows},
            {"kernel": "redist_collectives", "params": common, "rows": collective_rows},
            fig7, schedules_entry()]
