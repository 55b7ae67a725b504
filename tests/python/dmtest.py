"""Helpers for the datamotion Python tests: collective assertions, NumPy oracles
of the layouts, and test data.

Every rank of a launch runs the same test body. A check that only some ranks
fail would send them and the rest down different paths (and into different
collective calls), so the helpers marked "Collective" agree on the outcome
first and then fail, or pass, on every rank together.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
from typing import Callable, Optional, Sequence

import numpy as np
from hypothesis import strategies as st
from mpi4py import MPI

import datamotion as dm
from datamotion import _core
from datamotion.launch import MPICH_THROTTLE

WORLD = MPI.COMM_WORLD

# Rank counts of the launches (see `python_tests` in ./dev).
MAIN = [1, 2, 3, 4]           # most tests
GRIDS = [1, 2, 3, 4, 5, 6, 7]  # property tests on grids
WITH_8 = MAIN + [8]            # the smaller set that also runs on 8 ranks
ALL = GRIDS + [8]
# More ranks than cores: 13 (not a power of two) and 16, both leaving ranks that own
# nothing. Only the random round trips of what moves data run there, on a few small
# cases each: every collective call waits for ranks that share the cores.
LARGE = [13, 16]

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex64, np.complex128, np.bool_]
DTYPE_IDS = [np.dtype(t).name for t in DTYPES]

ORDERS = ["send", "news", "shuffle"]
ORDER_CODES = {"send": 0, "news": 1, "shuffle": 2}


# ---------------------------------------------------------------------------
# Collective assertions
# ---------------------------------------------------------------------------

def check_all(comm: MPI.Comm, ok, message: str = "") -> None:
    """Collective. Fails on every rank of ``comm`` unless ``ok`` holds on every rank."""
    reports = comm.allgather((bool(ok), "" if ok else str(message)))
    bad = [(r, m) for r, (o, m) in enumerate(reports) if not o]
    if bad:
        raise AssertionError("check failed on " + "; ".join(f"rank {r}: {m}" for r, m in bad))


class Unavailable:
    """What an oracle returns instead of raising: local code in a parallel test must
    not raise between collective calls, or the other ranks wait forever."""

    def __init__(self, why: str):
        self.why = why

    def __repr__(self):
        return f"<unavailable: {self.why}>"


def safely(fn: Callable[[], object]):
    """Local. fn(), or Unavailable(reason) if it raised."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported through Unavailable
        return Unavailable(f"{type(e).__name__}: {e}")


def same_array(actual, expected) -> tuple[bool, str]:
    """Local; never raises. Exact equality of values, shape and dtype (NaN never occurs
    in our data). Either side may be Unavailable (an oracle that failed)."""
    for side in (actual, expected):
        if isinstance(side, Unavailable):
            return False, repr(side)
    try:
        return _same_array(actual, expected)
    except Exception as e:  # noqa: BLE001
        return False, f"comparison raised {type(e).__name__}: {e}"


def _same_array(actual, expected) -> tuple[bool, str]:
    if actual is None or expected is None:
        return actual is expected, f"{actual!r} vs {expected!r}"
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.dtype != expected.dtype:
        return False, f"dtype {actual.dtype} != {expected.dtype}"
    if actual.shape != expected.shape:
        return False, f"shape {actual.shape} != {expected.shape}"
    if not np.array_equal(actual, expected):
        where = np.argwhere(actual != expected)
        return False, f"{len(where)} elements differ, first at {tuple(where[0])}: {actual[tuple(where[0])]!r} != {expected[tuple(where[0])]!r}"
    return True, ""


def check_same_array(comm: MPI.Comm, actual, expected, what: str = "array") -> None:
    """Collective. ``actual`` equals ``expected`` exactly on every rank."""
    ok, why = same_array(actual, expected)
    check_all(comm, ok, f"{what}: {why}")


def outcome_of(fn: Callable[[], object]):
    """Local. ``("ok", result)`` or ``("error", exception)``."""
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the caller inspects it
        return "error", e


def raises_everywhere(comm: MPI.Comm, fn: Callable[[], object], status: Optional[str] = None,
                      match: Optional[str] = None) -> dm.Error:
    """Collective. Runs ``fn`` on every rank and checks that it raised ``datamotion.Error``
    on every rank with the same code and message (and ``status``, and a message
    matching the regular expression ``match``). Returns this rank's error."""
    kind, value = outcome_of(fn)
    if kind == "ok":
        mine = ("no error", None, None, "")
    elif isinstance(value, dm.Error):
        mine = ("datamotion.Error", value.code, value.status, value.message)
    else:
        mine = (type(value).__name__, None, None, str(value))
    everyone = comm.allgather(mine)
    wrong = {r: o for r, o in enumerate(everyone) if o[0] != "datamotion.Error"}
    assert not wrong, f"datamotion.Error expected on every rank; got {wrong}"
    assert len(set(everyone)) == 1, "the error differs across ranks:\n" + "\n".join(
        f"  rank {r}: {o}" for r, o in enumerate(everyone))
    _, code, got_status, text = everyone[0]
    assert isinstance(code, int)
    assert got_status == dm.Error(code, "").status
    if status is not None:
        assert got_status == status, f"expected {status}, got {got_status}: {text}"
    if match is not None:
        assert re.search(match, text), f"message {text!r} does not match {match!r}"
    return value


def bcast_case(comm: MPI.Comm, case):
    """Collective. Rank 0's case on every rank (all ranks must run the same collective calls)."""
    return comm.bcast(case, root=0)


# ---------------------------------------------------------------------------
# Oracles: ScaLAPACK's NUMROC and the block-cyclic index maps, in NumPy
# ---------------------------------------------------------------------------

def numroc(n: int, nb: int, iproc: int, isrcproc: int, nprocs: int) -> int:
    """ScaLAPACK's NUMROC (TOOLS/numroc.f), with 0-based process coordinates:
    the number of rows or columns of an n-long axis in blocks of nb that process
    iproc owns when the first block lives on process isrcproc."""
    mydist = (nprocs + iproc - isrcproc) % nprocs
    nblocks = n // nb
    num = (nblocks // nprocs) * nb
    extrablks = nblocks % nprocs
    if mydist < extrablks:
        num += nb
    elif mydist == extrablks:
        num += n % nb
    return num


def resolved_block(dist, n: int, nprocs: int) -> tuple[int, int]:
    """The (block, src) a distribution amounts to on an n-long axis over nprocs."""
    if isinstance(dist, dm.BlockCyclic):
        return int(dist.r), int(dist.src)
    if isinstance(dist, dm.Cyclic):
        return 1, 0
    assert isinstance(dist, dm.Block)
    return (max(1, math.ceil(n / nprocs)), 0)


class AxisOracle:
    """The map of one axis, computed element by element with NumPy: block-cyclic, or
    ``Sizes`` (coordinate c holds sizes[c] consecutive elements; block and src None)."""

    def __init__(self, dist, n: int, nprocs: int):
        self.n, self.nprocs = n, nprocs
        g = np.arange(n, dtype=np.int64)
        if isinstance(dist, dm.Sizes):
            assert len(dist.sizes) == nprocs and sum(dist.sizes) == n, (dist, n, nprocs)
            self.block = self.src = None
            self.owner = np.repeat(np.arange(nprocs, dtype=np.int64), dist.sizes)
            self.local = g - np.concatenate([[0], np.cumsum(dist.sizes)])[self.owner]
        else:
            self.block, self.src = resolved_block(dist, n, nprocs)
            self.owner = (g // self.block + self.src) % nprocs
            self.local = (g // (self.block * nprocs)) * self.block + g % self.block
        self.extents = np.bincount(self.owner, minlength=nprocs) if n else np.zeros(nprocs, np.int64)

    def owned(self, coord: int) -> np.ndarray:
        """Global indices owned by ``coord``, in local order."""
        idx = np.flatnonzero(self.owner == coord)
        return idx[np.argsort(self.local[idx], kind="stable")]


def expected_local(global_array: np.ndarray, dists: Sequence, dims: Sequence[int],
                   coords: Sequence[int]) -> np.ndarray:
    """The block a rank at ``coords`` must own, from the oracle alone (Unavailable if
    that cannot be worked out, e.g. coordinates off the grid)."""
    def block():
        index = [AxisOracle(d, n, p).owned(c) for d, n, p, c in zip(dists, global_array.shape, dims, coords)]
        return global_array[np.ix_(*index)] if index else global_array
    return safely(block)


def local_from_axis_maps(a: dm.DistArray, global_array: np.ndarray) -> np.ndarray:
    """The block this rank must own, from the array's own axis maps: element l of
    the local block is the global element at global_index(coord, l) on each axis.
    Unavailable if the maps refuse this rank's coordinates."""
    def block():
        index = []
        for axis, c in enumerate(a.grid.coords):
            m = a.axis_map(axis)
            index.append(np.array([m.global_index(c, l) for l in range(m.extent(c))], dtype=np.int64))
        return global_array[np.ix_(*index)]
    return safely(block)


# ---------------------------------------------------------------------------
# Grid-order oracles
# ---------------------------------------------------------------------------

def is_power_of_two(x: int) -> bool:
    return x >= 1 and x & (x - 1) == 0


def bits(extent: int) -> int:
    """Bits of a coordinate in [0, extent)."""
    return (extent - 1).bit_length()


def gray(x: int) -> int:
    return x ^ (x >> 1)


def cells(dims: Sequence[int]) -> list[tuple[int, ...]]:
    """All coordinates, in row-major order."""
    return [tuple(int(c) for c in np.unravel_index(i, dims)) for i in range(int(np.prod(dims)))]


def interleaved(coords: Sequence[int], dims: Sequence[int]) -> int:
    """Morton index: bit b of every coordinate, last axis least significant, an
    axis dropping out once its coordinates have no bit b."""
    key, pos = 0, 0
    for b in range(max((bits(d) for d in dims), default=0)):
        for a in reversed(range(len(dims))):
            if b < bits(dims[a]):
                key |= ((coords[a] >> b) & 1) << pos
                pos += 1
    return key


# ---------------------------------------------------------------------------
# Process grids
# ---------------------------------------------------------------------------

def check_grid(comm, g, dims, order="send", periods=None, agree_on=None):
    """Collective on comm, then on `agree_on` (default comm). Everything a grid
    reports, against `dims` and the rank assignment of its order. Local checks
    never raise (a rank leaving early would leave the others in the collective
    calls that follow); the outcome is agreed on `agree_on`, which should be
    COMM_WORLD when `comm` is one group of several working at once."""
    size, rank = comm.size, comm.rank
    dims = tuple(dims)
    problems = []

    def expect(cond, what):
        ok = safely(cond)
        if isinstance(ok, Unavailable) or not ok:
            text = safely(what) if callable(what) else what
            problems.append(f"{text}" + (f" ({ok!r})" if isinstance(ok, Unavailable) else ""))

    expect(lambda: g.dims == dims, lambda: f"dims {g.dims} != {dims}")
    expect(lambda: g.ndim == len(dims), lambda: f"ndim {g.ndim}")
    expect(lambda: g.size == size and g.rank == rank, lambda: f"size/rank {g.size}/{g.rank} != {size}/{rank}")
    expect(lambda: g.order == order, lambda: f"order {g.order!r}")
    expect(lambda: g.periods == tuple(bool(p) for p in (periods or [False] * len(dims))),
           lambda: f"periods {g.periods}")
    expect(lambda: len(g.coords) == len(dims) and all(0 <= c < d for c, d in zip(g.coords, dims)),
           lambda: f"coords {g.coords}")

    # The rank assignment: the coordinates of every rank are where that rank sits.
    assignment = _core.rank_assignment(list(dims), ORDER_CODES[order])
    for cell, coords in enumerate(cells(dims)):
        expect(lambda: g.rank_of(coords) == assignment[cell], f"rank_of{coords} != {assignment[cell]}")
    expect(lambda: g.rank_of(g.coords) == rank, "rank_of(coords) != rank")
    expect(lambda: g.coords_of(rank) == g.coords, "coords_of(rank) != coords")
    for r in range(size):
        expect(lambda: g.rank_of(g.coords_of(r)) == r, f"rank_of(coords_of({r})) != {r}")

    # Every rank agrees on where every rank sits, and the cells are all taken.
    everyone = comm.allgather(safely(lambda: g.coords))
    expect(lambda: everyone == [g.coords_of(r) for r in range(size)], f"coords of all ranks {everyone}")
    expect(lambda: sorted(everyone) == cells(dims), "coordinates are not a bijection onto the cells")

    # The grid's communicator: a working duplicate with the same ranks.
    c = g.comm
    expect(lambda: isinstance(c, MPI.Intracomm), f"comm is {type(c)}")
    expect(lambda: c.size == size and c.rank == rank, lambda: f"comm size/rank {c.size}/{c.rank}")
    expect(lambda: MPI.Comm.Compare(c, comm) == MPI.CONGRUENT, lambda: f"comm compares {MPI.Comm.Compare(c, comm)}")
    total, ranks = c.allreduce(rank + 1), c.allgather(rank)
    expect(lambda: total == size * (size + 1) // 2, "allreduce on grid.comm")
    expect(lambda: ranks == list(range(size)), "allgather on grid.comm")

    # Axis communicators: the row/column of this rank, ranked along the axis.
    mine = safely(lambda: tuple(g.coords))
    for axis, extent in enumerate(dims):
        ac = g.axis_comm(axis)
        expect(lambda: ac.size == extent and ac.rank == g.coords[axis],
               lambda: f"axis_comm({axis}) size/rank {ac.size}/{ac.rank}, want {extent}/{g.coords[axis]}")
        members, count = ac.allgather(mine), ac.allreduce(1)
        others = safely(lambda: {tuple(m[:axis] + m[axis + 1:]) for m in members})
        expect(lambda: len(others) == 1, f"axis {axis} members differ off the axis: {members}")
        expect(lambda: [m[axis] for m in members] == list(range(extent)), f"axis {axis} members {members}")
        expect(lambda: count == extent, f"allreduce on axis_comm({axis})")

    check_all(agree_on or comm, not problems, "; ".join(problems))


# ---------------------------------------------------------------------------
# Test data
# ---------------------------------------------------------------------------

def sample(shape: Sequence[int], dtype, seed: int = 0) -> np.ndarray:
    """Distinct, exactly representable values (so a misplaced element shows)."""
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape)
    size = int(np.prod(shape, dtype=np.int64))
    rng = np.random.default_rng(seed)
    perm = rng.permutation(size).reshape(shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "i":
        return (perm * 3 - size).astype(dtype)
    if dtype.kind == "f":
        return (perm + 0.25).astype(dtype)
    return (perm + 0.5).astype(dtype) - 1j * (perm * 2).astype(dtype)


def dist_for(draw, extent: int, max_block: int = 4):
    """Inside a Hypothesis composite: a random distribution for an axis on
    ``extent`` grid coordinates (BlockCyclic with any source coordinate)."""
    kind = draw(st.sampled_from(["block", "cyclic", "block_cyclic"]))
    if kind == "block":
        return dm.Block()
    if kind == "cyclic":
        return dm.Cyclic()
    return dm.BlockCyclic(draw(st.integers(1, max_block)), draw(st.integers(0, extent - 1)))


def uneven_sizes(n: int, nprocs: int, seed: int = 0) -> "dm.Sizes":
    """``Sizes`` of n elements over nprocs coordinates, drawn at random (the same on
    every rank for the same seed), with coordinate 0 owning nothing when nprocs > 1."""
    rng = np.random.default_rng(seed)
    owners = rng.integers(1 if nprocs > 1 else 0, nprocs, size=n)
    return dm.Sizes(np.bincount(owners, minlength=nprocs).tolist())


def factorizations(n: int, k: int) -> list[tuple[int, ...]]:
    """All ordered ways to write n as a product of k positive factors."""
    if k == 1:
        return [(n,)]
    return [(d,) + rest for d in range(1, n + 1) if n % d == 0 for rest in factorizations(n // d, k - 1)]


def launcher_free_environment() -> dict:
    """Local. This process's environment without the enclosing MPI job's launcher
    variables, for a child that must start MPI on its own (a new job or a singleton);
    HYDI_CONTROL_FD, for one, would tie the child to this job's launcher."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PMI_", "PMIX_", "HYDRA_", "HYDI_", "OMPI_", "MV2_", "MPI_LOCAL"))
            or k.startswith("OMPI_ALLOW_RUN_AS_ROOT")}


def mpiexec_command(nprocs: int) -> Optional[list]:
    """Local. The command line that starts ``nprocs`` ranks with this Python's MPI, or None
    where there is no launcher: $DM_TEST_MPIEXEC (a command line, for an MPI whose
    launcher is not beside the interpreter, such as Debian's Open MPI with
    ``mpiexec.openmpi --oversubscribe``), else the mpiexec beside this Python (the mpich
    wheel's), else the first on PATH."""
    chosen = os.environ.get("DM_TEST_MPIEXEC", "").split()
    if not chosen:
        found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
        if found is None:
            return None
        chosen = [found]
    return [*chosen, "-n", str(nprocs)]


def job_environment(**env: str) -> dict:
    """Local. The environment of a job the tests start themselves: this process's without
    the enclosing job's launcher variables, with MPICH's throttle, and ``env`` added."""
    return {**launcher_free_environment(), **MPICH_THROTTLE, **env}


def run_job(script: str, nprocs: int, folder, **env: str) -> subprocess.CompletedProcess:
    """Local. Runs the Python ``script`` (text) as a job of its own on ``nprocs`` ranks,
    with the enclosing job's launcher variables removed and ``env`` added; returns the
    finished process (stdout and stderr together in ``.stdout``). Its timeout is a
    hang guard, not a timing threshold."""
    path = os.path.join(str(folder), "job.py")
    with open(path, "w") as f:
        f.write(script)
    return subprocess.run([*mpiexec_command(nprocs), sys.executable, path], env=job_environment(**env),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)

