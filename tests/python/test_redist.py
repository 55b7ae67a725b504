"""Redistribution: the seed's schedule theorems on every (P, K) up to 32, round
trips A -> layout L -> back on random shapes, distributions, grids and element
types at 1-8, 13 and 16 ranks (Hypothesis), every method, and bad input failing
the same way on every rank."""

import os
import tempfile

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from mpi4py import MPI

import datamotion as dm
from datamotion import _core, redist
from datamotion._exchange import EXECUTORS
from dmtest import (
    ALL, DTYPES, LARGE, MAIN, ORDERS, WORLD, bcast_case, check_all, dist_for, factorizations, raises_everywhere, sample,
    uneven_sizes,
)

SIZE = WORLD.size
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SIZE == 1 else [])
EXAMPLES = 60 if SIZE <= 4 else 30 if SIZE <= 8 else 4


def _is_permutation(row, n):
    return sorted(int(v) for v in row) == list(range(n))


@pytest.mark.parallel(nprocs=[1])
def test_optimal_schedule_matches_the_papers_figures():
    s = redist.optimal_schedule(16, 12)  # Figures 8 and 9
    assert list(s.send_block[0, :5]) == [0, 49, 98, 147, 36]
    assert list(s.send_block[11, -4:]) == [92, 141, 190, 47]
    assert list(s.send_proc[1, :4]) == [12, 0, 4, 8]
    assert list(s.send_local[4, :4]) == [1, 4, 7, 10]
    assert list(s.recv_block[3, 4:8]) == [48, 60, 72, 84]
    assert list(s.recv_proc[1, 12:]) == [0, 12, 8, 4]
    assert list(s.recv_slot[5, :8]) == [5, 5, 5, 5, 6, 6, 6, 6]
    small = redist.optimal_schedule(4, 3)  # Figure 6 (g = 1)
    assert small.send_block.tolist() == [[0, 9, 6, 3], [4, 1, 10, 7], [8, 5, 2, 11]]


@pytest.mark.parallel(nprocs=[1])
def test_schedule_theorems_hold_up_to_32():
    for P in range(1, 33):
        for K in range(1, 33):
            s = redist.optimal_schedule(P, K)
            k_index = np.arange(K)[:, None]
            # Every block of a superblock is sent exactly once, by the process that owns it.
            assert sorted(s.send_block.ravel().tolist()) == list(range(P * K))
            assert (s.send_block % P == np.arange(P)).all()
            assert (s.send_proc == (s.send_block // K) % P).all() and (s.send_local == s.send_block // P).all()
            # Permutation theorem: in each phase every process sends to and receives from exactly one.
            assert all(_is_permutation(s.send_proc[k], P) and _is_permutation(s.recv_proc[k], P) for k in range(K))
            # Each process sends each local block once and fills each slot once.
            assert all(_is_permutation(s.send_local[:, p], K) and _is_permutation(s.recv_slot[:, p], K)
                       for p in range(P))
            # Column p of the process schedule is a permutation of p's destinations.
            for p in range(P):
                wanted = sorted(((np.arange(K) * P + p) // K % P).tolist())
                assert sorted(s.send_proc[:, p].tolist()) == wanted
            # Compatibility theorems I and II (Eq. 12).
            assert (s.send_block[k_index, s.recv_block % P] == s.recv_block).all()
            assert (s.recv_block[k_index, s.send_block // K] == s.send_block).all()
            assert (s.recv_slot == s.recv_block % K).all()


@pytest.mark.parallel(nprocs=[1])
def test_simple_and_random_schedules_send_every_block_once():
    for P, K in [(1, 1), (3, 4), (4, 3), (6, 4)]:
        simple = redist.simple_schedule(P, K)
        assert (simple.send_block == np.arange(K)[:, None] * P + np.arange(P)).all()
        assert simple.recv_block is None
        shuffled = redist.random_schedule(P, K, seed=5)
        assert sorted(shuffled.send_block.ravel().tolist()) == list(range(P * K))
        assert (redist.random_schedule(P, K, seed=5).send_block == shuffled.send_block).all()
    with pytest.raises(dm.Error, match="P >= 1 and K >= 1"):
        redist.optimal_schedule(0, 3)


@st.composite
def layouts(draw, ndim):
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    order = draw(st.sampled_from(ORDERS))
    return dict(dims=dims, order=order, dist=[dist_for(draw, d, max_block=5) for d in dims], ghost=draw(st.integers(0, 1)))


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(0, 30 if ndim == 1 else 8)) for _ in range(ndim))
    return dict(shape=shape, dtype=np.dtype(draw(st.sampled_from(DTYPES))).name, a=draw(layouts(ndim)),
                b=draw(layouts(ndim)), method=draw(st.sampled_from(["auto", "alltoallw", "nonblocking", "sendrecv"])),
                seed=draw(st.integers(0, 2**16)))


def _array(layout, x):
    grid = dm.ProcessGrid(dims=list(layout["dims"]), order=layout["order"])
    return dm.DistArray.from_global(grid, x, dist=layout["dist"], ghost=layout["ghost"])


@pytest.mark.parallel(nprocs=ALL + LARGE)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=PHASES, database=None)
@given(case=cases())
def test_round_trips_through_random_layouts(case):
    case = bcast_case(WORLD, case)
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    a = _array(case["a"], x)
    b = _array(case["b"], np.zeros_like(x))
    there = redist.RedistPlan(a, b, case["method"]).execute(a, b)
    middle = there.to_global()
    back = _array(case["a"], np.zeros_like(x))
    redist.RedistPlan(b, back, case["method"]).execute(b, back)
    check_all(WORLD, np.array_equal(middle, x) and np.array_equal(back.to_global(), x),
              f"case {case}: the data changed on the way")


def _tiny_pieces_model():
    """The model in use with pieces of 256 bytes and datatype sends cut after every
    3 runs (priced free), so that small arrays exercise pipelined packing and
    split datatypes."""
    lines = []
    for line in _core.exchange_model().splitlines():
        key = line.split(" ", 1)[0]
        lines.append({"chunk_bytes": "chunk_bytes 256", "split_runs": "split_runs 3",
                      "split_min_bytes": "split_min_bytes 0", "send_split": "send_split 0 0 0"}.get(key, line))
    path = os.path.join(tempfile.gettempdir(), f"datamotion-test-model-{os.getpid()}.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


@pytest.mark.parallel(nprocs=ALL)
@pytest.mark.parametrize("executor", EXECUTORS)
@settings(max_examples=EXAMPLES // 3, deadline=None, derandomize=True, phases=PHASES, database=None)
@given(case=cases(), pieces=st.booleans())
def test_every_executor_against_the_oracle(executor, case, pieces):
    """Each executor forced by option, with the built-in model and with one that
    cuts every message into many pieces, on random layouts and element types."""
    case, pieces = bcast_case(WORLD, (case, pieces))
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    saved = os.environ.get("DM_EXCHANGE_MODEL")
    path = _tiny_pieces_model() if pieces else None
    try:
        if path:
            os.environ["DM_EXCHANGE_MODEL"] = path
        a = _array(case["a"], x)
        b = _array(case["b"], np.zeros_like(x))
        method = case["method"] if case["method"] != "alltoallw" else "nonblocking"
        plan = redist.RedistPlan(a, b, method, executor=executor)
        with plan.start(a, b):
            pass
        text = plan.describe()
        back = _array(case["a"], np.zeros_like(x))
        redist.RedistPlan(b, back, method, executor=executor).execute(b, back)
    finally:
        if saved is None:
            os.environ.pop("DM_EXCHANGE_MODEL", None)
        else:
            os.environ["DM_EXCHANGE_MODEL"] = saved
        if path:
            os.remove(path)
    said = f"executor {executor}" in text and (not pieces or "cost model, " + (path or "") in text)
    if pieces and executor in ("pack", "hybrid", "datatype") and plan.volume()["elements_sent"] * x.itemsize > 4096:
        said = said and " pieces" in text  # a message of more than 16 pieces of 256 bytes
    check_all(WORLD, np.array_equal(b.to_global(), x) and np.array_equal(back.to_global(), x) and said,
              f"executor {executor}, case {case}, pieces {pieces}:\n{text}")


@pytest.mark.parallel(nprocs=ALL)
@pytest.mark.parametrize("method", ["sendrecv", "simple", "random", "nonblocking", "alltoallw"])
def test_block_size_expansion_and_back(method):
    """The seed's case: r -> K r and K r -> r on every rank, including partial
    superblocks, a partial last block and arrays shorter than one superblock."""
    grid = dm.ProcessGrid(dims=[SIZE])
    for K in (2, 3, 4):
        for n in (0, 5, 4 * SIZE * K * 2, 4 * SIZE * K * 2 + 7):
            x = sample((n,), np.int32, seed=n + K)
            small = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(4))
            large = dm.DistArray.zeros(grid, (n,), np.int32, dist=dm.BlockCyclic(4 * K))
            plan = redist.RedistPlan(small, large, method)
            plan.execute(small, large)
            shrink = redist.RedistPlan(large, dm.DistArray.zeros(grid, (n,), np.int32, dist=dm.BlockCyclic(4)), method)
            back = shrink.execute(large, dm.DistArray.zeros(grid, (n,), np.int32, dist=dm.BlockCyclic(4)))
            volume = plan.volume()
            ok = (np.array_equal(large.to_global(), x) and np.array_equal(back.to_global(), x)
                  and plan.method == method)
            if method == "sendrecv":  # contention-free: at most one message per phase each way
                ok = ok and volume["phases"] <= K and volume["messages_sent"] <= K
            check_all(WORLD, ok, f"K {K} n {n}: volume {volume}")


@pytest.mark.parallel(nprocs=MAIN)
def test_two_dimensional_changes_of_block_and_grid():
    x = sample((37, 23), np.float64, seed=3)
    for dims_a, dims_b in [((SIZE, 1), (1, SIZE))] + [(f, f[::-1]) for f in factorizations(SIZE, 2)]:
        ga, gb = dm.ProcessGrid(dims=list(dims_a)), dm.ProcessGrid(dims=list(dims_b))
        a = dm.DistArray.from_global(ga, x, dist=[dm.BlockCyclic(3), dm.BlockCyclic(2)])
        b = redist.redistribute(a, dist=[dm.BlockCyclic(4), dm.Cyclic()], grid=gb)
        c = redist.redistribute(b, dist=[dm.BlockCyclic(12), dm.BlockCyclic(2)], grid=ga, method="sendrecv")
        d = redist.redistribute(c, dist=[dm.BlockCyclic(4), dm.BlockCyclic(6)], method="per-axis")
        plan = redist.RedistPlan(d, c, "per-axis")
        e = plan.execute(d, dm.DistArray.zeros(ga, x.shape, dist=[dm.BlockCyclic(12), dm.BlockCyclic(2)]))
        ok = (np.array_equal(b.to_global(), x) and np.array_equal(c.to_global(), x) and b.grid is gb
              and np.array_equal(d.to_global(), x) and np.array_equal(e.to_global(), x))
        check_all(WORLD, ok, f"{dims_a} -> {dims_b}")


@pytest.mark.parallel(nprocs=MAIN)
def test_auto_keeps_every_message_in_flight_below_the_bound():
    # Priced by the exchange model; past 64 MiB a rank it would take "sendrecv"
    # (tests/cpp/test_redist.cpp plans that without allocating it).
    grid = dm.ProcessGrid(dims=[SIZE])
    a = dm.DistArray.from_global(grid, np.arange(1000.0), dist=dm.BlockCyclic(2))
    b = dm.DistArray.zeros(grid, (1000,), dist=dm.BlockCyclic(6))
    plan = redist.RedistPlan(a, b)
    expensive_latency = {"models": {"pingpong": {"fit": {"segments": [{"t0_us": 1e6, "us_per_byte": 1e-4}]}}}}
    with pytest.warns(DeprecationWarning, match="ignored"):
        old = redist.RedistPlan(a, b, model=expensive_latency)
    check_all(WORLD, plan.method == "nonblocking" and old.method == "nonblocking"
              and np.array_equal(plan.execute(a, b).to_global(), np.arange(1000.0)), plan.method)


@pytest.mark.parallel(nprocs=MAIN)
def test_bad_redistributions_fail_everywhere():
    grid = dm.ProcessGrid(dims=[SIZE])
    a = dm.DistArray.zeros(grid, (10,), np.float64, dist=dm.BlockCyclic(2))
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, dm.DistArray.zeros(grid, (11,), np.float64)),
                      "DM_ERR_ARG", r"shapes differ: source \(10,\), destination \(11,\)$")
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, dm.DistArray.zeros(grid, (10,), np.int32)),
                      "DM_ERR_TYPE", "float64")
    three = dm.DistArray.zeros(grid, (10,), np.float64, dist=dm.BlockCyclic(3))
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, three, "simple"), "DM_ERR_ARG", "integer factor")
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, three, "teleport" if WORLD.rank == SIZE - 1 else "auto"),
                      "DM_ERR_ARG", "unknown method")
    if SIZE > 1:
        raises_everywhere(WORLD, lambda: redist.RedistPlan(a, three, "alltoallw" if WORLD.rank else "sendrecv"),
                          "DM_ERR_MISMATCH", "method")
    other = dm.DistArray.zeros(dm.ProcessGrid(dims=[SIZE]), (10,), np.float64, dist=dm.BlockCyclic(3))
    if SIZE > 1:
        two_d = dm.DistArray.zeros(dm.ProcessGrid(dims=[1, SIZE]), (10, 1), np.float64)
        tall = dm.DistArray.zeros(dm.ProcessGrid(dims=[SIZE, 1]), (10, 1), np.float64)
        raises_everywhere(WORLD, lambda: redist.RedistPlan(two_d, tall, "per-axis"), "DM_ERR_ARG", "same shape")
    redist.RedistPlan(a, other, "per-axis").execute(a, other)  # another grid object of the same shape is fine
    plan = redist.RedistPlan(a, three)
    raises_everywhere(WORLD, lambda: plan.execute(three, a), "DM_ERR_ARG",
                      r"source's layout is not the planned one: distribution \(BlockCyclic\(r=2, src=0\),\) "
                      r"expected, \(BlockCyclic\(r=3, src=0\),\) given$")
    raises_everywhere(WORLD, lambda: plan.execute(a, a), "DM_ERR_ARG", "different arrays")
    raises_everywhere(WORLD, lambda: redist.redistribute(a, dist=dm.BlockCyclic(0)), "DM_ERR_ARG", "block")


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dtype", DTYPES, ids=[np.dtype(t).name for t in DTYPES])
def test_sizes_to_and_from_every_distribution(dtype):
    """Sizes (coordinate 0 owning nothing) to block-cyclic, to other sizes and back, on
    one irregular axis of a 2-d array, by every method that applies and across grids
    (float64; the other types by auto at one length: the methods do not look at it)."""
    tall, square = dm.ProcessGrid(dims=[SIZE, 1]), dm.ProcessGrid(dims=2)
    every = np.dtype(dtype) == np.float64
    methods = ["auto", "alltoallw", "nonblocking", "sendrecv"] if every else ["auto"]
    for n in (0, 1, 9, 26) if every else (26,):
        x = sample((n, 3), dtype, seed=n)
        a = dm.DistArray.from_global(tall, x, dist=[uneven_sizes(n, SIZE, n), dm.Block()])
        targets = [(tall, [dm.BlockCyclic(2), dm.Block()]), (tall, [uneven_sizes(n, SIZE, n + 1), dm.Cyclic()]),
                   (square, [uneven_sizes(n, square.dims[0], n + 2), dm.BlockCyclic(2, square.dims[1] - 1)]),
                   (square, [dm.Cyclic(), uneven_sizes(3, square.dims[1], n)]), (tall, [dm.Sizes([n] + [0] * (SIZE - 1)),
                                                                                       dm.Block()])]
        for grid, dist in targets:
            for method in methods + (["per-axis"] if grid is tall and every else []):
                b = redist.redistribute(a, dist=dist, grid=grid, method=method)
                back = redist.redistribute(b, dist=list(a.dist), grid=tall, method=method)
                check_all(WORLD, np.array_equal(b.to_global(), x) and np.array_equal(back.to_global(), x)
                          and b.dist == tuple(dist), f"n {n} {dist} on {grid.dims} by {method}")


@pytest.mark.parallel(nprocs=MAIN)
def test_sizes_between_process_groups_and_bad_sizes():
    x = sample((11,), np.float64, seed=2)
    low = WORLD.Split(0 if WORLD.rank < max(1, SIZE - 1) else MPI.UNDEFINED, WORLD.rank)
    a = b = None
    if low != MPI.COMM_NULL:
        a = dm.DistArray.from_global(dm.ProcessGrid(low), x, dist=uneven_sizes(11, low.size, 3))
    high = WORLD.Split(0 if WORLD.rank >= SIZE // 2 else MPI.UNDEFINED, WORLD.rank)
    if high != MPI.COMM_NULL:
        b = dm.DistArray.zeros(dm.ProcessGrid(high), (11,), dist=uneven_sizes(11, high.size, 4))
    redist.RedistPlan(a, b, comm=WORLD).execute(a, b)
    check_all(WORLD, b is None or np.array_equal(b.to_global(), x), "between groups")
    # The Walker-Otto schedules need block-cyclic axes: a clear error; the others plan.
    grid = dm.ProcessGrid()
    s = dm.DistArray.from_global(grid, x, dist=uneven_sizes(11, SIZE, 5))
    raises_everywhere(WORLD, lambda: redist.RedistPlan(s, dm.DistArray.zeros(grid, (11,), dist=dm.BlockCyclic(2)),
                                                       "simple"), "DM_ERR_ARG", "integer factor")
    raises_everywhere(WORLD, lambda: redist.redistribute(s, dist=dm.Sizes([12] + [0] * (SIZE - 1))), "DM_ERR_ARG",
                      "sum to 12, not to the axis length 11")
    plan = redist.RedistPlan(s, dm.DistArray.zeros(grid, (11,), dist=dm.Block()))
    other = dm.DistArray.zeros(grid, (11,), dist=dm.Sizes([11] + [0] * (SIZE - 1)))  # not s's: coordinate 0 owns all
    if SIZE > 1:
        raises_everywhere(WORLD, lambda: plan.execute(other, dm.DistArray.zeros(grid, (11,))), "DM_ERR_ARG",
                          r"source's layout is not the planned one: distribution \(Sizes\(\[")


@st.composite
def group_cases(draw):
    """Two grids on groups of COMM_WORLD's ranks (sizes 1..SIZE, possibly
    overlapping or disjoint), shapes, distributions and a dtype."""
    ndim = draw(st.integers(1, 2))
    groups = []
    for _ in range(2):
        count = draw(st.integers(1, SIZE))
        first = draw(st.integers(0, SIZE - count))
        dims = draw(st.sampled_from(factorizations(count, ndim)))
        groups.append(dict(first=first, count=count, dims=dims, dist=[dist_for(draw, d, max_block=5) for d in dims]))
    shape = tuple(draw(st.integers(0, 20 if ndim == 1 else 7)) for _ in range(ndim))
    return dict(shape=shape, groups=groups, dtype=np.dtype(draw(st.sampled_from(DTYPES))).name,
                method=draw(st.sampled_from(["auto", "alltoallw", "nonblocking", "sendrecv"])),
                seed=draw(st.integers(0, 2**16)))


def _on_group(group, x):
    """Collective on WORLD: the array on the group's grid, or None off it."""
    members = range(group["first"], group["first"] + group["count"])
    sub = WORLD.Split(0 if WORLD.rank in members else MPI.UNDEFINED, WORLD.rank)
    if sub == MPI.COMM_NULL:
        return None
    grid = dm.ProcessGrid(sub, dims=list(group["dims"]))
    return dm.DistArray.from_global(grid, x, dist=group["dist"])


@pytest.mark.parallel(nprocs=ALL + LARGE)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=PHASES, database=None)
@given(case=group_cases())
def test_round_trips_between_process_groups(case):
    case = bcast_case(WORLD, case)
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    a = _on_group(case["groups"][0], x)
    b = _on_group(case["groups"][1], np.zeros_like(x))
    redist.RedistPlan(a, b, case["method"], comm=WORLD).execute(a, b)
    back = _on_group(case["groups"][0], np.zeros_like(x))
    redist.RedistPlan(b, back, case["method"], comm=WORLD).execute(b, back)
    ok = (b is None or np.array_equal(b.to_global(), x)) and (back is None or np.array_equal(back.to_global(), x))
    check_all(WORLD, ok, f"case {case}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_bad_group_plans_fail_everywhere():
    low = WORLD.Split(0 if WORLD.rank == 0 else MPI.UNDEFINED, WORLD.rank)
    a = dm.DistArray.zeros(dm.ProcessGrid(low, dims=[1]), (6,)) if WORLD.rank == 0 else None
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, None, comm=WORLD), "DM_ERR_ARG",
                      "no rank holds the destination")
    high = WORLD.Split(0 if WORLD.rank > 0 else MPI.UNDEFINED, WORLD.rank)
    b = dm.DistArray.zeros(dm.ProcessGrid(high, dims=[SIZE - 1]), (7,)) if WORLD.rank > 0 else None
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, b, comm=WORLD), "DM_ERR_ARG", "shapes differ")
    c = dm.DistArray.zeros(dm.ProcessGrid(high, dims=[SIZE - 1]), (6,), np.int32) if WORLD.rank > 0 else None
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, c, comm=WORLD), "DM_ERR_TYPE", "float64")
    d = dm.DistArray.zeros(dm.ProcessGrid(high, dims=[SIZE - 1]), (6,)) if WORLD.rank > 0 else None
    plan = redist.RedistPlan(a, d, comm=WORLD)
    raises_everywhere(WORLD, lambda: plan.execute(None, d), "DM_ERR_ARG", "pass the arrays this rank holds")


@pytest.mark.parallel(nprocs=MAIN)
def test_redistribute_reuses_its_plan_and_fills_every_element():
    grid = dm.ProcessGrid(dims=2)
    x = sample((9, 7), np.float64, seed=4)
    a = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(2))
    outs = [dm.redistribute(a, dm.Cyclic()) for _ in range(3)]
    with_ghosts = dm.redistribute(a, dm.Block(), ghost=1)
    for out in outs + [with_ghosts]:
        np.testing.assert_array_equal(out.to_global(), x)
    ring = np.ones(with_ghosts.local_with_ghosts.shape, bool)
    ring[tuple(slice(1, n + 1) for n in with_ghosts.local_shape)] = False
    check_all(WORLD, not np.any(with_ghosts.local_with_ghosts[ring]), "ghosts of a redistributed array start zero")
    check_all(WORLD, len(a.grid._plans) == 2, f"{len(a.grid._plans)} plans kept for two layouts")


@pytest.mark.parallel(nprocs=MAIN)
def test_redistribute_keeps_the_source_ghost_widths_unless_told():
    grid = dm.ProcessGrid(dims=2)
    x = sample((9, 7), np.float64, seed=6)
    a = dm.DistArray.from_global(grid, x, ghost=[2, 1])
    tall = dm.ProcessGrid(dims=[SIZE, 1])
    kept = dm.redistribute(a, dm.BlockCyclic(2), grid=tall)
    none = dm.redistribute(a, dm.Cyclic(), ghost=0)
    other = dm.redistribute(a, ghost=3)
    widths = (kept.ghost, none.ghost, other.ghost)
    check_all(WORLD, widths == ((2, 1), (0, 0), (3, 3)), f"ghost widths {widths}")
    for out in (kept, none, other):
        check_all(WORLD, np.array_equal(out.to_global(), x), "every element where it belongs")


@st.composite
def transform_cases(draw):
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(0, 30 if ndim == 1 else 8)) for _ in range(ndim))
    dtype = np.dtype(draw(st.sampled_from([d for d in DTYPES if np.dtype(d) != np.bool_])))
    numbers = st.sampled_from([0, 1, -2, 3] + ([0.5] if dtype.kind in "fc" else []))  # integer types: integer factors
    return dict(shape=shape, dtype=dtype.name,
                a=draw(layouts(ndim)), b=draw(layouts(ndim)), transpose=draw(st.sampled_from([False, True, "T", "H"])),
                alpha=draw(numbers), beta=draw(numbers), method=draw(st.sampled_from(["auto", "alltoallw", "sendrecv"])),
                seed=draw(st.integers(0, 2**16)))


@pytest.mark.parallel(nprocs=ALL)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, phases=PHASES, database=None)
@given(case=transform_cases())
def test_transforms_against_numpy(case):
    """dst = alpha op(src) + beta dst, op the transposition (NumPy's .T, and its
    conjugate for "H"), between random layouts and grids: NumPy's oracle in the
    element type, exactly (integer-valued samples and small factors)."""
    case = bcast_case(WORLD, case)
    dtype = np.dtype(case["dtype"])
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    old = sample(case["shape"][::-1] if case["transpose"] else case["shape"], case["dtype"], seed=case["seed"] + 1)
    a, b = _array(case["a"], x), _array(case["b"], old)
    plan = redist.RedistPlan(a, b, case["method"], transpose=case["transpose"])
    plan.execute(a, b, alpha=case["alpha"], beta=case["beta"])
    moved = x.T if case["transpose"] else x
    if case["transpose"] == "H":
        moved = np.conj(moved)
    want = np.asarray(case["alpha"] * moved + case["beta"] * old) if case["beta"] != 0 \
        else np.asarray(case["alpha"] * moved)
    got = b.to_global()
    close = np.allclose(got, want.astype(dtype), rtol=1e-6 if dtype.itemsize <= 8 and dtype.kind != "c" else 1e-12) \
        if dtype.kind in "fc" else np.array_equal(got, np.round(want).astype(dtype))
    check_all(WORLD, close, f"case {case}: got\n{got}\nwant\n{want}")


@pytest.mark.parallel(nprocs=MAIN)
def test_transform_mistakes_fail_everywhere():
    grid = dm.ProcessGrid(dims=[SIZE, 1])
    a = dm.DistArray.zeros(grid, (3, 4), np.float64)
    b = dm.DistArray.zeros(grid, (4, 3), np.float64)
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, b, transpose="X"), match="transpose must be")
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, a, transpose=True), match="shape")
    raises_everywhere(WORLD, lambda: redist.RedistPlan(a, b, "per-axis", transpose=True), match="per-axis")
    plan = redist.RedistPlan(a, b, transpose=True)
    raises_everywhere(WORLD, lambda: plan.execute(a, b, alpha="two"), match="alpha and beta must be numbers")
    flags = dm.DistArray.zeros(grid, (3, 4), np.bool_)
    flags_t = dm.DistArray.zeros(grid, (4, 3), np.bool_)
    raises_everywhere(WORLD, lambda: redist.RedistPlan(flags, flags_t, transpose=True).execute(flags, flags_t, alpha=2),
                      match="bool values cannot be scaled")
