"""``datamotion demo``: a tour of what the library does, run on every rank.

Rank 0 prints; every section is checked against NumPy and the demo fails
(exit code 1) if any check does.
"""

from __future__ import annotations

import os
import time

import numpy as np

from .. import vector as cv
from .._errors import Error
from .._mpi import MPI, _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ..array import DistArray
from ..measure.cores import shared_cores
from ..measure.nesl import linefit, select_kth
from ..measure.stats import time_collective
from ..launch import STDOUT_TERMINAL_VARIABLE
from ..layout import Block, BlockCyclic, Cyclic, ProcessGrid
from .._provenance import provenance
from ..redist import RedistPlan, optimal_schedule, redistribute
from ..shift import CShift, PShift


class _Demo:
    def __init__(self, comm: MPI.Comm):
        from rich.console import Console

        self.comm = comm
        # Where stdout is no terminal (a pipe or a file) Rich assumes 80 columns: lines
        # of text are then written whole (soft wrap) rather than broken mid-sentence,
        # without colour; rules and tables keep 80. A relaunched demo is told what the
        # command's own stdout is (its launcher's pipe or pseudo-terminal says nothing).
        told = os.environ.get(STDOUT_TERMINAL_VARIABLE)
        terminal = None if told not in ("0", "1") else told == "1"
        self.console = Console(highlight=False, force_terminal=terminal) if comm.rank == 0 else None
        self.soft_wrap = self.console is not None and not self.console.is_terminal
        self.failures = 0
        self.sharing = shared_cores(comm)  # collective; None on a machine with a core per rank

    def say(self, *parts) -> None:
        if self.console:
            self.console.print(*parts, soft_wrap=self.soft_wrap)

    def times(self, *lines: str) -> None:
        """Lines that show measured times, with the conditions they were measured in."""
        for line in lines:
            self.say(line)
        if self.sharing:
            self.say(f"  [yellow]({self.sharing})[/]")

    def section(self, title: str) -> None:
        if self.console:
            self.console.rule(f"[bold]{title}")

    def check(self, ok: bool, what: str) -> None:
        ok = self.comm.allreduce(bool(ok), op=MPI.LAND)
        self.failures += not ok
        self.say(f"  [{'green' if ok else 'red'}]{'ok' if ok else 'FAILED'}[/] {what}")


def _order_table(dims, order_code) -> list:
    ranks = _core.rank_assignment(list(dims), order_code)
    return [ranks[r * dims[1]:(r + 1) * dims[1]] for r in range(dims[0])]


def _grids(d: _Demo) -> None:
    d.section("Process grids: which rank sits at which coordinate")
    d.say("A 4 x 4 grid in the three rank orders (entry = rank at that coordinate):")
    from rich.columns import Columns
    from rich.table import Table

    tables = []
    for name, code in (("send (row-major)", 0), ("news (Gray code)", 1), ("shuffle (bit interleave)", 2)):
        t = Table(title=name, show_header=False)
        for row in _order_table((4, 4), code):
            t.add_row(*(f"{r:2d} [dim]{r:04b}[/]" for r in row))
        tables.append(t)
    if d.console:
        d.console.print(Columns(tables))
    news = _order_table((4, 4), 1)
    one_bit = all(bin(news[i][j] ^ news[(i + di) % 4][(j + dj) % 4]).count("1") == 1
                  for i in range(4) for j in range(4) for di, dj in ((0, 1), (1, 0)))
    d.check(one_bit, "in 'news' order every grid neighbour (with wrap-around) differs in one bit of rank")

    grid = ProcessGrid(d.comm, dims=2, order="news", periods=[True, True])
    placed = d.comm.gather((grid.rank, grid.coords))
    if d.console:
        d.say(f"This run: {grid.size} ranks on a {grid.dims[0]} x {grid.dims[1]} grid: "
              + ", ".join(f"rank {r} at {c}" for r, c in sorted(placed)))
    d.check(all(grid.rank_of(grid.coords_of(r)) == r for r in range(grid.size)), "rank_of and coords_of are inverses")


def _distributions(d: _Demo) -> None:
    d.section("Axis distributions: who owns which element")
    n, p = 10, 4
    d.say(f"{n} elements over {p} grid coordinates (digit = owning coordinate, '.' = none):")
    for dist in (Block(), Cyclic(), BlockCyclic(2), BlockCyclic(3, src=1)):
        m = dist.axis_map(n, p)
        owners = "".join(str(m.owner(g)) for g in range(n))
        extents = [m.extent(c) for c in range(p)]
        d.say(f"  {str(dist):24s} {owners}   local extents {extents}")
    m = Block().axis_map(5, 4)
    d.check([m.extent(c) for c in range(4)] == [2, 2, 1, 0],
            "Block is CM canonical: 5 over 4 gives ceil(5/4) = 2 per rank, the last rank owns nothing")


def _arrays(d: _Demo) -> None:
    d.section("Distributed arrays: scatter, compute on the local block, gather")
    grid = ProcessGrid(d.comm, dims=2)
    global_matrix = np.arange(7 * 9, dtype=np.float64).reshape(7, 9)
    a = DistArray.from_global(grid, global_matrix if grid.rank == 0 else None,
                              dist=[BlockCyclic(2), Block()], root=0, ghost=1)
    d.say(f"  {a}")
    blocks = d.comm.gather((grid.rank, grid.coords, a.local_shape, a.local_with_ghosts.shape))
    for rank, coords, shape, stored in sorted(blocks or []):
        d.say(f"  rank {rank} at {coords}: owns {shape[0]} x {shape[1]}, stores {stored[0]} x {stored[1]} with ghosts")
    a.local[...] = np.sqrt(a.local)  # a zero-copy view: this writes into the distributed array
    result = a.to_global(root=0)
    d.check(grid.rank != 0 or np.array_equal(result, np.sqrt(global_matrix)),
            "sqrt on the local blocks, gathered to rank 0, equals NumPy's sqrt of the whole matrix")

    cube = np.random.default_rng(7).standard_normal((5, 4, 3)).astype(np.complex64)
    b = DistArray.from_global(ProcessGrid(d.comm, dims=3, order="shuffle"), cube, dist=Cyclic())
    d.check(np.array_equal(b.to_global(), cube), "a complex64 5 x 4 x 3 array survives a cyclic round trip")


def _pshift(d: _Demo) -> None:
    d.section("PSHIFT: the four shifts of a 5-point stencil in one concurrent step")
    grid = ProcessGrid(d.comm, dims=2, periods=[True, True])
    shape = (64, 48)
    u0 = np.random.default_rng(3).standard_normal(shape)
    u = DistArray.from_global(grid, u0)
    shifts = [CShift(-1, axis=0), CShift(1, axis=1), CShift(-1, axis=1), CShift(1, axis=0)]
    plan = PShift(u, shifts)  # set up once: partners, message boxes, local copies
    n, e, w, s = (DistArray.zeros(grid, shape) for _ in shifts)
    volume = d.comm.gather(plan.volume())
    if d.console:
        d.say(f"  {shape[0]} x {shape[1]} float64 on a {grid.dims[0]} x {grid.dims[1]} grid; shifts "
              + ", ".join(f"CShift({x.shift:+d}, axis={x.axis})" for x in shifts))
        d.say(f"  per execution rank 0 sends {volume[0]['messages_sent']} messages "
              f"({volume[0]['elements_sent']} elements) and copies {volume[0]['elements_copied']} elements locally")

    singles = [PShift(u, [x]) for x in shifts]
    together = time_collective(d.comm, lambda: plan.execute([n, e, w, s], [u, u, u, u]))
    one_by_one = time_collective(d.comm, lambda: [p.execute([dst], [u]) for p, dst in zip(singles, (n, e, w, s))])
    d.times(f"  one PSHIFT {together * 1e6:.0f} us, four single shifts one after another {one_by_one * 1e6:.0f} us "
            f"(medians of 30; ratio {one_by_one / together:.2f})")

    for _ in range(10):
        plan.execute([n, e, w, s], [u, u, u, u])
        u.local[...] = 0.5 * u.local + 0.125 * (n.local + e.local + w.local + s.local)
    expected = u0
    for _ in range(10):
        expected = 0.5 * expected + 0.125 * (np.roll(expected, 1, 0) + np.roll(expected, -1, 1)
                                             + np.roll(expected, 1, 1) + np.roll(expected, -1, 0))
    d.check(np.allclose(u.to_global(), expected, rtol=1e-12, atol=1e-12),
            "10 Jacobi-style steps with one PSHIFT each equal the same steps with numpy.roll")


def _redistribution(d: _Demo) -> None:
    d.section("Redistribution: a new block size or grid, with contention-free schedules")
    P, K, r = d.comm.size, 3, 4
    schedule = optimal_schedule(P, K)
    d.say(f"  block size {r} -> {K * r} on {P} ranks: in phase k rank p sends to send_proc\\[k, p] "
          "(every row a permutation, so no rank is a hot spot)")
    for k in range(K):
        d.say(f"    phase {k}: " + " ".join(f"{q:2d}" for q in schedule.send_proc[k]))
    grid = ProcessGrid(d.comm, dims=[P])
    n = 800 * r * P  # the paper's volume: 800 blocks of 4 integers per rank
    x = np.arange(n, dtype=np.int32)
    small = DistArray.from_global(grid, x, dist=BlockCyclic(r))
    large = DistArray.zeros(grid, (n,), np.int32, dist=BlockCyclic(K * r))
    times = {}
    for method in ("sendrecv", "nonblocking", "alltoallw"):
        plan = RedistPlan(small, large, method)
        plan.execute(small, large)
        d.check(np.array_equal(large.to_global(), x), f"{method}: every element arrives where BlockCyclic({K * r}) "
                "puts it")
        times[method] = time_collective(d.comm, lambda: plan.execute(small, large))
    d.times("  " + ", ".join(f"{m} {t * 1e6:.0f} us" for m, t in times.items()) + " (medians of 30)")

    matrix = np.arange(37 * 23, dtype=np.float64).reshape(37, 23)
    square = ProcessGrid(d.comm, dims=2)
    tall = ProcessGrid(d.comm, dims=[P, 1])
    a = DistArray.from_global(square, matrix, dist=[BlockCyclic(3), BlockCyclic(2)])
    b = redistribute(a, dist=[BlockCyclic(5), Block()], grid=tall)
    d.say(f"  a 37 x 23 matrix from {square.dims[0]} x {square.dims[1]} blocks of 3 x 2 to {P} x 1 blocks of 5 x whole rows")
    d.check(np.array_equal(b.to_global(), matrix), "the matrix is the same after the change of grid and blocks")


def _vectors(d: _Demo) -> None:
    d.section("CVL vectors: NESL's line-fit and median")
    comm = d.comm
    n = 100_001
    rng = np.random.default_rng(1994)  # the same data on every rank (hostless SPMD)
    xs = rng.random(n) * 10.0
    ys = 3.0 * xs + 2.0 + rng.normal(0.0, 0.5, n)
    x, y = cv.Vector.from_numpy(xs, comm), cv.Vector.from_numpy(ys, comm)
    d.say(f"  {n} points, block-distributed over {comm.size} ranks as datamotion.vector.Vector")

    def timed(fn):
        comm.Barrier()
        start = time.perf_counter()
        result = fn()
        return result, comm.allreduce(time.perf_counter() - start, op=MPI.MAX)

    (a, b, sigma, sigb), t_fit = timed(lambda: linefit(x, y))
    slope, intercept = np.polyfit(xs, ys, 1)
    d.say(f"  line-fit (five plus-reductions): y = {b:.4f} x + {a:.4f} (sigma {sigma:.2e}, sigb {sigb:.2e}) "
          f"in {t_fit * 1e3:.2f} ms")
    d.check(bool(np.isclose(b, slope, rtol=1e-9) and np.isclose(a, intercept, rtol=1e-9)),
            "slope and intercept match np.polyfit")

    med, t_med = timed(lambda: select_kth(x, n // 2))
    d.times(f"  median by quickselect (scalar extract, compare, pack): {med:.6f} in {t_med * 1e3:.2f} ms")
    d.check(med == np.median(xs), "the median matches np.median")


def _profile(d: _Demo) -> None:
    d.section("Measuring the machine: a quick profile (datamotion bench for more)")
    comm = d.comm
    if comm.size < 2:
        d.say("  (needs 2 ranks)")
        return
    median_us = lambda samples: float(np.median(samples)) * 1e6
    lat = _core.bench_pair("pingpong", comm, 0, 1, 8, 30, 3, 20, 1, True)
    big = _core.bench_pair("pingpong", comm, 0, 1, 1 << 20, 10, 2, 1, 1, True)
    bar = _core.bench_barrier(comm, 30, 3)
    red = _core.bench_collective("allreduce", comm, 8, 30, 3, True)
    if comm.rank == 0:
        d.times(f"  ping-pong rank 0 <-> 1: 8 bytes {median_us(lat):.2f} us one way; 1 MiB {median_us(big):.0f} us "
                f"= {(1 << 20) / median_us(big):.0f} MB/s",
                f"  on all {comm.size} ranks: barrier {median_us(bar):.2f} us, 8-byte allreduce {median_us(red):.2f} us "
                f"(medians; every byte checked)")
    # With validation on, a wrong byte would have raised datamotion.Error on every rank.
    d.check(all(s > 0 for s in lat + big + bar + red), "every sample is a positive time, every byte arrived intact")


def _errors(d: _Demo) -> None:
    d.section("Errors are collective: one rank's mistake fails the call on every rank")
    grid = ProcessGrid(d.comm, dims=1)
    last = d.comm.size - 1
    if d.comm.size > 1:  # the last rank passes a different array
        mistake = f"rank {last} passed 13 elements, the others 12"
        call = lambda: DistArray.from_global(grid, np.zeros(12 if grid.rank != last else 13))
    else:
        mistake = "a block size of 0 was asked for"
        call = lambda: DistArray.from_global(grid, np.zeros(12), dist=BlockCyclic(0))
    try:
        call()
        message = None
    except Error as e:
        message = str(e)
    messages = d.comm.gather(message)
    if d.console:
        d.say(f"  {mistake}; every rank raised datamotion.Error:")
        for r, m in enumerate(messages):
            d.say(f"    rank {r}: {m}")
    d.check(message is not None and len(set(d.comm.allgather(message))) == 1,
            "the same error on every rank, and no rank left waiting")


def run_demo() -> int:
    comm = MPI.COMM_WORLD
    d = _Demo(comm)
    info = provenance(comm)
    d.say(f"[bold]datamotion {info['version']}[/] on {info['ranks']} ranks, {info['mpi_library']}")
    _grids(d)
    _distributions(d)
    _arrays(d)
    _pshift(d)
    _redistribution(d)
    _vectors(d)
    _profile(d)
    _errors(d)
    d.section("Summary")
    d.say("all checks passed" if d.failures == 0 else f"[red]{d.failures} check(s) failed[/]")
    return 1 if d.failures else 0
