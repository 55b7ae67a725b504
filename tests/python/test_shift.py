"""PSHIFT against NumPy: CSHIFT is numpy.roll(a, -s, axis); EOSHIFT is a slice copy
with the boundary in the vacated positions. Random shapes, grids and shift sets
(Hypothesis, each case broadcast from rank 0), every element type, ghosts,
shifts longer than the axis, sources that are also destinations, and bad input
failing the same way on every rank."""

import warnings

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import datamotion as dm
from datamotion._plans import CAPACITY
from dmtest import (
    DTYPES, DTYPE_IDS, LARGE, MAIN, WITH_8, WORLD, bcast_case, check_all, check_same_array, factorizations,
    raises_everywhere, run_job, safely, same_array, sample, uneven_sizes,
)

SIZE = WORLD.size
PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if SIZE == 1 else [])


# ---------------------------------------------------------------------------
# The oracle
# ---------------------------------------------------------------------------

def lines_shape(shape, axis):
    return tuple(n for a, n in enumerate(shape) if a != axis)


def expected_shift(x, shift, axis, kind="c", boundary=0):
    """Fortran's CSHIFT ("c") or EOSHIFT ("eo") of the global array x."""
    if kind == "c":
        return np.roll(x, -shift, axis) if x.shape[axis] else x.copy()
    n = x.shape[axis]
    b = np.asarray(boundary, dtype=x.dtype)
    out = np.empty_like(x)
    out[...] = np.expand_dims(b, axis) if b.ndim else b
    if abs(shift) < n:
        src = [slice(None)] * x.ndim
        dst = [slice(None)] * x.ndim
        src[axis] = slice(max(shift, 0), n + min(shift, 0))
        dst[axis] = slice(max(-shift, 0), n - max(shift, 0))
        out[tuple(dst)] = x[tuple(src)]
    return out


def boundary_value(dtype, k):
    return sample((1,), dtype, seed=100 + k)[0]


# ---------------------------------------------------------------------------
# Examples
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_every_type_every_kind_of_boundary(dtype):
    grid = dm.ProcessGrid(dims=2)
    x = sample((7, 5), dtype, seed=3)
    a = dm.DistArray.from_global(grid, x, ghost=1)
    lines = sample((5,), dtype, seed=4)
    shifts = [dm.CShift(2, axis=0), dm.CShift(-1, axis=1), dm.EOShift(-3, axis=0), dm.EOShift(2, axis=1, boundary=1),
              dm.EOShift(1, axis=0, boundary=boundary_value(dtype, 0)), dm.EOShift(-2, axis=0, boundary=lines)]
    results = dm.PShift(a, shifts)([a] * len(shifts))
    expected = [expected_shift(x, 2, 0), expected_shift(x, -1, 1), expected_shift(x, -3, 0, "eo", 0),
                expected_shift(x, 2, 1, "eo", 1), expected_shift(x, 1, 0, "eo", boundary_value(dtype, 0)),
                expected_shift(x, -2, 0, "eo", lines)]
    for k, (r, e) in enumerate(zip(results, expected)):
        check_same_array(WORLD, r.to_global(), e, f"shift {k} ({shifts[k]})")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_any_distance_on_uneven_axes(n):
    # Ranks that own nothing (n < SIZE), distances of 0, past the local extent,
    # past twice it, past the whole axis, both signs.
    grid = dm.ProcessGrid()
    x = sample((n,), np.float64, seed=n)
    a = dm.DistArray.from_global(grid, x)
    distances = [0, 1, -1, 2, -3, n, -n, n + 1, 2 * n + 3, -(3 * n + 2), 17]
    plan = dm.PShift(a, [dm.CShift(s, axis=0) for s in distances]
                     + [dm.EOShift(s, axis=0, boundary=7.0) for s in distances])
    results = plan([a] * (2 * len(distances)))
    for s, r in zip(distances, results):
        check_same_array(WORLD, r.to_global(), expected_shift(x, s, 0), f"cshift {s}")
    for s, r in zip(distances, results[len(distances):]):
        check_same_array(WORLD, r.to_global(), expected_shift(x, s, 0, "eo", 7.0), f"eoshift {s}")


@pytest.mark.parallel(nprocs=MAIN)
def test_seven_dimensions_with_local_axes():
    grid = dm.ProcessGrid(dims=[0, 1, 0, 1, 1, 1, 1])
    x = sample((3, 2, 4, 1, 2, 1, 3), np.complex128, seed=9)
    a = dm.DistArray.from_global(grid, x, ghost=[1, 0, 2, 0, 1, 0, 1])
    shifts = [dm.CShift(s, axis=axis) for axis, s in [(0, 1), (1, -1), (2, 5), (6, 2), (4, 1)]]
    for shift, r in zip(shifts, dm.PShift(a, shifts)([a] * len(shifts))):
        check_same_array(WORLD, r.to_global(), expected_shift(x, shift.shift, shift.axis), str(shift))


@pytest.mark.parallel(nprocs=WITH_8)
def test_sources_that_are_destinations():
    grid = dm.ProcessGrid(dims=2)
    x = sample((6, 7), np.int64, seed=1)
    a = dm.DistArray.from_global(grid, x, ghost=1)
    b = dm.DistArray.from_global(grid, x + 1, ghost=1)
    # a <- cshift(a), b <- eoshift(a), c <- cshift(b): every source read before any write.
    c = dm.DistArray.zeros(grid, x.shape, np.int64, ghost=1)
    plan = dm.PShift(a, [dm.CShift(1, axis=0), dm.EOShift(-2, axis=1, boundary=5), dm.CShift(3, axis=1)])
    for _ in range(3):  # again with the same arrays: the persistent requests are reused
        xa, xb = a.to_global(), b.to_global()
        plan.execute([a, b, c], [a, a, b])
        check_same_array(WORLD, a.to_global(), expected_shift(xa, 1, 0), "a")
        check_same_array(WORLD, b.to_global(), expected_shift(xa, -2, 1, "eo", 5), "b")
        check_same_array(WORLD, c.to_global(), expected_shift(xb, 3, 1), "c")


@pytest.mark.parallel(nprocs=MAIN)
def test_the_unchecked_fast_path():
    """PShift.execute's one-call path (taken outside checked mode): the shifts of a list
    or a tuple, sources that are destinations included; anything else is declined
    (False, nothing done) for the general path to check and report."""
    grid = dm.ProcessGrid(dims=2)
    x = sample((6, 7), np.float64, seed=3)
    a = dm.DistArray.from_global(grid, x)
    b = dm.DistArray.zeros(grid, x.shape)
    plan = dm.PShift(a, [dm.CShift(1, axis=0), dm.CShift(-2, axis=1)])._plan
    assert plan.execute_direct((b, a), [a, a])
    check_same_array(WORLD, b.to_global(), expected_shift(x, 1, 0), "b")
    check_same_array(WORLD, a.to_global(), expected_shift(x, -2, 1), "a")
    for dsts, srcs in [([b], [a]), ([b, "a"], [a, a]), (iter([b, a]), [a, a]), ([b, a], [a, None])]:
        assert not plan.execute_direct(dsts, srcs)
    check_same_array(WORLD, a.to_global(), expected_shift(x, -2, 1), "a untouched")


@pytest.mark.parallel(nprocs=MAIN)
def test_boundary_as_a_distributed_array():
    grid = dm.ProcessGrid(dims=2)
    x = sample((5, 6), np.float32, seed=2)
    lines = sample((6,), np.float32, seed=5)
    line_array = dm.DistArray.from_global(dm.ProcessGrid(), lines)
    a = dm.DistArray.from_global(grid, x)
    r = dm.eoshift(a, 2, 0, boundary=line_array)
    check_same_array(WORLD, r.to_global(), expected_shift(x, 2, 0, "eo", lines))


@pytest.mark.parallel(nprocs=MAIN)
def test_conveniences_and_volume():
    grid = dm.ProcessGrid()
    x = sample((10,), np.float64)
    a = dm.DistArray.from_global(grid, x)
    check_same_array(WORLD, dm.cshift(a, 3, 0).to_global(), np.roll(x, -3))
    check_same_array(WORLD, dm.eoshift(a, -4, 0).to_global(), expected_shift(x, -4, 0, "eo", 0))
    v = dm.PShift(a, [dm.CShift(1, axis=0), dm.CShift(-1, axis=0)]).volume()
    # Every element moves once per shift: sent to another rank or copied locally.
    moved = WORLD.allreduce(v["elements_sent"] + v["elements_copied"])
    check_all(WORLD, moved == 2 * x.size, f"{moved} elements moved")


@pytest.mark.parallel(nprocs=MAIN)
def test_shift_signatures_take_the_distance_then_the_axis():
    """CShift(shift, axis=...) and EOShift(shift, axis=..., boundary=...) in the order of
    cshift(a, shift, axis) and numpy.roll; the old CShift(axis, shift) order still
    works and warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new forms warn of nothing
        new = [dm.CShift(2, axis=1), dm.CShift(shift=2, axis=1), dm.CShift(axis=1, shift=2)]
        end_off = dm.EOShift(-1, axis=0, boundary=7.0)
    assert new[0] == new[1] == new[2] and (new[0].shift, new[0].axis) == (2, 1)
    assert repr(new[0]) == "CShift(shift=2, axis=1)"
    assert (end_off.shift, end_off.axis, end_off.boundary) == (-1, 0, 7.0)
    with pytest.warns(DeprecationWarning, match=r"CShift\(axis, shift\) is deprecated: write CShift\(2, axis=1\)"):
        assert dm.CShift(1, 2) == new[0]
    with pytest.warns(DeprecationWarning, match=r"EOShift\(axis, shift\)"):
        old = dm.EOShift(0, -1, 7.0)
    assert (old.shift, old.axis, old.boundary) == (-1, 0, 7.0)
    with pytest.warns(DeprecationWarning):
        assert dm.EOShift(0, -1).boundary == 0.0
    for wrong in (lambda: dm.CShift(2), lambda: dm.CShift(1, 2, axis=1), lambda: dm.CShift(1, 2, 3),
                  lambda: dm.EOShift(0, 1, 2.0, 3.0)):
        with pytest.raises(TypeError):
            wrong()

    grid = dm.ProcessGrid(dims=2)
    x = sample((6, 5), np.float64, seed=5)
    a = dm.DistArray.from_global(grid, x)
    by_keyword = dm.cshift(a, shift=2, axis=1).to_global()
    by_plan = dm.PShift(a, [new[0]])([a])[0].to_global()
    check_same_array(WORLD, by_keyword, np.roll(x, -2, axis=1), "cshift(a, shift=2, axis=1)")
    check_same_array(WORLD, by_plan, np.roll(x, -2, axis=1), "PShift with CShift(2, axis=1)")
    check_same_array(WORLD, dm.eoshift(a, shift=-1, axis=0, boundary=7.0).to_global(),
                     expected_shift(x, -1, 0, "eo", 7.0), "eoshift by keywords")


# ---------------------------------------------------------------------------
# Properties: random grids, shapes and shift sets
# ---------------------------------------------------------------------------

@st.composite
def cases(draw):
    ndim = draw(st.integers(1, 3))
    dims = draw(st.sampled_from(factorizations(SIZE, ndim)))
    shape = tuple(draw(st.integers(0, 8)) for _ in range(ndim))
    ghost = [draw(st.integers(0, 2)) for _ in range(ndim)]
    dtype = draw(st.sampled_from(DTYPES))
    dist = []  # every distribution, on every axis (src < the grid coordinates of its axis)
    for a in range(ndim):
        kind = draw(st.sampled_from(["block", "cyclic", "blockcyclic"]))
        dist.append(("block",) if kind == "block" else ("cyclic",) if kind == "cyclic"
                    else ("blockcyclic", draw(st.integers(1, 4)), draw(st.integers(0, dims[a] - 1))))
    shifts = []
    for _ in range(draw(st.integers(1, 5))):
        axis = draw(st.integers(0, ndim - 1))
        s = draw(st.integers(-20, 20))
        kind = draw(st.sampled_from(["c", "eo0", "eo1", "eoscalar", "eoarray"]))
        shifts.append((kind, axis, s))
    return dims, shape, ghost, np.dtype(dtype).str, dist, shifts


def distribution(spec):
    return {"block": dm.Block, "cyclic": dm.Cyclic}[spec[0]]() if spec[0] != "blockcyclic" else dm.BlockCyclic(*spec[1:])


def make_shift(kind, axis, s, shape, dtype, k):
    if kind == "c":
        return dm.CShift(s, axis=axis), 0
    boundary = {"eo0": 0, "eo1": 1, "eoscalar": boundary_value(dtype, k),
                "eoarray": sample(lines_shape(shape, axis), dtype, seed=k)}[kind]
    return dm.EOShift(s, axis=axis, boundary=boundary), boundary


@pytest.mark.parallel(nprocs=WITH_8 + [5, 6, 7] + LARGE)
@settings(max_examples=40 if SIZE <= 4 else 20 if SIZE <= 8 else 4, deadline=None, derandomize=True, phases=PHASES,
          database=None)
@given(cases())
def test_random_polyshifts_match_numpy(case):
    dims, shape, ghost, dtype, dist, shifts = bcast_case(WORLD, case)
    dtype = np.dtype(dtype)
    grid = dm.ProcessGrid(dims=list(dims))
    x = sample(shape, dtype, seed=len(shifts))
    dist = [distribution(d) for d in dist]
    a = dm.DistArray.from_global(grid, x, ghost=ghost, dist=dist)
    made = [make_shift(kind, axis, s, shape, dtype, k) for k, (kind, axis, s) in enumerate(shifts)]
    results = dm.PShift(a, [m[0] for m in made])([a] * len(made))
    for k, ((kind, axis, s), (_, boundary), r) in enumerate(zip(shifts, made, results)):
        expected = safely(lambda: expected_shift(x, s, axis, "c" if kind == "c" else "eo", boundary))
        ok, why = same_array(r.to_global(), expected)
        check_all(WORLD, ok, f"shift {k} {kind} axis {axis} by {s} of {shape} {dist} on {dims}: {why}")


# ---------------------------------------------------------------------------
# Bad input: the same error on every rank, nothing hangs
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
def test_bad_plans_and_executions():
    grid = dm.ProcessGrid(dims=2)
    a = dm.DistArray.from_global(grid, np.zeros((4, 6)))
    raises_everywhere(WORLD, lambda: dm.PShift(a, [dm.CShift(1, axis=2)]), "DM_ERR_ARG",
                      r"axis 2 out of range \[0, 2\)")
    raises_everywhere(WORLD, lambda: dm.PShift(a, [dm.CShift(1, axis=-1)]), "DM_ERR_ARG", r"axis -1 out of range")
    raises_everywhere(WORLD, lambda: dm.PShift(a, ["north"]), "DM_ERR_ARG", r"expected CShift or EOShift")
    plan = dm.PShift(a, [dm.CShift(1, axis=0), dm.EOShift(1, axis=1, boundary=np.arange(4.0))])
    other_shape = dm.DistArray.zeros(grid, (4, 7))
    other_type = dm.DistArray.zeros(grid, (4, 6), np.float32)
    other_ghost = dm.DistArray.zeros(grid, (4, 6), ghost=1)
    other_dist = dm.DistArray.zeros(grid, (4, 6), dist=dm.Cyclic())
    # The message names what differs, with the planned and the given value.
    differences = [(other_shape, r"shape \(4, 6\) expected, \(4, 7\) given"),
                   (other_type, r"element type float64 expected, float32 given"),
                   (other_ghost, r"ghost width \(0, 0\) expected, \(1, 1\) given"),
                   (other_dist, r"distribution \(Block\(\), Block\(\)\) expected, \(Cyclic\(\), Cyclic\(\)\) given")]
    for bad, difference in differences:
        raises_everywhere(WORLD, lambda: plan.execute([bad, a], [a, a]), "DM_ERR_ARG",
                          r"shift 0: destination differs from the prototype: " + difference + "$")
        raises_everywhere(WORLD, lambda: plan.execute([other_shape, a], [a, bad]), "DM_ERR_ARG", r"differs from the prototype")
    other_grid = dm.DistArray.zeros(dm.ProcessGrid(dims=2, order="news"), (4, 6))
    raises_everywhere(WORLD, lambda: plan.execute([other_grid, a], [a, a]),
                      "DM_ERR_ARG", r"shift 0: destination differs from the prototype: process grid: the planned grid "
                      rf"object \(dims \({grid.dims[0]}, {grid.dims[1]}\), order send\) expected, another "
                      rf"\(dims \({grid.dims[0]}, {grid.dims[1]}\), order news\) given$")
    b = dm.DistArray.zeros(grid, (4, 6))
    raises_everywhere(WORLD, lambda: plan.execute([b], [a]), "DM_ERR_ARG", r"the plan has 2 shifts")
    raises_everywhere(WORLD, lambda: plan.execute([b, b], [a, a]), "DM_ERR_ARG", r"same destination")
    # A source repeated from the shift before is checked once; one after it still is.
    three = dm.PShift(a, [dm.CShift(1, axis=0), dm.CShift(-1, axis=0), dm.CShift(1, axis=1)])
    outs = [dm.DistArray.zeros(grid, (4, 6)) for _ in range(3)]
    raises_everywhere(WORLD, lambda: three.execute(outs, [a, a, other_shape]), "DM_ERR_ARG",
                      r"shift 2: source differs from the prototype")
    wrong_lines = dm.PShift(a, [dm.EOShift(1, axis=1, boundary=np.arange(5.0))])
    raises_everywhere(WORLD, lambda: wrong_lines.execute([b], [a]), "DM_ERR_ARG", r"boundary")


@pytest.mark.parallel(nprocs=MAIN)
def test_plans_used_after_free():
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.zeros(8), ghost=1)
    plan, halo = dm.PShift(a, [dm.CShift(1, axis=0)]), dm.Halo(a)
    plan.free()
    halo.free()
    raises_everywhere(WORLD, lambda: plan.execute([a], [a]), "DM_ERR_STATE", r"used after free")
    raises_everywhere(WORLD, lambda: plan([a]), "DM_ERR_STATE", r"used after free")
    raises_everywhere(WORLD, lambda: halo.exchange(a), "DM_ERR_STATE", r"used after free")


# Every distribution with float64, and every element type with the one that has the
# most irregular runs (blocks of 3 from coordinate 1).
NON_BLOCK_CASES = ([(np.float64, dist, n) for dist in (dm.Cyclic(), dm.BlockCyclic(2), dm.BlockCyclic(3, src=1))
                    for n in (2, 11)]
                   + [(dtype, dm.BlockCyclic(3, src=1), 11) for dtype in DTYPES if dtype is not np.float64])


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("dtype, dist, n", NON_BLOCK_CASES,
                         ids=[f"{np.dtype(t).name}-{d}-{n}" for t, d, n in NON_BLOCK_CASES])
def test_shifts_of_cyclic_and_block_cyclic_axes(dtype, dist, n):
    # Uneven axes, ranks that own nothing, distances past a block, past the axis, both
    # signs: the same results as on Block axes, through the same exchange.
    grid = dm.ProcessGrid()
    if isinstance(dist, dm.BlockCyclic) and dist.src >= grid.dims[0]:
        dist = dm.BlockCyclic(dist.r)
    x = sample((n,), dtype, seed=n + 1)
    a = dm.DistArray.from_global(grid, x, dist=dist)
    distances = [0, 1, -3, 4, n + 1, 2 * n + 3, -(3 * n + 2)]
    boundary = boundary_value(dtype, 1)
    plan = dm.PShift(a, [dm.CShift(s, axis=0) for s in distances]
                     + [dm.EOShift(s, axis=0, boundary=boundary) for s in distances])
    results = plan([a] * (2 * len(distances)))
    for s, r in zip(distances, results):
        check_same_array(WORLD, r.to_global(), expected_shift(x, s, 0), f"cshift {s} of {dist}")
    for s, r in zip(distances, results[len(distances):]):
        check_same_array(WORLD, r.to_global(), expected_shift(x, s, 0, "eo", boundary), f"eoshift {s} of {dist}")
    check_same_array(WORLD, dm.cshift(a, 3, 0).to_global(), expected_shift(x, 3, 0), f"cshift(a, 3, 0) of {dist}")


@pytest.mark.parallel(nprocs=WITH_8)
def test_shifts_of_a_2d_block_cyclic_array_with_ghosts():
    # Both axes shifted, ScaLAPACK's 2-d block-cyclic layout with a source coordinate,
    # ghost storage on a non-Block axis, sources that are destinations.
    grid = dm.ProcessGrid(dims=2)
    x = sample((9, 7), np.float64, seed=2)
    dist = [dm.BlockCyclic(2, src=grid.dims[0] - 1), dm.Cyclic()]
    a = dm.DistArray.from_global(grid, x, dist=dist, ghost=1)
    shifts = [dm.CShift(3, axis=0), dm.CShift(-2, axis=1), dm.EOShift(5, axis=0, boundary=np.arange(7.0)),
              dm.EOShift(-1, axis=1, boundary=4.0)]
    expected = [expected_shift(x, 3, 0), expected_shift(x, -2, 1), expected_shift(x, 5, 0, "eo", np.arange(7.0)),
                expected_shift(x, -1, 1, "eo", 4.0)]
    for k, (r, e) in enumerate(zip(dm.PShift(a, shifts)([a] * len(shifts)), expected)):
        check_same_array(WORLD, r.to_global(), e, f"shift {k} ({shifts[k]})")
    dm.PShift(a, [shifts[0]]).execute([a], [a])  # in place
    check_same_array(WORLD, a.to_global(), expected[0], "in place")


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_shifts_of_sizes_axes(dtype):
    # One irregular axis (coordinate 0 owning nothing, others one element) of a 2-d
    # array with ghosts: distances within a coordinate's run, past several, past the
    # axis, both signs, along it and along the other axis.
    grid = dm.ProcessGrid(dims=[0, 1])
    for n in (1, 6, 13):
        x = sample((n, 4), dtype, seed=n)
        sizes = uneven_sizes(n, grid.dims[0], n)
        a = dm.DistArray.from_global(grid, x, dist=[sizes, dm.Block()], ghost=[1, 0])
        boundary = boundary_value(dtype, 2)
        lines = sample((4,), dtype, seed=n + 1)
        distances = [0, 1, -2, 5, n + 1, -(2 * n + 3)]
        shifts = ([dm.CShift(d, axis=0) for d in distances] + [dm.EOShift(d, axis=0, boundary=boundary) for d in distances]
                  + [dm.EOShift(-3, axis=0, boundary=lines), dm.CShift(3, axis=1), dm.EOShift(-1, axis=1)])
        expected = ([expected_shift(x, d, 0) for d in distances]
                    + [expected_shift(x, d, 0, "eo", boundary) for d in distances]
                    + [expected_shift(x, -3, 0, "eo", lines), expected_shift(x, 3, 1), expected_shift(x, -1, 1, "eo", 0)])
        for k, (r, e) in enumerate(zip(dm.PShift(a, shifts)([a] * len(shifts)), expected)):
            check_same_array(WORLD, r.to_global(), e, f"n {n} {sizes} shift {k} ({shifts[k]})")
            check_all(WORLD, r.dist == (sizes, dm.Block()), f"result dist {r.dist}")
        check_same_array(WORLD, dm.cshift(a, 2, 0).to_global(), expected_shift(x, 2, 0), f"cshift(a, 2, 0) of {sizes}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_shift_specs_differing_across_ranks():
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.zeros(8))
    s = 2 if WORLD.rank == SIZE - 1 else 1
    raises_everywhere(WORLD, lambda: dm.PShift(a, [dm.CShift(s, axis=0)]), "DM_ERR_MISMATCH", r"differs across ranks")


@pytest.mark.parallel(nprocs=WITH_8)
def test_one_shot_shifts_reuse_their_plans():
    grid = dm.ProcessGrid(dims=2)
    x = sample((6, 5), np.float64, seed=11)
    a = dm.DistArray.from_global(grid, x)
    results = []
    for _ in range(3):  # the second and third calls find the first's plan
        results.append((dm.cshift(a, 2, 0).to_global(), np.roll(x, -2, 0), "cshift"))
        results.append((dm.eoshift(a, -1, 1, boundary=7.5).to_global(), expected_shift(x, -1, 1, "eo", 7.5), "eoshift 7.5"))
        results.append((dm.eoshift(a, -1, 1, boundary=-2.0).to_global(), expected_shift(x, -1, 1, "eo", -2.0), "eoshift -2"))
    for got, want, what in results:
        check_same_array(WORLD, got, want, what)
    check_all(WORLD, len(grid._plans) == 2, f"{len(grid._plans)} plans kept for two shifts")
    for s in range(40):  # the cache is bounded
        dm.cshift(a, s, 1)
    check_all(WORLD, len(grid._plans) <= CAPACITY, f"{len(grid._plans)} plans kept")


_UNCHECKED_PSHIFT = r"""
import numpy as np
import datamotion as dm
from mpi4py import MPI
from datamotion import _core
assert not _core.checked_mode()
grid = dm.ProcessGrid(dims=2, periods=[True, False])
x = np.arange(7.0 * 5).reshape(7, 5)
a = dm.DistArray.from_global(grid, x, ghost=1)
shifts = [dm.CShift(1, axis=0), dm.CShift(-2, axis=0), dm.EOShift(1, axis=1), dm.EOShift(-1, axis=1, boundary=0)]
plan = dm.PShift(a, shifts)
assert plan._direct  # the path under test
for dsts in ([dm.DistArray.zeros(grid, x.shape, ghost=1) for _ in shifts],
             tuple(dm.DistArray.zeros(grid, x.shape, ghost=1) for _ in shifts)):
    for _ in range(2):  # reused
        plan.execute(dsts, [a] * len(shifts))
        got = [d.to_global() for d in dsts]
        if MPI.COMM_WORLD.rank == 0:
            right = np.zeros_like(x); right[:, :-1] = x[:, 1:]
            left = np.zeros_like(x); left[:, 1:] = x[:, :-1]
            for g, want in zip(got, [np.roll(x, -1, 0), np.roll(x, 2, 0), right, left]):
                assert np.array_equal(g, want), (g, want)
scalar = dm.PShift(a, [dm.EOShift(1, axis=0, boundary=7.5)])  # boundary values: the checked path
got = scalar([a])[0].to_global()
if MPI.COMM_WORLD.rank == 0:
    want = np.full_like(x, 7.5); want[:-1] = x[1:]
    assert np.array_equal(got, want), (got, want)
print("PSHIFT OK", flush=True)
"""


@pytest.mark.parallel(nprocs=[1])
def test_pshift_outside_checked_mode_matches_the_oracle(tmp_path):
    """Outside checked mode execute() goes straight to the C++ plan (no Python-side
    agreement): the results are the same, with lists and tuples, reused."""
    done = run_job(_UNCHECKED_PSHIFT, 3, tmp_path, DATAMOTION_CHECK="0")
    assert done.returncode == 0 and "PSHIFT OK" in done.stdout, done.stdout
