"""Property tests at many rank counts: random grids, shapes, distributions, types,
ghosts and roots, against NumPy.

Every rank runs the same Hypothesis test. `derandomize=True` makes them draw the
same examples in the same order, and each drawn case is broadcast from rank 0
anyway, so all ranks make the same collective calls. Checks are collective too
(`check_all`): an example fails on every rank or on none, which keeps the ranks'
Hypothesis runs in step. Shrinking is left out on more than one rank (it is
deterministic too, but a wrong step there would hang a launch rather than fail
a test); run a failing case on one rank, or replay the printed case, to shrink.
"""

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from mpi4py import MPI

import datamotion as dm
from dmtest import (
    ALL, DTYPES, LARGE, ORDERS, WORLD, Unavailable, bcast_case, check_all, check_grid, dist_for, expected_local,
    factorizations, local_from_axis_maps, safely, same_array, sample,
)

SIZE = WORLD.size
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SIZE == 1 else [])
# Fewer examples where the ranks outnumber the cores the most; at 13 and 16 ranks a few.
EXAMPLES = 80 if SIZE <= 4 else 40 if SIZE <= 8 else 6
HALF = max(10, EXAMPLES // 2) if SIZE <= 8 else 3


def prop_settings(examples=EXAMPLES):
    return settings(max_examples=examples, deadline=None, derandomize=True, phases=PHASES, database=None)


@st.composite
def grids(draw, max_ndim=4):
    """(dims, order, periods) of a grid over all of COMM_WORLD."""
    ndim = draw(st.integers(1, max_ndim))
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    order = draw(st.sampled_from(ORDERS))
    periods = draw(st.lists(st.booleans(), min_size=ndim, max_size=ndim))
    # Sometimes let the library choose some extents (zeros), as MPI_Dims_create would.
    chosen = draw(st.booleans())
    return dims, order, periods, chosen


@st.composite
def array_cases(draw, max_ndim=4, max_extent=9):
    dims, order, periods, chosen = draw(grids(max_ndim))
    ndim = len(dims)
    shape = tuple(draw(st.one_of(st.integers(0, 2), st.integers(0, max_extent))) for _ in range(ndim))
    how = draw(st.sampled_from(["default", "one", "per axis"]))
    if how == "default":
        dist = None
    elif how == "one":
        dist = draw(st.sampled_from([dm.Block(), dm.Cyclic(), dm.BlockCyclic(1), dm.BlockCyclic(3)]))
    else:
        dist = [dist_for(draw, d) for d in dims]
    dtype = draw(st.sampled_from(DTYPES))
    ghost = draw(st.one_of(st.integers(0, 2), st.lists(st.integers(0, 2), min_size=ndim, max_size=ndim)))
    root = draw(st.one_of(st.none(), st.integers(0, SIZE - 1)))
    out_root = draw(st.one_of(st.none(), st.integers(0, SIZE - 1)))
    seed = draw(st.integers(0, 2**16))
    return dict(dims=dims, order=order, periods=periods, chosen=chosen, shape=shape, dist=dist,
                dtype=np.dtype(dtype).name, ghost=ghost, root=root, out_root=out_root, seed=seed)


def make_grid(case):
    dims = list(case["dims"])
    if case["chosen"] and len(dims) > 1:
        # Leave the largest extent to the library only where MPI_Dims_create would
        # pick the same one: a single free axis gets whatever remains.
        dims[0] = 0
    grid = dm.ProcessGrid(dims=dims, order=case["order"], periods=case["periods"])
    return grid


@pytest.mark.parallel(nprocs=ALL)
@prop_settings()
@given(case=grids(max_ndim=5))
def test_random_grids(case):
    dims, order, periods, chosen = bcast_case(WORLD, case)
    given_dims = list(dims)
    if chosen:
        given_dims[0] = 0  # one free axis: it gets what the others leave
    g = dm.ProcessGrid(dims=given_dims, order=order, periods=periods)
    check_grid(WORLD, g, dims, order=order, periods=periods)


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings()
@given(case=array_cases())
def test_random_round_trips(case):
    case = bcast_case(WORLD, case)
    grid = make_grid(case)
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    root, out_root = case["root"], case["out_root"]
    a = dm.DistArray.from_global(grid, x if root is None or grid.rank == root else None,
                                 dist=case["dist"], root=root, ghost=case["ghost"])
    back = a.to_global(root=out_root)
    total = grid.comm.allreduce(a.local.size)  # collectives first, then local checks
    problems = []
    receives = out_root is None or grid.rank == out_root
    ok, why = same_array(back, x if receives else None)
    if not ok:
        problems.append(f"to_global: {why}")
    ok, why = same_array(a.local, expected_local(x, a.dist, grid.dims, grid.coords))
    if not ok:
        problems.append(f"local vs oracle: {why}")
    ok, why = same_array(a.local, local_from_axis_maps(a, x))
    if not ok:
        problems.append(f"local vs axis maps: {why}")
    ghost = case["ghost"]
    ghosts = tuple([ghost] * len(x.shape) if isinstance(ghost, int) else ghost)
    if a.ghost != ghosts or a.local_with_ghosts.shape != tuple(n + 2 * g for n, g in zip(a.local_shape, ghosts)):
        problems.append(f"ghost {a.ghost}, storage {a.local_with_ghosts.shape}")
    if a.shape != x.shape or a.dtype != x.dtype:
        problems.append(f"shape/dtype {a.shape} {a.dtype}")
    if total != x.size:
        problems.append(f"owned elements add up to {total}")
    check_all(WORLD, not problems, f"case {case}: " + "; ".join(problems))


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings(examples=EXAMPLES if SIZE <= 8 else HALF)
@given(case=array_cases(max_ndim=3))
def test_random_local_writes(case):
    """Writing every owned element through `local` (here: its own global flat index)
    shows in to_global: every element is owned exactly once, where the maps say."""
    case = bcast_case(WORLD, case)
    grid = make_grid(case)
    shape = case["shape"]
    a = dm.DistArray.zeros(grid, shape, dtype=np.int64, dist=case["dist"], ghost=case["ghost"])
    flat = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) + 1
    block = local_from_axis_maps(a, flat)
    written = safely(lambda: a.local.__setitem__(Ellipsis, block))  # never raises between collectives
    a.local_with_ghosts[...] *= 1  # touching the ghosts changes nothing
    ok, why = same_array(a.to_global(root=case["out_root"]),
                         flat if case["out_root"] in (None, grid.rank) else None)
    check_all(WORLD, ok and not isinstance(written, Unavailable), f"case {case}: {why} {written!r}")


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings(examples=HALF)
@given(case=array_cases(max_ndim=3), other=array_cases(max_ndim=3))
def test_redistribution_through_the_global_array(case, other):
    """From one layout to another (grid, order, distribution, ghosts) through
    to_global/from_global, and scatter into an existing array: values survive."""
    case, other = bcast_case(WORLD, (case, other))
    first, second = make_grid(case), make_grid(other)
    if len(second.dims) != len(case["shape"]):
        second = dm.ProcessGrid(dims=len(case["shape"]), order=other["order"])
    x = sample(case["shape"], case["dtype"], seed=case["seed"])
    a = dm.DistArray.from_global(first, x, dist=case["dist"], ghost=case["ghost"])
    dist = other["dist"] if other["dist"] is None or isinstance(other["dist"], dm.Distribution) else None
    b = dm.DistArray.from_global(second, a.to_global(root=other["root"]), root=other["root"], dist=dist)
    c = dm.DistArray.zeros(first, x.shape, dtype=x.dtype, dist=case["dist"], ghost=case["ghost"])
    c.scatter(b.to_global(root=case["root"]), root=case["root"])
    problems = []
    for name, arr in (("b", b), ("c", c)):
        ok, why = same_array(arr.to_global(), x)
        if not ok:
            problems.append(f"{name}: {why}")
    ok, why = same_array(c.local, a.local)
    if not ok:
        problems.append(f"c.local vs a.local: {why}")
    check_all(WORLD, not problems, f"case {case}, other {other}: " + "; ".join(problems))


@pytest.mark.parallel(nprocs=ALL + LARGE)
@prop_settings(examples=HALF)
@given(case=array_cases(max_ndim=2), split=st.integers(1, 3))
def test_random_round_trips_on_split_communicators(case, split):
    """The same on `split` groups of COMM_WORLD at once, each with its own grid."""
    case = bcast_case(WORLD, case)
    color = WORLD.rank % split
    sub = WORLD.Split(color, key=WORLD.rank)
    try:
        ndim = len(case["shape"])
        grid = dm.ProcessGrid(comm=sub, dims=ndim, order=case["order"])
        x = sample(case["shape"], case["dtype"], seed=case["seed"] + color)
        root = None if case["root"] is None else case["root"] % sub.size
        dist = case["dist"] if case["dist"] is None or isinstance(case["dist"], dm.Distribution) else dm.Cyclic()
        a = dm.DistArray.from_global(grid, x, root=root, dist=dist, ghost=case["ghost"])
        ok, why = same_array(a.to_global(), x)
        ok2, why2 = same_array(a.local, expected_local(x, a.dist, grid.dims, grid.coords))
        check_all(WORLD, ok and ok2 and grid.size == sub.size, f"case {case}, split {split}: {why} {why2}")
    finally:
        sub.Free()


@pytest.mark.parallel(nprocs=ALL)
def test_comm_self_on_every_rank():
    # Not a property test: the same random cases on COMM_SELF, one rank at a time.
    rng = np.random.default_rng(1234)
    problems = []
    for _ in range(10):
        ndim = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(0, 6, ndim))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        grid = dm.ProcessGrid(comm=MPI.COMM_SELF, dims=ndim, order=ORDERS[int(rng.integers(3))])
        x = sample(shape, dtype, seed=WORLD.rank)
        a = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(int(rng.integers(1, 4))), root=0,
                                     ghost=int(rng.integers(0, 3)))
        for what, (ok, why) in (("to_global", same_array(a.to_global(), x)), ("local", same_array(a.local, x))):
            if not ok:
                problems.append(f"{shape} {np.dtype(dtype).name} {what}: {why}")
    check_all(WORLD, not problems, "; ".join(problems))
