"""Sizes and distances at the limits of 64-bit integers: shifts by any int64
distance give NumPy's answer, and arrays no machine can hold fail with
``datamotion.Error`` on every rank before anything is allocated."""

import numpy as np
import pytest

import datamotion as dm
from dmtest import MAIN, WORLD, check_same_array, raises_everywhere

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
DISTANCES = [INT64_MIN, INT64_MIN + 1, -2**62, -13, -12, -1, 0, 1, 12, 13, 2**62, INT64_MAX - 1, INT64_MAX]


def eoshift_oracle(x, shift, boundary):
    n = len(x)
    out = np.full_like(x, boundary)
    if abs(shift) < n:
        out[max(-shift, 0):n - max(shift, 0)] = x[max(shift, 0):n + min(shift, 0)]
    return out


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("n", [12, 13, 1])
@pytest.mark.parametrize("ghost", [0, 1])
def test_shifts_by_any_int64_distance_match_numpy(n, ghost):
    x = np.arange(n, dtype=np.int64)
    a = dm.DistArray.from_global(dm.ProcessGrid(), x, ghost=ghost)
    for s in DISTANCES:
        check_same_array(WORLD, dm.cshift(a, s, 0).to_global(), np.roll(x, -(s % n)), f"cshift by {s}")
        check_same_array(WORLD, dm.eoshift(a, s, 0, boundary=7).to_global(), eoshift_oracle(x, s, 7),
                         f"eoshift by {s}")


@pytest.mark.parallel(nprocs=MAIN)
def test_the_reported_cases():
    x = np.arange(12, dtype=np.int64)
    a = dm.DistArray.from_global(dm.ProcessGrid(), x)
    check_same_array(WORLD, dm.cshift(a, INT64_MAX, 0).to_global(), np.roll(x, -(INT64_MAX % 12)), "cshift")
    check_same_array(WORLD, dm.eoshift(a, INT64_MIN, 0, boundary=7).to_global(), np.full(12, 7), "eoshift")


@pytest.mark.parallel(nprocs=MAIN)
def test_arrays_no_machine_holds_fail_everywhere():
    line, plane = dm.ProcessGrid(), dm.ProcessGrid(dims=2)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(line, (2**62,), np.float64), "DM_ERR_MEMORY",
                      r"too large for any memory")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(line, (INT64_MAX,), np.bool_), "DM_ERR_MEMORY",
                      r"local storage \(ghosts included\)")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(plane, (2**62, 4), np.bool_), "DM_ERR_ARG",
                      r"global size overflows 64 bits")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(plane, (2**30, 2**29), np.int64), "DM_ERR_MEMORY",
                      r"local storage \(ghosts included\)")
    # 8 elements with 2 x 2^30 ghosts: refused, not 16 GiB tried (more than this machine
    # holds, or else more than an MPI datatype describes).
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(line, (8,), np.float64, ghost=2**30), None,
                      r"this machine's memory|largest extent an MPI datatype describes")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(line, (8,), np.bool_, ghost=2**30), "DM_ERR_ARG",
                      r"largest extent an MPI datatype describes")
    a = dm.DistArray.zeros(plane, (3, 4), np.float64, ghost=2)  # still usable
    check_same_array(WORLD, a.to_global(), np.zeros((3, 4)), "zeros after the failures")


@pytest.mark.parallel(nprocs=MAIN)
def test_block_factors_beyond_any_schedule_table():
    """Block 1 -> 2^40 is a factor K no P x K schedule table can hold: 'sendrecv'
    schedules it like any other change of distribution, with the right data, and the
    methods that need the table refuse it on every rank."""
    from datamotion import redist
    grid = dm.ProcessGrid()
    x = np.arange(11, dtype=np.int32)
    for small, large in ((1, 2**40), (3, 3 * 2**20)):
        a = dm.DistArray.from_global(grid, x, dist=dm.BlockCyclic(small))
        b = dm.DistArray.zeros(grid, (11,), np.int32, dist=dm.BlockCyclic(large))
        redist.RedistPlan(a, b, "sendrecv").execute(a, b)
        back = dm.DistArray.zeros(grid, (11,), np.int32, dist=dm.BlockCyclic(small))
        redist.RedistPlan(b, back, "sendrecv").execute(b, back)
        check_same_array(WORLD, b.to_global(), x, f"{small} -> {large}")
        check_same_array(WORLD, back.to_global(), x, f"{large} -> {small}")
        for method in ("simple", "random"):
            raises_everywhere(WORLD, lambda: redist.RedistPlan(a, b, method), "DM_ERR_ARG", "factor of at most 65536")
