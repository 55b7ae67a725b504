"""Halo mode against an oracle built from global indices: every ghost element
holds the global element at its position (wrapping on periodic axes), ghosts past
the edge of a non-periodic axis and, without corners, edges and corners keep what
they held; random shapes, ghost widths, periods and grids at 1-8, 13 and 16 ranks."""

import itertools

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import datamotion as dm
from dmtest import (
    DTYPES, DTYPE_IDS, LARGE, MAIN, WITH_8, WORLD, bcast_case, check_all, check_same_array, factorizations,
    raises_everywhere, sample, uneven_sizes,
)

SIZE = WORLD.size
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SIZE == 1 else [])
UNTOUCHED = 99


def expected_storage(a, x, periods, corners):
    """This rank's storage after an exchange, ghosts that are not filled holding UNTOUCHED."""
    nd, ghost, ext = a.ndim, a.ghost, a.local_shape
    out = np.full(a.local_with_ghosts.shape, UNTOUCHED, dtype=x.dtype)
    if min(ext) == 0:  # a rank that owns nothing has no halo to fill
        return a.local_with_ghosts.copy()
    g0 = [a.axis_map(ax).global_index(a.grid.coords[ax], 0) for ax in range(nd)]
    for idx in itertools.product(*[range(s) for s in out.shape]):
        loc = [idx[ax] - ghost[ax] for ax in range(nd)]
        outside = sum(l < 0 or l >= ext[ax] for ax, l in enumerate(loc))
        if outside > 1 and not corners:
            continue
        gi = []
        for ax in range(nd):
            g = g0[ax] + loc[ax]
            if periods[ax]:
                g %= x.shape[ax]
            elif not 0 <= g < x.shape[ax]:
                break
            gi.append(g)
        else:
            out[idx] = x[tuple(gi)]
    return out


def exchanged(grid, x, ghost, periods, corners, dist=None):
    a = dm.DistArray.from_global(grid, x, ghost=ghost, dist=dist)
    a.local_with_ghosts[...] = UNTOUCHED
    a.local = dm.DistArray.from_global(grid, x, ghost=ghost, dist=dist).local
    dm.Halo(a, corners=corners).exchange(a)
    return a


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_faces_and_corners_every_type(dtype):
    periods = [True, False]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    x = sample((9, 7), dtype, seed=2)
    for corners in (False, True):
        a = exchanged(grid, x, [2, 1], periods, corners)
        check_same_array(WORLD, a.local_with_ghosts, expected_storage(a, x, periods, corners), f"corners={corners}")


@pytest.mark.parallel(nprocs=MAIN)
def test_repeated_exchanges_and_volume():
    grid = dm.ProcessGrid(dims=3, periods=[True] * 3)
    x = sample((4, 5, 6), np.float64, seed=7)
    a = dm.DistArray.from_global(grid, x, ghost=1)
    b = dm.DistArray.from_global(grid, x + 1, ghost=1)
    halo = dm.Halo(a, corners=True)
    for arr, values in ((a, x), (b, x + 1), (a, x)):  # switching arrays rebinds the requests
        halo.exchange(arr)
        check_same_array(WORLD, arr.local_with_ghosts, expected_storage(arr, values, [True] * 3, True))
    v = halo.volume()
    filled = WORLD.allreduce(v["elements_sent"] + v["elements_copied"])
    shell = WORLD.allreduce(int(np.prod(a.local_with_ghosts.shape) - np.prod(a.local_shape))
                            if min(a.local_shape) > 0 else 0)
    check_all(WORLD, filled == shell, f"{filled} ghost elements filled of {shell}")


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_halos_of_sizes_axes(dtype):
    """Ghosts on irregular axes: a ghost region wider than a neighbour's elements
    reads on from the coordinates past it, past those that own nothing too."""
    periods = [True, False]
    grid = dm.ProcessGrid(dims=2, periods=periods)
    for seed, shape in enumerate([(9, 7), (3, 5), (12, 2)]):
        x = sample(shape, dtype, seed=seed)
        dist = [uneven_sizes(shape[0], grid.dims[0], seed), uneven_sizes(shape[1], grid.dims[1], seed + 1)]
        for corners in (False, True):
            a = exchanged(grid, x, [2, 1], periods, corners, dist=dist)
            check_same_array(WORLD, a.local_with_ghosts, expected_storage(a, x, periods, corners),
                             f"{shape} {dist} corners={corners}")


@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    shape = tuple(draw(st.integers(1, 7)) for _ in range(ndim))
    ghost = [draw(st.integers(0, 3)) for _ in range(ndim)]
    periods = [draw(st.booleans()) for _ in range(ndim)]
    return dims, shape, ghost, periods, draw(st.booleans())


@pytest.mark.parallel(nprocs=WITH_8 + [5, 6, 7] + LARGE)
@settings(max_examples=30 if SIZE <= 4 else 15 if SIZE <= 8 else 4, deadline=None, derandomize=True, phases=PHASES,
          database=None)
@given(cases())
def test_random_halos_match_the_oracle(case):
    dims, shape, ghost, periods, corners = bcast_case(WORLD, case)
    grid = dm.ProcessGrid(dims=list(dims), periods=periods)
    x = sample(shape, np.int64, seed=sum(shape))
    a = exchanged(grid, x, ghost, periods, corners)
    check_same_array(WORLD, a.local_with_ghosts, expected_storage(a, x, periods, corners),
                     f"{shape} ghost {ghost} periods {periods} corners {corners} on {dims}")


@pytest.mark.parallel(nprocs=MAIN)
def test_halo_bad_input():
    grid = dm.ProcessGrid(dims=2)
    a = dm.DistArray.from_global(grid, np.zeros((4, 6)), ghost=1)
    halo = dm.Halo(a)
    other = dm.DistArray.zeros(grid, (4, 6), ghost=2)
    raises_everywhere(WORLD, lambda: halo.exchange(other), "DM_ERR_ARG",
                      r"differs from the prototype: ghost width \(1, 1\) expected, \(2, 2\) given$")
    if SIZE > 1:
        cyclic = dm.DistArray.zeros(dm.ProcessGrid(), (8,), dist=dm.Cyclic(), ghost=1)
        raises_everywhere(WORLD, lambda: dm.Halo(cyclic), "DM_ERR_UNSUPPORTED", r"not Block-distributed")
