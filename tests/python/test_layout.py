"""Process grids, grid orders, axis distributions, numroc and descinit."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpi4py import MPI

import datamotion as dm
from datamotion import _core
from dmtest import (
    MAIN, ORDER_CODES, ORDERS, WITH_8, WORLD, AxisOracle, bits, cells, check_all, check_grid, factorizations, gray,
    interleaved, is_power_of_two, numroc, raises_everywhere, safely,
)

# ---------------------------------------------------------------------------
# ProcessGrid
# ---------------------------------------------------------------------------


@pytest.mark.parallel(nprocs=WITH_8)
def test_grid_default_is_one_axis_over_all_ranks():
    g = dm.ProcessGrid()
    check_grid(WORLD, g, (WORLD.size,))


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dims", [None, 1, 2, 3, [0, 1], [1, 0]], ids=["none", "1", "2", "3", "col", "row"])
def test_default_order_is_mpi_cart_create_order(dims):
    # Rank r sits where MPI_Cart_create (no reordering) puts it: rank r owns block r.
    g = dm.ProcessGrid(dims=dims)
    cart = WORLD.Create_cart(list(g.dims), reorder=False)
    try:
        check_all(WORLD, g.order == "send" and g.coords == tuple(cart.Get_coords(WORLD.rank)),
                  f"{g!r}: rank {WORLD.rank} at {g.coords}, MPI_Cart_coords {cart.Get_coords(WORLD.rank)}")
    finally:
        cart.Free()
    if g.ndim == 1:
        n = 3 * WORLD.size + 1
        b = -(-n // WORLD.size)
        a = dm.DistArray.from_global(g, np.arange(n))
        check_all(WORLD, a.local.tolist() == list(range(WORLD.rank * b, min((WORLD.rank + 1) * b, n))),
                  f"rank {WORLD.rank} owns {a.local.tolist()}, not block {WORLD.rank}")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("ndim", [1, 2, 3, 7])
def test_grid_int_dims_are_chosen_like_dims_create(ndim):
    g = dm.ProcessGrid(dims=ndim)
    check_grid(WORLD, g, MPI.Compute_dims(WORLD.size, ndim))


@pytest.mark.parallel(nprocs=WITH_8)
def test_grid_zeros_are_chosen_and_fixed_extents_kept():
    size = WORLD.size
    check_grid(WORLD, dm.ProcessGrid(dims=[0, 1]), (size, 1))
    check_grid(WORLD, dm.ProcessGrid(dims=[1, 0]), (1, size))
    check_grid(WORLD, dm.ProcessGrid(dims=[0, 0]), MPI.Compute_dims(size, 2))
    check_grid(WORLD, dm.ProcessGrid(dims=[1, 0, 1]), (1, size, 1))
    check_grid(WORLD, dm.ProcessGrid(dims=[size, 0]), (size, 1))
    if size % 2 == 0:
        check_grid(WORLD, dm.ProcessGrid(dims=[0, 2]), (size // 2, 2))


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_grid_every_given_factorization(order, ndim):
    for dims in factorizations(WORLD.size, ndim):
        check_grid(WORLD, dm.ProcessGrid(dims=list(dims), order=order), dims, order=order)


@pytest.mark.parallel(nprocs=[8])
@pytest.mark.parametrize("order", ORDERS)
def test_grid_orders_on_eight_ranks(order):
    for dims in [(8,), (2, 4), (4, 2), (2, 2, 2), (1, 8, 1)]:
        check_grid(WORLD, dm.ProcessGrid(dims=list(dims), order=order), dims, order=order)


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("order", ORDERS)
def test_grid_coords_follow_the_order(order):
    g = dm.ProcessGrid(dims=[0, 0], order=order)
    if order == "send":
        expected = tuple(int(c) for c in np.unravel_index(WORLD.rank, g.dims))
        check_all(WORLD, g.coords == expected, f"send coords {g.coords} != {expected}")
    elif all(is_power_of_two(d) for d in g.dims):
        key = (interleaved(g.coords, g.dims) if order == "shuffle"
               else (gray(g.coords[0]) << bits(g.dims[1])) | gray(g.coords[1]))
        check_all(WORLD, key == WORLD.rank, f"{order} rank {WORLD.rank} at {g.coords} (key {key})")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("order", ORDERS)
def test_grid_periods_wrap(order):
    g = dm.ProcessGrid(dims=[0, 0], periods=[True, False], order=order)
    d0, d1 = g.dims

    def local_checks():  # run through safely(): a local error must not leave the other ranks waiting
        c0, c1 = g.coords
        problems = []
        if g.periods != (True, False):
            problems.append(f"periods {g.periods}")
        for shift in (-2 * d0, -d0, d0, 3 * d0):
            if g.rank_of((c0 + shift, c1)) != WORLD.rank:
                problems.append(f"rank_of({c0 + shift}, {c1}) does not wrap")
        if g.rank_of(((c0 + 1) % d0, c1)) != g.rank_of((c0 + 1 + d0, c1)):
            problems.append("neighbour across the wrap")
        # Off the grid on the non-periodic axis: a (local) error.
        try:
            g.rank_of((c0, d1))
            problems.append("rank_of off a non-periodic axis did not fail")
        except dm.Error as e:
            if e.status != "DM_ERR_ARG":
                problems.append(f"status {e.status}")
        return problems

    problems = safely(local_checks)
    check_all(WORLD, problems == [], f"{problems}")
    check_grid(WORLD, g, (d0, d1), order=order, periods=[True, False])
    assert WORLD.size == d0 * d1


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_all_periodic_and_none_periodic():
    for periods in ([True], [False], [1], [0]):
        g = dm.ProcessGrid(dims=None, periods=periods)
        check_all(WORLD, g.periods == (bool(periods[0]),), f"periods {g.periods}")
    g = dm.ProcessGrid(dims=3, periods=[True, True, True])
    check_grid(WORLD, g, MPI.Compute_dims(WORLD.size, 3), periods=[True] * 3)


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_repr():
    g = dm.ProcessGrid(dims=[0, 1], order="shuffle", periods=[True, False])
    assert repr(g) == f"ProcessGrid(dims=({WORLD.size}, 1), order='shuffle', periods=(True, False))"


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_on_a_split_communicator():
    # Two groups of different sizes, ranked backwards: grids live on each group alone.
    color = int(WORLD.rank % 2 == 1)
    sub = WORLD.Split(color, key=-WORLD.rank)
    try:
        for order in ORDERS:
            g = dm.ProcessGrid(comm=sub, dims=2, order=order)
            check_grid(sub, g, MPI.Compute_dims(sub.size, 2), order=order, agree_on=WORLD)
            check_all(WORLD, MPI.Comm.Compare(g.comm, sub) == MPI.CONGRUENT, "grid.comm vs sub")
    finally:
        sub.Free()


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_on_comm_self():
    g = dm.ProcessGrid(comm=MPI.COMM_SELF, dims=3)
    problems = [] if (g.dims, g.coords, g.size, g.rank) == ((1, 1, 1), (0, 0, 0), 1, 0) else [repr(g)]
    if g.comm.size != 1 or g.axis_comm(2).size != 1:
        problems.append("comm sizes")
    check_all(WORLD, not problems, "; ".join(problems))


@pytest.mark.parallel(nprocs=MAIN)
def test_grids_are_independent_of_each_other():
    # Several live grids at once; traffic on one does not reach another.
    grids = [dm.ProcessGrid(dims=k) for k in (1, 2, 3)]
    comms = [g.comm for g in grids]
    for i, c in enumerate(comms):
        for j, d in enumerate(comms):
            if i != j:
                check_all(WORLD, MPI.Comm.Compare(c, d) == MPI.CONGRUENT, "grid comms must be distinct")
    totals = [c.allreduce(i + 1) for i, c in enumerate(comms)]
    assert totals == [(i + 1) * WORLD.size for i in range(3)]


# ---------------------------------------------------------------------------
# Rank assignment of the orders (local)
# ---------------------------------------------------------------------------

ODD_EXTENTS = st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16])
POW2_EXTENTS = st.sampled_from([1, 2, 4, 8, 16])


def dims_strategy(extents):
    return st.lists(extents, min_size=1, max_size=7).filter(lambda d: math.prod(d) <= 4096)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(dims=dims_strategy(ODD_EXTENTS), order=st.sampled_from(ORDERS))
def test_rank_assignment_is_a_permutation(dims, order):
    assignment = _core.rank_assignment(dims, ORDER_CODES[order])
    assert len(assignment) == math.prod(dims)
    assert sorted(assignment) == list(range(math.prod(dims)))


@pytest.mark.parametrize("dims", [[3], [5], [6], [7], [3, 5], [5, 3], [6, 7], [7, 1, 3], [2, 3, 5, 7], [1]])
@pytest.mark.parametrize("order", ORDERS)
def test_rank_assignment_is_a_permutation_for_odd_products(dims, order):
    assignment = _core.rank_assignment(dims, ORDER_CODES[order])
    assert sorted(assignment) == list(range(math.prod(dims)))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(dims=dims_strategy(ODD_EXTENTS))
def test_send_order_is_row_major(dims):
    assert _core.rank_assignment(dims, ORDER_CODES["send"]) == list(range(math.prod(dims)))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(dims=dims_strategy(POW2_EXTENTS), data=st.data())
def test_news_neighbours_differ_in_one_bit(dims, data):
    """On power-of-two axes every grid neighbour, the periodic wrap included, is one
    bit of rank away (a hypercube embedding)."""
    assignment = _core.rank_assignment(dims, ORDER_CODES["news"])
    rank = {coords: assignment[i] for i, coords in enumerate(cells(dims))}
    for coords, r in rank.items():
        for axis, extent in enumerate(dims):
            if extent < 2:
                continue
            step = list(coords)
            step[axis] = (coords[axis] + 1) % extent  # wraps from extent-1 to 0
            diff = r ^ rank[tuple(step)]
            assert diff != 0 and diff & (diff - 1) == 0, (
                f"dims {dims}: {coords} (rank {r}) and {tuple(step)} (rank {rank[tuple(step)]})")


@settings(max_examples=100, deadline=None, derandomize=True)
@given(dims=dims_strategy(POW2_EXTENTS))
def test_news_is_gray_code_per_axis_on_powers_of_two(dims):
    assignment = _core.rank_assignment(dims, ORDER_CODES["news"])
    for i, coords in enumerate(cells(dims)):
        key = 0
        for c, d in zip(coords, dims):
            key = (key << bits(d)) | gray(c)
        assert assignment[i] == key


@settings(max_examples=150, deadline=None, derandomize=True)
@given(dims=dims_strategy(POW2_EXTENTS))
def test_shuffle_is_bit_interleaving_on_powers_of_two(dims):
    assignment = _core.rank_assignment(dims, ORDER_CODES["shuffle"])
    assert assignment == [interleaved(c, dims) for c in cells(dims)]


def test_shuffle_examples():
    # 4 x 4: the classic Z order, column (last axis) bit lowest.
    assert _core.rank_assignment([4, 4], 2) == [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]
    # 2 x 4: axis 1 has a second bit that axis 0 lacks.
    assert _core.rank_assignment([2, 4], 2) == [0, 1, 4, 5, 2, 3, 6, 7]
    # News on a ring of 8: the reflected Gray code.
    assert _core.rank_assignment([8], 1) == [0, 1, 3, 2, 6, 7, 5, 4]


@settings(max_examples=100, deadline=None, derandomize=True)
@given(dims=dims_strategy(ODD_EXTENTS), order=st.sampled_from(["news", "shuffle"]))
def test_orders_keep_key_order_on_any_extent(dims, order):
    """Off powers of two, ranks still follow the order's key: sorting the cells by
    the key gives ranks 0, 1, 2, ..."""
    assignment = _core.rank_assignment(dims, ORDER_CODES[order])
    all_cells = cells(dims)
    if order == "shuffle":
        keys = [interleaved(c, dims) for c in all_cells]
    else:
        keys = []
        for c in all_cells:
            key = 0
            for x, d in zip(c, dims):
                key = (key << bits(d)) | gray(x)
            keys.append(key)
    assert len(set(keys)) == len(keys)
    by_key = sorted(range(len(all_cells)), key=lambda i: keys[i])
    assert [assignment[i] for i in by_key] == list(range(len(all_cells)))


def test_rank_assignment_rejects_nonpositive_extents():
    for dims in ([0], [2, 0], [-1]):
        with pytest.raises(dm.Error) as info:
            _core.rank_assignment(dims, 0)
        assert info.value.status == "DM_ERR_ARG"


# ---------------------------------------------------------------------------
# Distributions (local)
# ---------------------------------------------------------------------------

@st.composite
def axes(draw, max_n=200, max_procs=12):
    nprocs = draw(st.integers(1, max_procs))
    n = draw(st.one_of(st.integers(0, 3), st.integers(0, max_n)))
    kind = draw(st.sampled_from(["block", "cyclic", "block_cyclic"]))
    if kind == "block":
        dist = dm.Block()
    elif kind == "cyclic":
        dist = dm.Cyclic()
    else:
        dist = dm.BlockCyclic(draw(st.one_of(st.integers(1, 4), st.integers(1, max_n + 5))),
                              draw(st.integers(0, nprocs - 1)))
    return dist, n, nprocs


@settings(max_examples=300, deadline=None, derandomize=True)
@given(case=axes())
def test_axis_map_is_a_bijection_matching_the_oracle(case):
    dist, n, nprocs = case
    m = dist.axis_map(n, nprocs)
    oracle = AxisOracle(dist, n, nprocs)
    assert (m.length, m.nprocs) == (n, nprocs)
    assert (m.block, m.src) == (oracle.block, oracle.src)

    extents = [m.extent(c) for c in range(nprocs)]
    assert sum(extents) == n
    assert extents == oracle.extents.tolist()
    assert extents == [dist.local_extent(n, nprocs, c) for c in range(nprocs)]
    # ScaLAPACK's NUMROC, in the test and in the library.
    assert extents == [numroc(n, oracle.block, c, oracle.src, nprocs) for c in range(nprocs)]
    assert extents == [dm.numroc(n, oracle.block, c, oracle.src, nprocs) for c in range(nprocs)]

    # global -> (owner, local) is onto {(c, l): l < extent(c)} and inverted by global_index.
    seen = set()
    for g in range(n):
        c, l = m.owner(g), m.local_index(g)
        assert (c, l) == (oracle.owner[g], oracle.local[g])
        assert 0 <= c < nprocs and 0 <= l < extents[c]
        assert m.global_index(c, l) == g
        seen.add((c, l))
    assert seen == {(c, l) for c in range(nprocs) for l in range(extents[c])}
    for c in range(nprocs):
        assert [m.global_index(c, l) for l in range(extents[c])] == oracle.owned(c).tolist()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(n=st.integers(0, 500), nprocs=st.integers(1, 40))
def test_block_is_ceil_with_trailing_coordinates_short_or_empty(n, nprocs):
    extents = [dm.Block().local_extent(n, nprocs, c) for c in range(nprocs)]
    b = math.ceil(n / nprocs)
    assert extents == [max(0, min(b, n - c * b)) for c in range(nprocs)]
    # Full blocks first, then at most one short one, then empty ones.
    assert extents == sorted(extents, reverse=True)
    assert sum(1 for e in extents if 0 < e < b) <= 1
    m = dm.Block().axis_map(n, nprocs)
    for g in range(n):
        assert m.owner(g) == g // b and m.local_index(g) == g % b


@settings(max_examples=100, deadline=None, derandomize=True)
@given(n=st.integers(0, 300), nprocs=st.integers(1, 20))
def test_cyclic_deals_single_elements(n, nprocs):
    m = dm.Cyclic().axis_map(n, nprocs)
    for g in range(n):
        assert (m.owner(g), m.local_index(g)) == (g % nprocs, g // nprocs)
    assert [m.extent(c) for c in range(nprocs)] == [len(range(c, n, nprocs)) for c in range(nprocs)]


def test_block_examples():
    assert [dm.Block().local_extent(5, 4, c) for c in range(4)] == [2, 2, 1, 0]
    assert [dm.Block().local_extent(9, 4, c) for c in range(4)] == [3, 3, 3, 0]
    assert [dm.Block().local_extent(8, 4, c) for c in range(4)] == [2, 2, 2, 2]
    assert [dm.Block().local_extent(0, 3, c) for c in range(3)] == [0, 0, 0]
    assert [dm.BlockCyclic(2, 1).local_extent(7, 3, c) for c in range(3)] == [2, 3, 2]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(n=st.integers(0, 10**6), nb=st.integers(1, 1000), nprocs=st.integers(1, 64), data=st.data())
def test_numroc_matches_scalapack(n, nb, nprocs, data):
    iproc = data.draw(st.integers(0, nprocs - 1))
    src = data.draw(st.integers(0, nprocs - 1))
    assert dm.numroc(n, nb, iproc, src, nprocs) == numroc(n, nb, iproc, src, nprocs)
    assert sum(dm.numroc(n, nb, p, src, nprocs) for p in range(nprocs)) == n


def test_numroc_large_axes():
    n = 10**15 + 7
    assert dm.numroc(n, 1000, 3, 1, 7) == numroc(n, 1000, 3, 1, 7)
    assert sum(dm.numroc(n, 64, p, 0, 5) for p in range(5)) == n


def test_distributions_are_values():
    assert dm.Block() == dm.Block() and dm.Cyclic() == dm.Cyclic()
    assert dm.Block() != dm.Cyclic()
    assert dm.BlockCyclic(3, 1) == dm.BlockCyclic(3, 1) != dm.BlockCyclic(3, 0)
    assert dm.BlockCyclic().r == 1 and dm.BlockCyclic().src == 0
    assert len({dm.Block(), dm.Block(), dm.Cyclic(), dm.BlockCyclic(2)}) == 3
    with pytest.raises(Exception):
        dm.BlockCyclic(2).r = 3  # frozen


def test_invalid_distributions_are_refused_by_axis_map():
    for dist, n, p in [(dm.BlockCyclic(0), 4, 2), (dm.BlockCyclic(-3), 4, 2), (dm.BlockCyclic(1, 2), 4, 2),
                       (dm.BlockCyclic(1, -1), 4, 2), (dm.Block(), -1, 2), (dm.Cyclic(), 4, 0)]:
        with pytest.raises(dm.Error) as info:
            dist.axis_map(n, p)
        assert info.value.status == "DM_ERR_ARG", (dist, n, p)
    m = dm.Block().axis_map(5, 2)
    for call in (lambda: m.owner(5), lambda: m.owner(-1), lambda: m.local_index(5), lambda: m.extent(2),
                 lambda: m.global_index(1, 2), lambda: m.global_index(2, 0), lambda: m.global_index(0, -1)):
        with pytest.raises(dm.Error) as info:
            call()
        assert info.value.status == "DM_ERR_ARG"


def test_numroc_rejects_invalid_arguments():
    for args in [(-1, 1, 0, 0, 1), (4, 0, 0, 0, 1), (4, 1, 1, 0, 1), (4, 1, 0, 1, 1), (4, 1, 0, 0, 0),
                 (4, 1, -1, 0, 2)]:
        with pytest.raises(dm.Error) as info:
            dm.numroc(*args)
        assert info.value.status == "DM_ERR_ARG", args


# ---------------------------------------------------------------------------
# Sizes: irregular blocks, one size per coordinate
# ---------------------------------------------------------------------------

@settings(max_examples=200, deadline=None, derandomize=True)
@given(sizes=st.lists(st.one_of(st.just(0), st.integers(0, 3), st.integers(0, 40)), min_size=1, max_size=12))
def test_sizes_axis_map_matches_the_oracle(sizes):
    n, nprocs = sum(sizes), len(sizes)
    dist = dm.Sizes(sizes)
    m = dist.axis_map(n, nprocs)
    oracle = AxisOracle(dist, n, nprocs)
    assert (m.length, m.nprocs, m.kind, m.block, m.src) == (n, nprocs, dm.Sizes.kind, None, None)
    assert [m.extent(c) for c in range(nprocs)] == sizes == oracle.extents.tolist()
    assert [dist.local_extent(n, nprocs, c) for c in range(nprocs)] == sizes
    for g in range(n):
        c, l = m.owner(g), m.local_index(g)
        assert (c, l) == (oracle.owner[g], oracle.local[g])
        assert m.global_index(c, l) == g
    for c in range(nprocs):
        assert [m.global_index(c, l) for l in range(sizes[c])] == oracle.owned(c).tolist()


def test_sizes_are_values():
    s = dm.Sizes([3, 0, np.int64(2)])
    assert s.sizes == (3, 0, 2) and all(type(v) is int for v in s.sizes)
    assert s == dm.Sizes((3, 0, 2)) == dm.Sizes(np.array([3, 0, 2])) != dm.Sizes([3, 2, 0])
    assert dm.Sizes([5]) != dm.Block() and isinstance(s, dm.Distribution)
    assert len({s, dm.Sizes([3, 0, 2]), dm.Sizes([1])}) == 2
    assert repr(s) == "Sizes([3, 0, 2])" and repr(dm.Sizes([])) == "Sizes([])"
    assert eval(repr(s), {"Sizes": dm.Sizes}) == s
    assert "Sizes" in dm.__all__ and dm.layout.Sizes is dm.Sizes
    with pytest.raises(Exception):
        s.sizes = (1, 2)  # frozen


def test_invalid_sizes_are_refused_by_axis_map():
    for dist, n, p, match in [(dm.Sizes([3, -1, 2]), 4, 3, r"size of coordinate 1 is negative \(-1\)"),
                              (dm.Sizes([3, 1]), 5, 2, "the sizes sum to 4, not to the axis length 5"),
                              (dm.Sizes([3, 2]), 5, 3, "2 sizes for 3 grid coordinates"),
                              (dm.Sizes([5]), 5, 2, "1 sizes for 2 grid coordinates"),
                              (dm.Sizes([2**62, 2**62, 2**62]), 5, 3, r"sum past 2\^63 - 1")]:
        with pytest.raises(dm.Error, match=match) as info:
            dist.axis_map(n, p)
        assert info.value.status == "DM_ERR_ARG", (dist, n, p)
    for bad in (dm.Sizes([1.5, 2]), dm.Sizes("ab"), dm.Sizes(3), dm.Sizes([2**63])):
        with pytest.raises((TypeError, ValueError)):
            bad.axis_map(2, 2)


@pytest.mark.parallel(nprocs=MAIN)
def test_bad_sizes_fail_on_every_rank():
    grid = dm.ProcessGrid(dims=[0, 1])
    p, n = grid.dims[0], 3 * grid.dims[0] + 1
    good = [3] * (p - 1) + [4]
    cases = [([-1] + good[1:], "DM_ERR_ARG", r"axis 0: size of coordinate 0 is negative \(-1\)"),
             ([v + 1 for v in good], "DM_ERR_ARG", f"axis 0: the sizes sum to {n + p}, not to the axis length {n}"),
             (good + [0], "DM_ERR_ARG", f"axis 0: {p + 1} sizes for {p} grid coordinates"),
             ([1.5] * p, "DM_ERR_ARG", "Sizes takes a sequence of integers|must be an integer")]
    for sizes, status, match in cases:
        for make in (lambda: dm.DistArray.zeros(grid, (n, 2), dist=[dm.Sizes(sizes), dm.Block()]),
                     lambda: dm.DistArray.from_global(grid, np.zeros((n, 2)), dist=[dm.Sizes(sizes), dm.Block()])):
            raises_everywhere(WORLD, make, status, match)
    # Bad on the last rank only, or valid everywhere but different: the same error on every rank.
    last = WORLD.rank == WORLD.size - 1
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (n, 2), dist=[dm.Sizes([9] * p if last else good),
                                                                              dm.Block()]), "DM_ERR_ARG", "sum to")
    if p > 1:
        moved = [good[0] + 1, good[1] - 1] + good[2:]
        raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (n, 2), dist=[dm.Sizes(moved if last else good),
                                                                                  dm.Block()]),
                          "DM_ERR_MISMATCH", r"distribution differs across ranks: \(Sizes\(\[")


# ---------------------------------------------------------------------------
# descinit (local)
# ---------------------------------------------------------------------------

def test_descinit_fills_a_scalapack_descriptor():
    # 100 x 50 matrix, 8 x 4 blocks, 3 x 2 grid: process row 0 holds 36 rows, row 1 32.
    assert [numroc(100, 8, r, 0, 3) for r in range(3)] == [36, 32, 32]
    assert dm.descinit(100, 50, 8, 4, 0, 1, 7, 3, 2, 0, 36) == [1, 7, 100, 50, 8, 4, 0, 1, 36]
    assert dm.descinit(100, 50, 8, 4, 0, 1, 7, 3, 2, 1, 32) == [1, 7, 100, 50, 8, 4, 0, 1, 32]
    assert dm.descinit(100, 50, 8, 4, 2, 1, 7, 3, 2, 1, 40) == [1, 7, 100, 50, 8, 4, 2, 1, 40]
    assert dm.descinit(0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1) == [1, 0, 0, 0, 1, 1, 0, 0, 1]


@pytest.mark.parametrize("args, field", [
    ((-1, 5, 2, 2, 0, 0, 0, 1, 1, 0, 5), "m must"),
    ((5, -1, 2, 2, 0, 0, 0, 1, 1, 0, 5), "n must"),
    ((5, 5, 0, 2, 0, 0, 0, 1, 1, 0, 5), "mb"),
    ((5, 5, 2, 0, 0, 0, 0, 1, 1, 0, 5), "nb"),
    ((5, 5, 2, 2, 1, 0, 0, 1, 1, 0, 5), "rsrc"),
    ((5, 5, 2, 2, 0, 1, 0, 1, 1, 0, 5), "csrc"),
    ((5, 5, 2, 2, 0, 0, 0, 0, 1, 0, 5), "grid extents"),
    ((100, 50, 8, 4, 0, 1, 7, 3, 2, 0, 35), "lld"),
    ((0, 5, 2, 2, 0, 0, 0, 1, 1, 0, 0), "lld"),
])
def test_descinit_checks(args, field):
    with pytest.raises(dm.Error, match=field) as info:
        dm.descinit(*args)
    assert info.value.status == "DM_ERR_ARG"
