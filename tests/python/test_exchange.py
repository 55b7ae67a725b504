"""The exchange engine under halo, PSHIFT and redistribution: every executor forced by
option (and through DM_EXCHANGE), on random layouts, shapes, ghost widths and element
types at 1-8, 13 and 16 ranks against NumPy oracles; blocking calls, start()/wait()
and the context manager give the same results; misuse of an exchange in flight fails
with the same datamotion.Error on every rank."""

import gc
import re
import weakref

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import datamotion as dm
from datamotion import _core, _exchange
from datamotion.measure.hosts import job_layout
from dmtest import (
    ALL, DTYPES, DTYPE_IDS, LARGE, MAIN, ORDERS, WITH_8, WORLD, bcast_case, check_all, check_same_array, dist_for,
    factorizations, raises_everywhere, safely, same_array, sample,
)

SIZE = WORLD.size
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SIZE == 1 else [])
EXAMPLES = 40 if SIZE <= 4 else 20 if SIZE <= 8 else 4
# Every executor the registry lets executor= name: a new transport is tested here unasked.
EXECUTORS = list(_exchange.EXECUTORS)
# Executors that send every byte by MPI, so that a source written in flight is not
# read again (the on-node transport reads it in place at wait()).
MESSAGE_EXECUTORS = ["pack", "datatype"]
MODES = ["blocking", "start-wait", "with"]
UNTOUCHED = 99
# A mistake in a hot-path call comes back as an error on every rank in checked mode
# (and on one rank); otherwise it ends the job by design (tests/cpp/abort_on_one_rank.c).
MISTAKES_RETURN = SIZE == 1 or _core.checked_mode()
# Where the ranks live (emulated nodes too, docs/hosts.md): messages between ranks of one
# node go on-node where arrays live in node memory (not over the network path,
# MPIR_CVAR_NOLOCAL=1); ON_NODE: this rank has other ranks on its node to exchange so with.
LAYOUT = job_layout(WORLD)
NODE_MEMORY = _core.node_memory_enabled()
ON_NODE = NODE_MEMORY and LAYOUT.ranks_per_node[LAYOUT.node] > 1


def prop_settings(examples=EXAMPLES):
    return settings(max_examples=examples, deadline=None, derandomize=True, phases=PHASES, database=None)


def run(mode, blocking, start):
    """Runs one exchange the way `mode` says: the blocking call, start() then wait()
    (twice: the second does nothing), or start() as a context manager."""
    if mode == "blocking":
        blocking()
    elif mode == "start-wait":
        ex = start()
        ex.wait()
        ex.wait()
        assert ex.done
    else:
        with start() as ex:
            assert not ex.done
        assert ex.done


# ---------------------------------------------------------------------------
# Halo
# ---------------------------------------------------------------------------

def halo_oracle(a, x, periods, corners):
    """This rank's storage after a halo exchange of `a` (holding `x`, ghosts UNTOUCHED):
    the global array padded by the ghost widths (wrapped on periodic axes, UNTOUCHED
    past the edge of the others), cut at this rank's block; without corners, the
    positions outside the owned range on two or more axes stay UNTOUCHED."""
    ghost, ext = a.ghost, a.local_shape
    out = np.full(a.local_with_ghosts.shape, UNTOUCHED, dtype=x.dtype)
    if min(ext, default=1) == 0:  # a rank that owns nothing has no halo to fill
        return out
    padded = x
    for axis, (w, periodic) in enumerate(zip(ghost, periods)):
        pad = [(0, 0)] * x.ndim
        pad[axis] = (w, w)
        padded = np.pad(padded, pad, mode="wrap") if periodic and x.shape[axis] else \
            np.pad(padded, pad, mode="constant", constant_values=UNTOUCHED)
    g0 = [a.axis_map(axis).global_index(a.grid.coords[axis], 0) for axis in range(x.ndim)]
    out[...] = padded[tuple(slice(g, g + n + 2 * w) for g, n, w in zip(g0, ext, ghost))]
    if not corners:
        outside = sum(np.logical_or(np.arange(n + 2 * w) < w, np.arange(n + 2 * w) >= n + w).reshape(
            [-1 if b == axis else 1 for b in range(x.ndim)]).astype(int)
            for axis, (n, w) in enumerate(zip(ext, ghost)))
        out[np.broadcast_to(outside > 1, out.shape)] = UNTOUCHED
    return out


def ghosted(grid, x, ghost):
    a = dm.DistArray.from_global(grid, x, ghost=ghost)
    a.local_with_ghosts[...] = UNTOUCHED
    a.scatter(x)
    return a


def draw_layout(draw):
    """Axes, grid extents and a global shape (short or empty axes included)."""
    ndim = draw(st.integers(1, 3))
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    shape = tuple(draw(st.one_of(st.integers(0, 2), st.integers(1, 9))) for _ in range(ndim))
    return ndim, dims, shape


@st.composite
def halo_cases(draw):
    ndim, dims, shape = draw_layout(draw)
    return dict(dims=dims, order=draw(st.sampled_from(ORDERS)), shape=shape,
                ghost=[draw(st.integers(0, 3)) for _ in range(ndim)],
                periods=[draw(st.booleans()) for _ in range(ndim)], corners=draw(st.booleans()),
                dtype=np.dtype(draw(st.sampled_from(DTYPES))).name, executor=draw(st.sampled_from(EXECUTORS)),
                mode=draw(st.sampled_from(MODES)), seed=draw(st.integers(0, 2**16)))


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings()
@given(case=halo_cases())
def test_halo_every_executor_matches_the_oracle(case):
    case = bcast_case(WORLD, case)
    grid = dm.ProcessGrid(dims=list(case["dims"]), order=case["order"], periods=case["periods"])
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    a = ghosted(grid, x, case["ghost"])
    halo = dm.Halo(a, corners=case["corners"], executor=case["executor"])
    for repeat in range(2):  # the second exchange reuses the bound requests
        run(case["mode"], lambda: halo.exchange(a), lambda: halo.start(a))
        check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, case["periods"],
                                                                                  case["corners"])),
                         f"case {case}, exchange {repeat}")
    check_all(WORLD, f"executor {case['executor']}" in halo.describe(), halo.describe())


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("executor", EXECUTORS)
def test_halo_every_type_and_executor_on_a_periodic_box(dtype, executor):
    """3-d, ghost widths 1 to 3 per axis, corners: messages of several pieces per peer."""
    periods = [True, True, True]
    grid = dm.ProcessGrid(dims=3, periods=periods)
    x = sample((7, 6, 5), dtype, seed=3)
    for corners in (False, True):
        a = ghosted(grid, x, [2, 1, 3])
        b = ghosted(grid, x, [2, 1, 3])
        halo = dm.Halo(a, corners=corners, executor=executor)
        halo.exchange(a)
        with halo.start(b):
            pass
        expected = safely(lambda: halo_oracle(a, x, periods, corners))
        check_same_array(WORLD, a.local_with_ghosts, expected, f"exchange, corners={corners}")
        check_same_array(WORLD, b.local_with_ghosts, expected, f"start/wait, corners={corners}")


@pytest.mark.parallel(nprocs=MAIN)
def test_halo_interior_written_while_in_flight():
    """The interior may be written between start() and wait(): the ghosts hold the
    values of start(), sent before the writes."""
    periods = [True, True]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((8, 6), np.float64, seed=5)
    for executor in MESSAGE_EXECUTORS:
        a = ghosted(grid, x, 1)
        halo = dm.Halo(a, corners=True, executor=executor)
        with halo.start(a):
            a.local[...] = -5.0
        expected = safely(lambda: _with_interior(halo_oracle(a, x, periods, True), a.ghost, -5.0))
        check_same_array(WORLD, a.local_with_ghosts, expected, f"executor {executor}")


def _with_interior(storage, ghost, value):
    out = storage.copy()
    out[tuple(slice(w, s - w) for w, s in zip(ghost, out.shape))] = value
    return out


# ---------------------------------------------------------------------------
# PSHIFT
# ---------------------------------------------------------------------------

def shifted(x, s):
    """NumPy oracle of one CShift or EOShift (scalar boundaries)."""
    if isinstance(s, dm.CShift):
        return np.roll(x, -s.shift, s.axis) if x.shape[s.axis] else x.copy()
    n = x.shape[s.axis]
    out = np.full_like(x, s.boundary)
    src = np.arange(n) + s.shift
    keep = (src >= 0) & (src < n)
    index = [slice(None)] * x.ndim
    index[s.axis] = np.flatnonzero(keep)
    take = [slice(None)] * x.ndim
    take[s.axis] = src[keep]
    out[tuple(index)] = x[tuple(take)]
    return out


@st.composite
def pshift_cases(draw):
    ndim, dims, shape = draw_layout(draw)
    shifts = []
    for _ in range(draw(st.integers(1, 4))):
        axis = draw(st.integers(0, ndim - 1))
        distance = draw(st.integers(-12, 12))
        if draw(st.booleans()):
            shifts.append(("c", axis, distance, 0))
        else:
            shifts.append(("eo", axis, distance, draw(st.sampled_from([0, 1, 3]))))
    return dict(dims=dims, order=draw(st.sampled_from(ORDERS)), shape=shape, shifts=shifts,
                ghost=draw(st.integers(0, 2)), dtype=np.dtype(draw(st.sampled_from(DTYPES))).name,
                executor=draw(st.sampled_from(EXECUTORS)), mode=draw(st.sampled_from(MODES)),
                in_place=draw(st.booleans()), seed=draw(st.integers(0, 2**16)))


def make_shift(kind, axis, distance, boundary):
    return dm.CShift(distance, axis=axis) if kind == "c" else dm.EOShift(distance, axis=axis, boundary=boundary)


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings()
@given(case=pshift_cases())
def test_pshift_every_executor_matches_numpy(case):
    case = bcast_case(WORLD, case)
    grid = dm.ProcessGrid(dims=list(case["dims"]), order=case["order"])
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    shifts = [make_shift(*s) for s in case["shifts"]]
    src = dm.DistArray.from_global(grid, x, ghost=case["ghost"])
    plan = dm.PShift(src, shifts, executor=case["executor"])
    dsts = [dm.DistArray.zeros(grid, x.shape, x.dtype, ghost=case["ghost"]) for _ in shifts]
    if case["in_place"]:
        dsts[0] = src  # a = cshift(a) beside shifts that read a: every shift reads the old a
    run(case["mode"], lambda: plan.execute(dsts, [src] * len(shifts)), lambda: plan.start(dsts, [src] * len(shifts)))
    problems = []
    for k, (s, d) in enumerate(zip(shifts, dsts)):
        ok, why = same_array(d.to_global(), safely(lambda: shifted(x, s)))
        if not ok:
            problems.append(f"shift {k} {s}: {why}")
    check_all(WORLD, not problems, f"case {case}: " + "; ".join(problems))
    check_all(WORLD, f"executor {case['executor']}" in plan.describe(), plan.describe())


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("executor", EXECUTORS)
def test_pshift_swaps_and_every_type(dtype, executor):
    """Two arrays shifted into each other (b = cshift(a), a = cshift(b)): sources that
    are destinations of other shifts, with every executor and element type."""
    grid = dm.ProcessGrid(dims=2)
    x, y = sample((9, 5), dtype, seed=1), sample((9, 5), dtype, seed=2)
    a, b = dm.DistArray.from_global(grid, x), dm.DistArray.from_global(grid, y)
    plan = dm.PShift(a, [dm.CShift(2, axis=0), dm.CShift(-1, axis=1)], executor=executor)
    with plan.start([b, a], [a, b]):
        pass
    check_same_array(WORLD, b.to_global(), np.roll(x, -2, 0), "b = cshift(a, 2, 0)")
    check_same_array(WORLD, a.to_global(), np.roll(y, 1, 1), "a = cshift(b, -1, 1)")


# ---------------------------------------------------------------------------
# Redistribution
# ---------------------------------------------------------------------------

@st.composite
def layouts(draw, ndim):
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    return dict(dims=dims, order=draw(st.sampled_from(ORDERS)), dist=[dist_for(draw, d, max_block=5) for d in dims],
                ghost=draw(st.integers(0, 1)))


@st.composite
def redist_cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(0, 30 if ndim == 1 else 8)) for _ in range(ndim))
    return dict(shape=shape, dtype=np.dtype(draw(st.sampled_from(DTYPES))).name, a=draw(layouts(ndim)),
                b=draw(layouts(ndim)), method=draw(st.sampled_from(["auto", "nonblocking", "sendrecv"])),
                executor=draw(st.sampled_from(EXECUTORS)), mode=draw(st.sampled_from(MODES)),
                seed=draw(st.integers(0, 2**16)))


def _array(layout, x):
    grid = dm.ProcessGrid(dims=list(layout["dims"]), order=layout["order"])
    return dm.DistArray.from_global(grid, x, dist=layout["dist"], ghost=layout["ghost"])


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings()
@given(case=redist_cases())
def test_redistribution_every_executor_matches_the_global_array(case):
    case = bcast_case(WORLD, case)
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    a = _array(case["a"], x)
    b = _array(case["b"], np.zeros_like(x))
    plan = dm.RedistPlan(a, b, case["method"], executor=case["executor"])
    for repeat in range(2):
        b.local[...] = 0
        run(case["mode"], lambda: plan.execute(a, b), lambda: plan.start(a, b))
        check_same_array(WORLD, b.to_global(), x, f"case {case}, execution {repeat}")
    check_all(WORLD, f"executor {case['executor']}" in plan.describe(), plan.describe())


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("executor", EXECUTORS)
def test_redistribution_alltoallw_method_with_every_executor(executor):
    """The alltoallw method runs one collective whatever the executor option says; the
    plan is made (or refused) alike on every rank and moves the right data."""
    x = sample((13, 6), np.float64, seed=4)
    grid = dm.ProcessGrid(dims=2)
    a = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(2))
    b = dm.DistArray.from_global(grid, np.zeros_like(x), dist=dm.BlockCyclic(3))
    outcome = safely(lambda: dm.RedistPlan(a, b, "alltoallw", executor=executor))
    everyone = WORLD.allgather(isinstance(outcome, dm.RedistPlan))
    check_all(WORLD, len(set(everyone)) == 1, f"plan made on some ranks only: {everyone}")
    if everyone[0]:
        with outcome.start(a, b):
            pass
        check_same_array(WORLD, b.to_global(), x)


# ---------------------------------------------------------------------------
# DM_EXCHANGE
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("forced", ["pack", "datatype"])
def test_dm_exchange_environment_forces_the_executor(forced, monkeypatch):
    """DM_EXCHANGE overrides "auto" (read when a plan is made): describe() says so and
    every capability still moves the right data."""
    monkeypatch.setenv("DM_EXCHANGE", forced)
    periods = [True, True]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((6, 7), np.float64, seed=9)
    a = ghosted(grid, x, 2)
    halo = dm.Halo(a, corners=True)
    halo.exchange(a)
    check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, periods, True)), "halo")
    src = dm.DistArray.from_global(grid, x)
    dst = dm.DistArray.zeros(grid, x.shape)
    shift = dm.PShift(src, [dm.CShift(3, axis=1)])
    shift.execute([dst], [src])
    check_same_array(WORLD, dst.to_global(), np.roll(x, -3, 1), "pshift")
    other = dm.DistArray.zeros(grid, x.shape, dist=dm.BlockCyclic(2))
    redist = dm.RedistPlan(src, other, "nonblocking")
    redist.execute(src, other)
    check_same_array(WORLD, other.to_global(), x, "redistribution")
    for what, plan in (("halo", halo), ("pshift", shift), ("redist", redist)):
        check_all(WORLD, f"executor {forced}" in plan.describe(), f"{what}: {plan.describe()}")


@pytest.mark.parallel(nprocs=MAIN)
def test_dm_exchange_unknown_value_fails_everywhere(monkeypatch):
    monkeypatch.setenv("DM_EXCHANGE", "teleport")
    grid = dm.ProcessGrid(dims=1, periods=[True])
    a = dm.DistArray.zeros(grid, (8,), ghost=1)
    raises_everywhere(WORLD, lambda: dm.Halo(a), "DM_ERR_ARG", r"unknown executor 'teleport'")
    raises_everywhere(WORLD, lambda: dm.PShift(a, [dm.CShift(1, axis=0)]), "DM_ERR_ARG", r"unknown executor 'teleport'")


@pytest.mark.parallel(nprocs=MAIN)
def test_unknown_executor_option_fails_everywhere():
    grid = dm.ProcessGrid(dims=1)
    a = dm.DistArray.zeros(grid, (8,), ghost=1)
    b = dm.DistArray.zeros(grid, (8,), dist=dm.Cyclic())
    raises_everywhere(WORLD, lambda: dm.Halo(a, executor="alltoallw"), "DM_ERR_ARG", "unknown executor")
    raises_everywhere(WORLD, lambda: dm.PShift(a, [dm.CShift(1, axis=0)], executor="fast"), "DM_ERR_ARG",
                      "unknown executor")
    raises_everywhere(WORLD, lambda: dm.RedistPlan(a, b, executor=None), "DM_ERR_ARG", "unknown executor")
    # One rank asking for another executor than the rest: the same error everywhere.
    raises_everywhere(WORLD, lambda: dm.Halo(a, executor="nope" if WORLD.rank == SIZE - 1 else "pack"),
                      "DM_ERR_ARG", "unknown executor")


# ---------------------------------------------------------------------------
# Misuse of an exchange in flight
# ---------------------------------------------------------------------------

def _plans(grid):
    """(name, start, blocking, plan) for one plan of each capability on `grid`."""
    x = sample((8, 6), np.float64, seed=11)
    a = dm.DistArray.from_global(grid, x, ghost=1)
    d = dm.DistArray.zeros(grid, x.shape, ghost=1)
    c = dm.DistArray.zeros(grid, x.shape, dist=dm.Cyclic())
    halo = dm.Halo(a, corners=True)
    shift = dm.PShift(a, [dm.CShift(1, axis=0)])
    redist = dm.RedistPlan(a, c)
    return [("halo", lambda: halo.start(a), lambda: halo.exchange(a), halo),
            ("pshift", lambda: shift.start([d], [a]), lambda: shift.execute([d], [a]), shift),
            ("redist", lambda: redist.start(a, c), lambda: redist.execute(a, c), redist)]


@pytest.mark.parallel(nprocs=MAIN)
def test_start_twice_without_wait_fails_everywhere():
    if not MISTAKES_RETURN:
        pytest.skip("outside checked mode this mistake ends the job by design")
    grid = dm.ProcessGrid(dims=2, periods=[True, True])
    for name, start, blocking, _ in _plans(grid):
        ex = start()
        raises_everywhere(WORLD, start, "DM_ERR_STATE", r"in flight")
        raises_everywhere(WORLD, blocking, "DM_ERR_STATE", r"in flight")
        ex.wait()
        ex.wait()  # waiting again does nothing
        start().wait()  # the plan works on after the refused calls
        blocking()


@pytest.mark.parallel(nprocs=MAIN)
def test_free_with_an_exchange_in_flight_fails_everywhere():
    grid = dm.ProcessGrid(dims=2, periods=[True, True])
    for name, start, blocking, plan in _plans(grid):
        if not hasattr(plan, "free"):
            continue
        ex = start()
        raises_everywhere(WORLD, plan.free, "DM_ERR_STATE", r"in flight")
        ex.wait()
        blocking()  # still usable: the refused free() changed nothing
        plan.free()
        raises_everywhere(WORLD, blocking, "DM_ERR_STATE", r"after free\(\)")


@pytest.mark.parallel(nprocs=MAIN)
def test_exchange_keeps_its_arrays_alive():
    """Dropping the last reference to an array in flight is safe: the Exchange holds it
    until wait(), and lets it go then."""
    periods = [True, True]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((8, 6), np.float64, seed=12)
    a = ghosted(grid, x, 1)
    halo = dm.Halo(a, corners=True)
    storage, ref = a.local_with_ghosts, weakref.ref(a)
    ex = halo.start(a)
    del a
    gc.collect()
    kept = ref() is not None
    ex.wait()
    gc.collect()
    check_all(WORLD, kept and ref() is None, f"kept while in flight: {kept}; released after wait: {ref() is None}")
    b = ghosted(grid, x, 1)
    halo.exchange(b)
    check_same_array(WORLD, storage, b.local_with_ghosts, "the ghosts filled while the array had no other owner")


@pytest.mark.parallel(nprocs=MAIN)
def test_end_without_begin_fails_everywhere():
    """The core plans refuse end() without begin() (the Python Exchange never calls it twice)."""
    if not MISTAKES_RETURN:
        pytest.skip("outside checked mode this mistake ends the job by design")
    grid = dm.ProcessGrid(dims=2, periods=[True, True])
    for name, _, _, plan in _plans(grid):
        raises_everywhere(WORLD, plan._plan.end, "DM_ERR_STATE", r"end without begin")


@pytest.mark.parallel(nprocs=MAIN)
def test_wrong_array_in_start_fails_everywhere():
    if not MISTAKES_RETURN:
        pytest.skip("outside checked mode this mistake ends the job by design")
    grid = dm.ProcessGrid(dims=2, periods=[True, True])
    a = dm.DistArray.zeros(grid, (8, 6), ghost=1)
    other = dm.DistArray.zeros(grid, (8, 6), ghost=2)
    halo = dm.Halo(a)
    raises_everywhere(WORLD, lambda: halo.start(other), "DM_ERR_ARG", r"differs from the prototype")
    raises_everywhere(WORLD, lambda: halo.start(a.local), "DM_ERR_ARG", r"expected DistArray")
    raises_everywhere(WORLD, lambda: halo.exchange(None), "DM_ERR_ARG", r"expected DistArray")
    # On one rank only: still the same error everywhere, and nothing left in flight.
    raises_everywhere(WORLD, lambda: halo.start(other if WORLD.rank == SIZE - 1 else a), "DM_ERR_ARG",
                      r"differs from the prototype")
    halo.start(a).wait()


# The on-node transport: arrays datamotion allocates are node memory, read in place by
# the ranks of this node; memory a user adopted is packed into the sender's staging
# buffer of node memory and unpacked from there.


def _adopted_copy(a):
    """An array of a's layout over memory this process allocated (not node memory)."""
    memory = np.array(a.local_with_ghosts, copy=True)
    return dm.DistArray.adopt(a.grid, memory, a.shape, dist=a.dist, ghost=a.ghost)


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("executor", ["auto", "onnode"])
def test_on_node_reads_node_memory_and_falls_back_for_adopted_memory(executor):
    """A redistribution large enough for the on-node transport: its messages are read
    in place while the source is node memory; bound to an adopted source, the same
    plan packs them into node memory for the receiver, saying why; both move every
    element right."""
    x = sample((384, 512), np.float64, seed=9)  # >= 16 KiB between every pair at 8 ranks
    grid = dm.ProcessGrid(dims=[1, SIZE])
    a = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(3))
    b = dm.DistArray.from_global(dm.ProcessGrid(dims=[SIZE, 1]), np.zeros_like(x), dist=dm.Block())
    plan = dm.RedistPlan(a, b, "nonblocking", executor=executor)
    text = plan.describe()
    check_all(WORLD, not ON_NODE or "on-node: the receiver reads it in place" in text, text)
    plan.execute(a, b)
    check_same_array(WORLD, b.to_global(), x, "node memory")
    adopted = _adopted_copy(a)
    b.local[...] = 0
    plan.execute(adopted, b)
    check_same_array(WORLD, b.to_global(), x, "adopted source")
    text = plan.describe()
    check_all(WORLD, not ON_NODE or "packed it into node memory for the receiver to unpack (the sender's buffer "
                                    "is not node memory" in text, text)
    b.local[...] = 0
    plan.execute(a, b)  # back to node memory: read in place again
    check_same_array(WORLD, b.to_global(), x, "node memory again")
    check_all(WORLD, "by MPI" not in plan.describe(), plan.describe())


@pytest.mark.parallel(nprocs=[2, 4])
def test_auto_sends_faces_sparse_in_memory_by_message():
    """Ghost faces normal to the last axis are 8-byte runs a row apart: read in place,
    each would cost a cache line, so auto packs them (saying why) while faces of
    whole rows go on-node; forced onnode reads both in place; both match the oracle."""
    periods = [True, True, True]
    grid = dm.ProcessGrid(dims=[1, SIZE // 2, 2], periods=periods)
    x = sample((40, 40 * (SIZE // 2), 80), np.float64, seed=13)  # faces of >= 12 KiB
    coords = list(grid.coords)
    coords[2] = 1 - coords[2]
    mate_on_node = NODE_MEMORY and LAYOUT.same_node(WORLD.rank, grid.rank_of(coords))  # the last axis's neighbour
    for executor in ("auto", "onnode"):
        a = ghosted(grid, x, 1)
        halo = dm.Halo(a, executor=executor)
        text = halo.describe()
        sparse = "sparse in the sender's memory" in text
        check_all(WORLD, sparse == (mate_on_node and executor == "auto"), text)
        halo.exchange(a)
        check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, periods, False)),
                         f"executor {executor}")


@pytest.mark.parallel(nprocs=[2, 3])
def test_messages_name_the_transport_planned_for_each():
    """messages() (what the models price) says which transport carries each message:
    the same as describe() says, onnode where auto reads in place (between ranks of
    one node), the forced way otherwise; local copies are "copy"; a message's two
    sides agree."""
    grid = dm.ProcessGrid(dims=[SIZE, 1])
    for executor in ("auto", "pack", "onnode"):
        src = dm.DistArray.zeros(grid, (64 * SIZE, 512), dist=[dm.Cyclic(), dm.Block()])
        dst = dm.DistArray.zeros(grid, (64 * SIZE, 512), dist=[dm.Block(), dm.Block()])
        plan = dm.RedistPlan(src, dst, method="nonblocking", executor=executor)
        shapes = plan.messages()
        everyone = WORLD.allgather(shapes)
        sides = {}
        for rank, mine in enumerate(everyone):
            for m in mine:
                if m["peer"] >= 0:
                    key = (rank, m["peer"]) if m["sending"] else (m["peer"], rank)
                    sides.setdefault(key, set()).add(m["transport"])
        reads_in_place = False  # some message of this rank goes on-node
        for key, transports in sides.items():
            on_node = NODE_MEMORY and LAYOUT.same_node(*key) and executor in ("auto", "onnode")
            reads_in_place = reads_in_place or (on_node and WORLD.rank in key)
            check_all(WORLD, len(transports) == 1, f"{executor}: the two sides of {key} disagree: {transports}")
            if on_node:
                check_all(WORLD, transports == {"onnode"}, f"{executor}: {key} by {transports}")
            else:
                check_all(WORLD, "onnode" not in transports, f"{executor}: {key} by {transports}")
        check_all(WORLD, all(m["transport"] == "copy" for m in shapes if m["peer"] < 0), str(shapes))
        check_all(WORLD, ("on-node: the receiver reads it in place" in plan.describe()) == reads_in_place,
                  plan.describe())


@pytest.mark.parallel(nprocs=[1, 2, 3])
@pytest.mark.parametrize("executor", ["auto", "pack", "datatype", "hybrid"])
def test_messages_say_the_way_describe_counts(executor):
    """messages() gives each side's way and MPI messages as describe() counts them:
    per side, the number of direct, packed and datatype messages and of MPI messages
    alike; copies and messages another transport carries have no way."""
    grid = dm.ProcessGrid(dims=[SIZE, 1])
    src = dm.DistArray.zeros(grid, (64 * SIZE, 512), dist=[dm.Cyclic(), dm.Block()])
    dst = dm.DistArray.zeros(grid, (64 * SIZE, 512), dist=[dm.Block(), dm.BlockCyclic(3)])
    plan = dm.RedistPlan(src, dst, method="nonblocking", executor=executor)
    shapes, text = plan.messages(), plan.describe()
    for name, sending in (("send", True), ("receive", False)):
        line = next(l for l in text.splitlines() if l.startswith(f"  {name}: "))
        by_mpi = [m for m in shapes if m["peer"] >= 0 and m["sending"] == sending and m["way"]]
        counts = "; ".join(f"{sum(m['way'] == w for m in by_mpi)} {w}" for w in ("direct", "packed", "datatype"))
        said = line.split("; ")[-1].replace(", ", "; ")
        check_all(WORLD, said == counts, f"{executor} {name}: describe() says {said!r}, messages() {counts!r}")
        check_all(WORLD, f"{sum(m['pieces'] for m in by_mpi)} MPI messages" in line, f"{line}\n{shapes}")
    check_all(WORLD, all(m["way"] == "" and m["pieces"] == 0 for m in shapes if m["peer"] < 0), str(shapes))


@pytest.mark.parallel(nprocs=WITH_8)
def test_on_node_halo_of_a_large_box_matches_the_oracle():
    """Ghost faces above the on-node size, read in place from the neighbours, with
    corners; exchanged twice (the second reuses everything)."""
    periods = [True, True]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((160, 3000), np.float64, seed=11)
    for executor in ("auto", "onnode"):
        a = ghosted(grid, x, 2)
        halo = dm.Halo(a, corners=True, executor=executor)
        for repeat in range(2):
            halo.exchange(a)
            check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, periods, True)),
                             f"executor {executor}, exchange {repeat}")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("executor", EXECUTORS)
def test_test_advances_an_exchange_until_it_is_done(executor):
    """Exchange.test() between pieces of computation: it reports done at last (the
    messages cannot stay in flight for ever while it is called), wait() completes,
    and the results are the oracle's: halo, redistribution of several rounds, PShift."""
    periods = [True, True]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((200, 120), np.float64, seed=13)

    def drive(ex):
        polls = 0  # test() is local: no collective inside the loop
        while polls < 10**7 and not ex.test():
            polls += 1
        check_all(WORLD, polls < 10**7, "test() never reported done")
        ex.wait()
        check_all(WORLD, ex.test(), "test() after wait()")

    a = ghosted(grid, x, 2)
    halo = dm.Halo(a, corners=True, executor=executor)
    drive(halo.start(a))
    check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, periods, True)), "halo")
    src = dm.DistArray.from_global(dm.ProcessGrid(dims=[1, SIZE]), x, dist=dm.BlockCyclic(4))
    dst = dm.DistArray.from_global(dm.ProcessGrid(dims=[SIZE, 1]), np.zeros_like(x), dist=dm.BlockCyclic(3))
    for method in ("nonblocking", "sendrecv"):
        plan = dm.RedistPlan(src, dst, method, executor=executor)
        dst.local[...] = 0
        drive(plan.start(src, dst))
        check_same_array(WORLD, dst.to_global(), x, f"redistribution, {method}")
    b = dm.DistArray.from_global(grid, np.zeros_like(x), ghost=2)
    shift = dm.PShift(a, [dm.CShift(3, axis=0)], executor=executor)
    drive(shift.start([b], [a]))
    check_same_array(WORLD, b.to_global(), np.roll(x, -3, axis=0), "pshift")


@pytest.mark.parallel(nprocs=MAIN)
def test_messages_between_nodes_are_priced_by_the_lines_between_nodes():
    """The auto executor prices each side of a message by the lines of its locality
    (cost.hpp): describe() says "model across nodes" for exactly the messages whose
    peer is on another node (emulated nodes too), "model" for the others."""
    grid = dm.ProcessGrid(dims=[1, SIZE])
    a = dm.DistArray.empty(grid, [64, 8 * SIZE], ghost=[0, 1])  # 64 runs of 64 B a message
    described = dm.PShift(a, [dm.CShift(8, axis=1)], executor="auto").describe()
    priced = re.findall(r"^  (?:to|from) rank (\d+)(?: \(round \d+\))?: .*\(model( across nodes)?: ", described, re.M)
    wrong = [peer for peer, across in priced if bool(across) == LAYOUT.same_node(WORLD.rank, int(peer))]
    check_all(WORLD, not wrong and (SIZE == 1 or len(priced) > 0), described)


@pytest.mark.parallel(nprocs=MAIN)
def test_aggregate_carries_every_message_between_nodes_through_the_leaders():
    """Executor aggregate: every message between ranks of different nodes (emulated
    nodes too) goes through the node leaders, the others as before, and a halo, a
    redistribution of several rounds and a PShift of two shifts match their oracles, twice
    (the node's area is reused), also split phase. On one node it takes nothing."""
    periods = [True, False]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((37, 23), np.float64, seed=5)
    a = ghosted(grid, x, 1)
    halo = dm.Halo(a, corners=True, executor="aggregate")
    for _ in range(2):
        with halo.start(a):
            pass
        check_same_array(WORLD, a.local_with_ghosts, safely(lambda: halo_oracle(a, x, periods, True)), "halo")
    for m in halo.messages():
        if m["peer"] >= 0:
            across = not LAYOUT.same_node(WORLD.rank, m["peer"])
            check_all(WORLD, (m["transport"] == "aggregate") == across, f"halo message {m}")
    check_all(WORLD, ("through the node leaders" in halo.describe()) == any(
        not LAYOUT.same_node(WORLD.rank, m["peer"]) for m in halo.messages() if m["peer"] >= 0), halo.describe())
    src = dm.DistArray.from_global(dm.ProcessGrid(dims=[1, SIZE]), x, dist=dm.BlockCyclic(2))
    dst = dm.DistArray.from_global(dm.ProcessGrid(dims=[SIZE, 1]), np.zeros_like(x), dist=dm.BlockCyclic(3))
    plan = dm.RedistPlan(src, dst, "sendrecv", executor="aggregate")
    for _ in range(2):
        dst.local[...] = 0
        plan.execute(src, dst)
        check_same_array(WORLD, dst.to_global(), x, "redistribution")
    b = dm.DistArray.from_global(grid, x, ghost=1)
    shift = dm.PShift(b, [dm.CShift(2, axis=0), dm.EOShift(-1, axis=1)], executor="aggregate")
    c, d = shift([b, b])
    check_same_array(WORLD, c.to_global(), np.roll(x, -2, axis=0), "pshift cshift")
    expected = np.zeros_like(x)
    expected[:, 1:] = x[:, :-1]
    check_same_array(WORLD, d.to_global(), expected, "pshift eoshift")
