"""DistArray against NumPy: round trips, local blocks, ghosts, roots, views."""

import numpy as np
import pytest
from mpi4py import MPI

import datamotion as dm
from dmtest import (
    DTYPE_IDS, DTYPES, MAIN, WITH_8, WORLD, Unavailable, check_all, check_same_array, expected_local,
    raises_everywhere,
    local_from_axis_maps, safely, same_array, sample, uneven_sizes,
)


def roundtrip_checks(grid, x, dist=None, ghost=0, root=None, out_root=None):
    """Collective on grid.comm. Distributes x (held by root, or everyone) and checks
    everything a rank can see against NumPy. Returns (array, problems). The
    collective calls come first; the local checks after them never raise."""
    comm = grid.comm
    held = x if root is None or comm.rank == root else None
    a = dm.DistArray.from_global(grid, held, dist=dist, root=root, ghost=ghost)
    back = a.to_global(root=out_root)
    total = comm.allreduce(a.local.size)
    problems = []

    def expect(check, what):
        result = safely(check)
        ok, why = result if isinstance(result, tuple) else (result, "")
        if isinstance(result, Unavailable) or not ok:
            problems.append(f"{what}: {why or result!r}")

    receives = out_root is None or comm.rank == out_root
    ghosts = (ghost,) * x.ndim if isinstance(ghost, int) else tuple(ghost)
    expect(lambda: same_array(back, x if receives else None), f"to_global(root={out_root})")
    expect(lambda: total == x.size, f"owned elements add up to {total}, not {x.size}")
    expect(lambda: a.shape == x.shape, f"shape {a.shape}")
    expect(lambda: a.ndim == x.ndim, f"ndim {a.ndim}")
    expect(lambda: a.dtype == x.dtype, f"dtype {a.dtype}")
    expect(lambda: a.grid is grid, "grid")
    expect(lambda: len(a.dist) == x.ndim, f"dist {a.dist}")
    expect(lambda: a.ghost == ghosts, f"ghost {a.ghost}")
    expect(lambda: a.local.dtype == x.dtype, "local dtype")
    expect(lambda: a.local.shape == a.local_shape, "local shape vs local_shape")
    expect(lambda: same_array(a.local, local_from_axis_maps(a, x)), "local vs the array's axis maps")
    expect(lambda: same_array(a.local, expected_local(x, a.dist, grid.dims, grid.coords)), "local vs the NumPy oracle")

    def storage_checks():
        storage = a.local_with_ghosts
        if storage.shape != tuple(n + 2 * g for n, g in zip(a.local_shape, a.ghost)):
            return False, f"local_with_ghosts shape {storage.shape}"
        inside = tuple(slice(g, g + n) for n, g in zip(a.local_shape, a.ghost))
        ok, why = same_array(storage[inside], a.local)
        if not ok:
            return False, f"interior of local_with_ghosts: {why}"
        # Ghost cells of a fresh array stay zero (from_global leaves them as they are).
        ring = np.ones(storage.shape, bool)
        ring[inside] = False
        return not np.any(storage[ring]), "ghost region is not zero"

    expect(storage_checks, "local_with_ghosts")
    return a, problems


def check_roundtrip(grid, x, **kw):
    a, problems = roundtrip_checks(grid, x, **kw)
    check_all(grid.comm, not problems, "; ".join(problems))
    return a


# ---------------------------------------------------------------------------
# Round trips
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_roundtrip_every_dtype(dtype):
    grid = dm.ProcessGrid(dims=2)
    for shape in [(7, 5), (1, 9), (4, 1), (0, 3), (3, 0), (13, 11)]:
        x = sample(shape, dtype, seed=shape[0])
        check_roundtrip(grid, x)
        check_roundtrip(grid, x, dist=[dm.Cyclic(), dm.BlockCyclic(2, grid.dims[1] - 1)], root=0, out_root=0)


SHAPES_BY_NDIM = {
    1: [(0,), (1,), (5,), (17,)],
    2: [(5, 7), (1, 1), (0, 4), (9, 2)],
    3: [(3, 4, 5), (1, 6, 1), (2, 0, 3)],
    4: [(3, 2, 5, 2), (1, 1, 1, 7)],
    5: [(2, 3, 1, 4, 2), (3, 1, 2, 1, 3)],
    6: [(2, 2, 3, 1, 2, 3), (1, 2, 1, 2, 1, 5)],
    7: [(2, 3, 2, 1, 2, 2, 3), (1, 1, 1, 1, 1, 1, 1), (2, 1, 2, 0, 2, 1, 2)],
}


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("ndim", sorted(SHAPES_BY_NDIM))
def test_roundtrip_every_array_rank(ndim):
    grid = dm.ProcessGrid(dims=ndim)
    for i, shape in enumerate(SHAPES_BY_NDIM[ndim]):
        x = sample(shape, np.float64, seed=i)
        check_roundtrip(grid, x)
        check_roundtrip(grid, x.astype(np.int32), dist=dm.Cyclic(), ghost=1)
        per_axis = [dm.BlockCyclic(2, d - 1) if a % 2 else dm.Block() for a, d in enumerate(grid.dims)]
        check_roundtrip(grid, x.astype(np.complex64), dist=per_axis, root=grid.size - 1, out_root=0)


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dist", [dm.Block(), dm.Cyclic(), dm.BlockCyclic(1), dm.BlockCyclic(3),
                                  dm.BlockCyclic(2, 1), dm.BlockCyclic(100)],
                         ids=["block", "cyclic", "bc1", "bc3", "bc2src1", "bc100"])
def test_roundtrip_uneven_sizes_one_axis(dist):
    grid = dm.ProcessGrid()
    if isinstance(dist, dm.BlockCyclic) and dist.src >= grid.size:
        dist = dm.BlockCyclic(dist.r, grid.size - 1)
    for n in [0, 1, 2, 3, 5, 7, 8, 11, 31, 64]:
        check_roundtrip(grid, sample((n,), np.int64, seed=n), dist=dist)


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_roundtrip_sizes_every_dtype(dtype):
    # One irregular axis of a 2-d array (coordinate 0 owning nothing), the other of every kind.
    grid = dm.ProcessGrid(dims=2)
    rows, cols = grid.dims
    for seed, (n, m) in enumerate([(0, 3), (1, 4), (7, 5), (13, 2), (4, 0)]):
        x = sample((n, m), dtype, seed=seed)
        for other in (dm.Block(), dm.Cyclic(), dm.BlockCyclic(2, cols - 1), uneven_sizes(m, cols, seed)):
            a = check_roundtrip(grid, x, dist=[uneven_sizes(n, rows, seed), other])
            check_all(WORLD, a.dist == (uneven_sizes(n, rows, seed), other), f"dist {a.dist}")
        check_roundtrip(grid, x, dist=[dm.Cyclic(), uneven_sizes(m, cols, seed + 1)], root=0, out_root=grid.size - 1)
        check_roundtrip(grid, x, dist=[uneven_sizes(n, rows, seed + 2), dm.Block()], ghost=[2, 1], root=grid.size - 1)


@pytest.mark.parallel(nprocs=MAIN)
def test_sizes_place_each_coordinates_elements_in_order():
    grid = dm.ProcessGrid()
    sizes = [0] * grid.size
    sizes[-1] = 6  # the last coordinate holds everything: the others own nothing
    for dist in (dm.Sizes(sizes), dm.Sizes([6] + [0] * (grid.size - 1)), uneven_sizes(6, grid.size, 7)):
        a = check_roundtrip(grid, np.arange(6.0), dist=dist)
        start = sum(dist.sizes[:grid.coords[0]])
        check_all(WORLD, a.local.tolist() == list(range(start, start + dist.sizes[grid.coords[0]])), f"{dist}")
        m = a.axis_map(0)
        check_all(WORLD, (m.block, m.src, m.kind) == (None, None, dm.Sizes.kind), "no block size")
        for make in (dm.DistArray.zeros, dm.DistArray.empty):
            b = make(grid, (6,), np.int32, dist=dist)
            check_all(WORLD, b.local_shape == a.local_shape and b.dist == (dist,), f"{make.__name__}: {b!r}")


@pytest.mark.parallel(nprocs=MAIN)
def test_ranks_that_own_nothing():
    grid = dm.ProcessGrid()
    a = check_roundtrip(grid, np.arange(5.0))
    extents = [dm.Block().local_extent(5, grid.size, c) for c in range(grid.size)]
    check_all(WORLD, a.local_shape == (extents[grid.coords[0]],), f"local shape {a.local_shape}")
    if grid.size == 4:
        # ceil(5/4) = 2: blocks of 2, 2, 1 and nothing for the last coordinate.
        assert extents == [2, 2, 1, 0]
    # The same with a ghost region around an empty block, and on a 2-d grid.
    check_roundtrip(grid, np.arange(5.0), ghost=2)
    grid2 = dm.ProcessGrid(dims=[0, 0])
    b = check_roundtrip(grid2, sample((1, 1), np.complex128), ghost=[1, 0])
    owns = b.local.size == 1
    check_all(WORLD, WORLD.allreduce(int(owns)) == 1, "exactly one rank owns the single element")


@pytest.mark.parallel(nprocs=WITH_8)
def test_every_root_in_and_out():
    grid = dm.ProcessGrid(dims=[0, 0])
    x = sample((6, 5), np.float32, seed=3)
    roots = [None] + list(range(grid.size))
    for root in roots:
        for out_root in roots:
            check_roundtrip(grid, x, root=root, out_root=out_root, dist=dm.BlockCyclic(2))


@pytest.mark.parallel(nprocs=MAIN)
def test_non_root_ranks_may_pass_anything():
    # With root=k only rank k's array is read: others may pass None, or junk.
    grid = dm.ProcessGrid()
    x = sample((9,), np.int32)
    for root in range(grid.size):
        junk = None if grid.rank % 2 else np.zeros((2, 2, 2), np.float16)
        a = dm.DistArray.from_global(grid, x if grid.rank == root else junk, root=root)
        check_same_array(WORLD, a.to_global(), x, f"root={root}")


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("ghost", [1, 2, [0, 1], [3, 0]])
def test_ghosts(ghost):
    grid = dm.ProcessGrid(dims=2)
    x = sample((7, 6), np.float64, seed=1)
    for dist in [dm.Block(), dm.Cyclic(), [dm.BlockCyclic(2), dm.Cyclic()]]:
        a = check_roundtrip(grid, x, dist=dist, ghost=ghost)
        gw = a.ghost
        storage = a.local_with_ghosts
        # The storage is one array: writing the interior through it shows in `local`
        # and in the global array; writing the ghost cells changes neither.
        storage[...] = -1
        interior = tuple(slice(g, g + n) for n, g in zip(a.local_shape, gw))
        block = local_from_axis_maps(a, x)
        written = safely(lambda: storage.__setitem__(interior, block * 2))
        ok, why = same_array(a.local, safely(lambda: block * 2))
        check_all(WORLD, ok and not isinstance(written, Unavailable),
                  f"interior write not seen through local: {why} {written!r}")
        check_same_array(WORLD, a.to_global(), x * 2, "after writing the interior of local_with_ghosts")


# ---------------------------------------------------------------------------
# Views and properties
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_local_is_a_zero_copy_view(dtype):
    grid = dm.ProcessGrid(dims=2)
    x = sample((6, 7), dtype, seed=7)
    a = dm.DistArray.from_global(grid, x, dist=[dm.Cyclic(), dm.BlockCyclic(2)], ghost=1)
    local = a.local
    ok = local.flags.writeable and (local.size == 0 or (np.shares_memory(local, a.local)
                                                         and np.shares_memory(local, a.local_with_ghosts)))
    # Negate (or invert) every owned element in place through the view.
    if dtype == np.bool_:
        np.logical_not(local, out=local)
        expected = ~x
    else:
        local *= -1
        expected = -x
    check_all(WORLD, ok, "local is not a writable view of the storage")
    check_same_array(WORLD, a.to_global(), expected, "to_global after writing local")
    check_same_array(WORLD, a.to_global(root=0), expected if grid.rank == 0 else None, "to_global(root=0)")
    # A view taken earlier stays valid and live.
    local[...] = x.flat[0]
    check_same_array(WORLD, a.to_global(), np.full_like(x, x.flat[0]), "after filling an earlier view")


@pytest.mark.parallel(nprocs=MAIN)
def test_assigning_to_local_writes_the_owned_elements():
    grid = dm.ProcessGrid(dims=2)
    x = sample((5, 6), np.float64, seed=2)
    a = dm.DistArray.from_global(grid, x, dist=dm.Cyclic(), ghost=1)
    a.local *= 2  # in place on the view, then assigned back through the setter
    check_same_array(WORLD, a.to_global(), x * 2, "after a.local *= 2")
    a.local = 7.0
    check_same_array(WORLD, a.to_global(), np.full_like(x, 7.0), "after a.local = 7")
    block = local_from_axis_maps(a, x)
    assigned = safely(lambda: setattr(a, "local", block))
    check_same_array(WORLD, a.to_global(), x, f"after a.local = <block> {assigned!r}")
    check_all(WORLD, not np.any(a.local_with_ghosts[0]), "the ghost row stays zero")


@pytest.mark.parallel(nprocs=MAIN)
def test_local_outlives_the_array_object():
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.arange(10.0))
    local = a.local
    expected = local_from_axis_maps(a, np.arange(10.0))
    del a
    check_same_array(WORLD, local.copy(), expected, "local after the DistArray is gone")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_zeros(dtype):
    grid = dm.ProcessGrid(dims=3)
    dist = [dm.Block(), dm.Cyclic(), dm.BlockCyclic(2, grid.dims[2] - 1)]
    a = dm.DistArray.zeros(grid, (4, 5, 3), dtype=dtype, dist=dist, ghost=[1, 0, 2])
    problems = []
    if (a.shape, a.dtype, a.ghost, a.dist, a.grid) != ((4, 5, 3), np.dtype(dtype), (1, 0, 2), tuple(dist), grid):
        problems.append(repr(a))
    if a.local_with_ghosts.shape != (a.local_shape[0] + 2, a.local_shape[1], a.local_shape[2] + 4):
        problems.append(f"storage shape {a.local_with_ghosts.shape}")
    if np.any(a.local_with_ghosts) or a.local.dtype != np.dtype(dtype):
        problems.append("not zero-filled")
    check_all(WORLD, not problems, "; ".join(problems))
    check_same_array(WORLD, a.to_global(), np.zeros((4, 5, 3), dtype), "zeros to_global")


@pytest.mark.parallel(nprocs=MAIN)
def test_zeros_defaults():
    grid = dm.ProcessGrid()
    a = dm.DistArray.zeros(grid, [6])
    assert (a.dtype, a.dist, a.ghost, a.shape) == (np.dtype(np.float64), (dm.Block(),), (0,), (6,))
    a.local[...] = grid.rank + 1
    # Element g is owned by the rank at coordinate owner(g), which in the default order is rank owner(g).
    m = dm.Block().axis_map(6, grid.size)
    expected = np.array([grid.rank_of((m.owner(g),)) + 1 for g in range(6)], np.float64)
    check_same_array(WORLD, a.to_global(), expected, "zeros filled by rank")


@pytest.mark.parallel(nprocs=MAIN)
def test_dist_reports_resolved_distributions():
    grid = dm.ProcessGrid(dims=[0, 1])
    x = np.zeros((10, 3))
    cases = [
        (None, (dm.Block(), dm.Block())),
        (dm.Cyclic(), (dm.Cyclic(), dm.Cyclic())),
        (dm.BlockCyclic(3), (dm.BlockCyclic(3, 0), dm.BlockCyclic(3, 0))),
        ([dm.BlockCyclic(2, grid.dims[0] - 1), dm.Cyclic()], (dm.BlockCyclic(2, grid.dims[0] - 1), dm.Cyclic())),
        ([uneven_sizes(10, grid.dims[0], 1), dm.Sizes([3])], (uneven_sizes(10, grid.dims[0], 1), dm.Sizes([3]))),
    ]
    for dist, expected in cases:
        a = dm.DistArray.from_global(grid, x, dist=dist)
        assert a.dist == expected
        # axis_map agrees with the distribution it reports.
        for axis, d in enumerate(a.dist):
            m, ref = a.axis_map(axis), d.axis_map(x.shape[axis], grid.dims[axis])
            assert [m.extent(c) for c in range(grid.dims[axis])] == [ref.extent(c) for c in range(grid.dims[axis])]
            assert (m.block, m.src, m.length, m.nprocs) == (ref.block, ref.src, ref.length, ref.nprocs)


@pytest.mark.parallel(nprocs=MAIN)
def test_repr():
    grid = dm.ProcessGrid()
    a = dm.DistArray.zeros(grid, (3,), np.int32, ghost=1)
    assert repr(a) == (f"DistArray(shape=(3,), dtype=int32, grid=({grid.size},), "
                       "dist=(Block(),), ghost=(1,))")


# ---------------------------------------------------------------------------
# Inputs NumPy may hand over: views, byte orders
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=MAIN)
def test_non_contiguous_and_foreign_byte_order_inputs():
    grid = dm.ProcessGrid(dims=2)
    base = sample((8, 10), np.float64, seed=5)
    for x in [base.T, base[::2, 1::3], base[::-1], np.asfortranarray(base)]:
        check_same_array(WORLD, dm.DistArray.from_global(grid, x).to_global(), np.ascontiguousarray(x), "view")
    for dtype in [">f8", ">i4", "<c16", ">c8", ">i8"]:
        x = base.astype(dtype)
        back = dm.DistArray.from_global(grid, x, root=0).to_global()
        check_all(WORLD, back.dtype == np.dtype(dtype).newbyteorder("=") and np.array_equal(back, x),
                  f"{dtype} came back as {back.dtype}")
    # Python lists and other array-likes are taken as NumPy would.
    check_same_array(WORLD, dm.DistArray.from_global(grid, [[1, 2], [3, 4]]).to_global(),
                     np.array([[1, 2], [3, 4]]), "list input")


@pytest.mark.parallel(nprocs=MAIN)
def test_scatter_overwrites_owned_elements():
    grid = dm.ProcessGrid(dims=[0, 0])
    a = dm.DistArray.zeros(grid, (5, 6), np.int64, dist=dm.Cyclic(), ghost=1)
    for root in [None] + list(range(grid.size)):
        y = sample((5, 6), np.int64, seed=root or 0)
        a.scatter(y if root is None or grid.rank == root else None, root=root)
        back = a.to_global()
        ok, why = same_array(back, y)
        ok2, why2 = same_array(a.local, local_from_axis_maps(a, y))
        check_all(WORLD, ok and ok2, f"scatter root={root}: {why} {why2}")
    # scatter converts to the array's type, as NumPy would.
    a.scatter(np.ones((5, 6), np.int32))
    check_same_array(WORLD, a.to_global(), np.ones((5, 6), np.int64), "scatter of int32 into int64")


# ---------------------------------------------------------------------------
# Other communicators
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
def test_roundtrip_on_a_split_communicator():
    # Two groups of different sizes (odd counts), ranked backwards, working at once
    # on different data; a grid never sees the other group.
    color = WORLD.rank % 2
    sub = WORLD.Split(color, key=WORLD.size - WORLD.rank)
    try:
        for ndim in (1, 2, 3):
            grid = dm.ProcessGrid(comm=sub, dims=ndim)
            shape = (7, 3, 2)[:ndim]
            x = sample(shape, np.complex128, seed=10 * color + ndim)
            a, problems = roundtrip_checks(grid, x, dist=dm.BlockCyclic(1), ghost=1, root=sub.size - 1,
                                           out_root=None)
            b, more = roundtrip_checks(grid, x, out_root=0)
            check_all(WORLD, not problems + more, "; ".join(problems + more))
            check_all(WORLD, grid.size == sub.size and grid.rank == sub.rank, "grid ranks are the sub ranks")
    finally:
        sub.Free()


@pytest.mark.parallel(nprocs=WITH_8)
def test_roundtrip_on_comm_self():
    grid = dm.ProcessGrid(comm=MPI.COMM_SELF, dims=2)
    x = sample((4, 3 + WORLD.rank), np.float32, seed=WORLD.rank)  # each rank its own array
    a, problems = roundtrip_checks(grid, x, dist=dm.Cyclic(), ghost=1, root=0, out_root=0)
    if not same_array(a.local, x)[0]:
        problems.append("on one rank the local block is the whole array")
    check_all(WORLD, not problems, "; ".join(problems))


@pytest.mark.parallel(nprocs=MAIN)
def test_roundtrip_on_a_duplicate_and_a_subset():
    # Only some ranks make a grid (the others get MPI.COMM_NULL from Split and
    # make none): the grid's collectives involve its own ranks only.
    dup = WORLD.Dup()
    inside = WORLD.rank < max(1, WORLD.size - 1)
    sub = WORLD.Split(0 if inside else MPI.UNDEFINED, key=WORLD.rank)
    problems = []
    try:
        a, p = roundtrip_checks(dm.ProcessGrid(comm=dup, dims=2), sample((5, 4), np.int32))
        problems += p
        if inside:
            a, p = roundtrip_checks(dm.ProcessGrid(comm=sub, dims=1), sample((9,), np.bool_), root=0, out_root=0)
            problems += p
        else:
            problems += [] if sub == MPI.COMM_NULL else ["outside rank got a communicator"]
    finally:
        dup.Free()
        if sub != MPI.COMM_NULL:
            sub.Free()
    check_all(WORLD, not problems, "; ".join(problems))


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_empty_has_the_layout_of_zeros(dtype):
    grid = dm.ProcessGrid(dims=2)
    dist = [dm.Cyclic(), dm.BlockCyclic(2)]
    a = dm.DistArray.empty(grid, (5, 7), dtype=dtype, dist=dist, ghost=[0, 1])
    z = dm.DistArray.zeros(grid, (5, 7), dtype=dtype, dist=dist, ghost=[0, 1])
    same = (a.shape, a.dtype, a.dist, a.ghost, a.local_shape, a.local_with_ghosts.shape) == \
           (z.shape, z.dtype, z.dist, z.ghost, z.local_shape, z.local_with_ghosts.shape)
    check_all(WORLD, same, f"{a!r} vs {z!r}")
    x = sample((5, 7), dtype, seed=3)
    a.scatter(x)
    check_same_array(WORLD, a.to_global(), x, "empty, then scattered")


def _storage_shape(grid, shape, dist, ghost):
    return tuple(d.local_extent(n, p, c) + 2 * ghost for n, d, p, c in zip(shape, dist, grid.dims, grid.coords))


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("ghost", [0, 1])
def test_adopt_shares_the_callers_memory(dtype, ghost):
    grid = dm.ProcessGrid(dims=2)
    shape, dist = (3, 9), [dm.Block(), dm.BlockCyclic(2)]  # at 4 and 8 ranks some own nothing
    memory = np.zeros(_storage_shape(grid, shape, dist, ghost), dtype)
    a = dm.DistArray.adopt(grid, memory, shape, dist=dist, ghost=ghost)
    x = sample(shape, dtype, seed=5)
    a.scatter(x)
    inside = tuple(slice(ghost, n - ghost) for n in memory.shape)
    problems = []
    if a.dtype != np.dtype(dtype):
        problems.append(f"dtype {a.dtype}")
    if not np.array_equal(memory[inside], expected_local(x, a.dist, grid.dims, grid.coords)):
        problems.append("scatter did not write into the adopted memory")
    memory[inside] = np.zeros_like(memory[inside])
    if np.any(a.local):
        problems.append("a write to the memory is not seen by the array")
    check_all(WORLD, not problems, "; ".join(problems))


@pytest.mark.parallel(nprocs=MAIN)
def test_adopted_memory_lives_as_long_as_the_array():
    grid = dm.ProcessGrid()
    memory = np.arange(float(dm.Block().local_extent(10, grid.size, grid.coords[0])))
    a = dm.DistArray.adopt(grid, memory, (10,))
    local = a.local
    del memory, a
    check_same_array(WORLD, local.copy(), np.arange(float(local.size)), "local after memory and array are gone")


@pytest.mark.parallel(nprocs=MAIN)
def test_adopt_refuses_memory_it_cannot_use_on_every_rank():
    grid = dm.ProcessGrid()
    n = dm.Block().local_extent(12, grid.size, grid.coords[0])
    raises_everywhere(WORLD, lambda: dm.DistArray.adopt(grid, np.zeros(n - (grid.rank == grid.size - 1)), (12,)),
                      status="DM_ERR_ARG", match="needs .* bytes")
    raises_everywhere(WORLD, lambda: dm.DistArray.adopt(grid, np.zeros((n, 2))[:, 0], (12,)),
                      status="DM_ERR_ARG", match="C-contiguous")
    raises_everywhere(WORLD, lambda: dm.DistArray.adopt(grid, [0.0] * n, (12,)), status="DM_ERR_ARG",
                      match="NumPy array")
    raises_everywhere(WORLD, lambda: dm.DistArray.adopt(grid, np.zeros(n, np.uint8), (12,)), status="DM_ERR_TYPE")
