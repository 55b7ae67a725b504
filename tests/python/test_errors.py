"""Bad input: datamotion.Error on every rank, with the same code and message, and
never a hang.

Every case goes through `raises_everywhere`, which gathers what each rank raised
and checks that it is one and the same datamotion.Error. Cases where only one
rank passes something different are the interesting ones: the other ranks did
nothing wrong and must fail all the same.
"""

import pickle

import numpy as np
import pytest
from mpi4py import MPI

import datamotion as dm
from datamotion import _core
from dmtest import MAIN, WITH_8, WORLD, check_all, check_same_array, raises_everywhere

MULTI = [2, 3, 4]  # cases that need a rank to differ from another
LAST = WORLD.size - 1


def still_works(grid=None):
    """Collective. After an error the library and the grid are still usable: no
    stray messages, nobody left behind in a collective."""
    grid = grid or dm.ProcessGrid()
    x = np.arange(2.0 * grid.size + 1).reshape(-1, *([1] * (grid.ndim - 1)))
    check_same_array(WORLD, dm.DistArray.from_global(grid, x, root=0).to_global(), x, "round trip after an error")


# ---------------------------------------------------------------------------
# The exception type
# ---------------------------------------------------------------------------

def test_error_type():
    e = dm.Error(3, "global shape differs across ranks")
    assert isinstance(e, RuntimeError)
    assert (e.code, e.status, e.message) == (3, "DM_ERR_MISMATCH", "global shape differs across ranks")
    assert str(e) == "global shape differs across ranks [DM_ERR_MISMATCH]"  # as the C library's one-liners end
    assert repr(e) == "datamotion.Error(DM_ERR_MISMATCH, 'global shape differs across ranks')"
    assert f"{type(e).__module__}.{type(e).__qualname__}" == "datamotion.Error"  # the name tracebacks show
    names = {1: "DM_ERR_ARG", 2: "DM_ERR_TYPE", 3: "DM_ERR_MISMATCH", 4: "DM_ERR_MPI", 5: "DM_ERR_MEMORY",
             6: "DM_ERR_STATE", 7: "DM_ERR_UNSUPPORTED", 8: "DM_ERR_INTERNAL"}
    for code, name in names.items():
        assert dm.Error(code, "").status == name
        assert _core.status_name(code) == name  # the C library's names agree
    assert dm.Error(99, "").status == "DM_ERR_UNKNOWN"
    back = pickle.loads(pickle.dumps(e))
    assert (type(back), back.code, back.status, back.message) == (dm.Error, 3, "DM_ERR_MISMATCH", e.message)


# ---------------------------------------------------------------------------
# Process grids
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
def test_grid_dims_product_is_not_the_size():
    size = WORLD.size
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=[size + 1]), "DM_ERR_ARG", r"dims product")
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=[size, 2]), "DM_ERR_ARG", r"dims product")
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=[2 * size, 0]), "DM_ERR_ARG", r"dims product")
    if size > 1:
        raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=[1, 1]), "DM_ERR_ARG",
                          rf"dims product 1 differs from the {size} ranks")
    still_works()


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dims, match", [
    ([-1], r"axis 0 is negative"),
    ([1, -2], r"axis 1 is negative"),
    ([], r"number of axes must be in \[1, 7\], got 0"),
    ([0] * 8, r"number of axes must be in \[1, 7\], got 8"),
    (0, r"got 0"),
    (8, r"got 8"),
])
def test_grid_bad_dims(dims, match):
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=dims), "DM_ERR_ARG", match)


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("order", ["NEWS", "hilbert", "", "row-major"])
def test_grid_unknown_order(order):
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(order=order), "DM_ERR_ARG",
                      rf"unknown grid order {order!r}")


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_unknown_order_on_one_rank():
    order = "snake" if WORLD.rank == LAST else "news"
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(order=order), "DM_ERR_ARG", r"unknown grid order 'snake'")


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_periods_of_the_wrong_length():
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=2, periods=[True]), "DM_ERR_ARG",
                      r"1 periodic flags for 2 axes")


@pytest.mark.parallel(nprocs=MULTI + [8])
@pytest.mark.parametrize("what", ["dims", "order", "periods", "ndim"])
def test_grid_arguments_differ_across_ranks(what):
    size, rank = WORLD.size, WORLD.rank
    kw = {"dims": [0, 0], "order": "news", "periods": [False, False]}
    if what == "dims":
        kw["dims"] = [size, 1] if rank == LAST else [1, size]
    elif what == "order":
        kw["order"] = "send" if rank == 0 else "shuffle"
    elif what == "periods":
        kw["periods"] = [True, False] if rank == LAST else [False, False]
    else:
        kw["dims"] = [0, 0, 0] if rank == LAST else [0, 0]
        kw["periods"] = None
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(**kw), "DM_ERR_MISMATCH",
                      r"process grid arguments \(dims, order, periods\) differs across ranks")
    still_works()


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_local_queries_out_of_range():
    g = dm.ProcessGrid(dims=[0, 1])
    for call, match in [
        (lambda: g.rank_of((g.dims[0], 0)), r"grid coordinate .* out of range"),
        (lambda: g.rank_of((-1, 0)), r"out of range"),
        (lambda: g.rank_of((0,)), r"1 coordinates for a grid of 2 axes"),
        (lambda: g.coords_of(WORLD.size), r"rank .* out of range"),
        (lambda: g.coords_of(-1), r"rank -1 out of range"),
        (lambda: g.axis_comm(2), r"axis 2 out of range"),
        (lambda: g.axis_comm(-1), r"axis -1 out of range"),
    ]:
        # Local calls: the same error on every rank because every rank makes the same mistake.
        raises_everywhere(WORLD, call, "DM_ERR_ARG", match)


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_on_the_null_communicator():
    # Not a valid communicator: refused (by MPI, through datamotion) rather than a crash.
    err = None
    try:
        dm.ProcessGrid(comm=MPI.COMM_NULL)
    except dm.Error as e:
        err = e
    check_all(WORLD, err is not None and err.status in ("DM_ERR_MPI", "DM_ERR_ARG"), f"got {err!r}")


@pytest.mark.parallel(nprocs=MAIN)
def test_grid_comm_must_be_an_mpi4py_communicator():
    for bad in (None.__class__, 0, "COMM_WORLD"):
        with pytest.raises(TypeError):
            _core.Grid(bad, [0], [], 1)


# ---------------------------------------------------------------------------
# Creating arrays
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("root", [None, 0, LAST])
def test_shape_differs_on_one_rank(root):
    grid = dm.ProcessGrid(dims=2)
    x = np.zeros((4, 5) if WORLD.rank != LAST else (4, 6))
    if root is None and WORLD.size > 1:
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=root), "DM_ERR_MISMATCH",
                          rf"^global shape differs across ranks: \(4, 5\) on rank 0, \(4, 6\) on rank {LAST}$")
    else:
        # One reader: its shape is everyone's.
        a = dm.DistArray.from_global(grid, x, root=root)
        check_all(WORLD, a.shape == (x.shape if (root is None or WORLD.rank == root) else a.shape),
                  f"shape {a.shape}")
        assert WORLD.allgather(a.shape) == [a.shape] * WORLD.size
    still_works(grid)


@pytest.mark.parallel(nprocs=MULTI + [8])
def test_ndim_differs_on_one_rank():
    grid = dm.ProcessGrid(dims=2)
    x = np.zeros((4, 5) if WORLD.rank != LAST else (4, 5, 1))
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x), "DM_ERR_ARG",
                      r"array rank 3 differs from process grid rank 2")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, x.shape), "DM_ERR_ARG",
                      r"array rank 3 differs from process grid rank 2")
    still_works(grid)


@pytest.mark.parallel(nprocs=MULTI + [8])
@pytest.mark.parametrize("other", [np.float32, np.int64, np.complex128, np.bool_])
def test_dtype_differs_on_one_rank(other):
    grid = dm.ProcessGrid()
    x = np.zeros(6, np.float64 if WORLD.rank != LAST else other)
    named = rf"^element type differs across ranks: float64 on rank 0, {np.dtype(other).name} on rank {LAST}$"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x), "DM_ERR_MISMATCH", named)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (6,), dtype=x.dtype), "DM_ERR_MISMATCH", named)
    still_works(grid)


try:  # bfloat16 comes with ml_dtypes, where users have it
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
# The element types users have beyond the supported set, each refused with the set named.
UNSUPPORTED = [np.float16, np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64,
               pytest.param(bfloat16, marks=pytest.mark.skipif(bfloat16 is None, reason="ml_dtypes is not installed")),
               np.longdouble, object, str, "U3", "S2", "V8", "datetime64[s]", [("a", np.int32)]]
UNSUPPORTED_IDS = ["float16", "int8", "int16", "uint8", "uint16", "uint32", "uint64", "bfloat16",
                   "longdouble", "object", "str", "U3", "S2", "V8", "datetime64", "struct"]


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("dtype", UNSUPPORTED, ids=UNSUPPORTED_IDS)
def test_unsupported_dtype(dtype):
    grid = dm.ProcessGrid()
    x = np.zeros(4, dtype=dtype)
    name = str(x.dtype)
    supported = r"\(supported: int32, int64, float32, float64, complex64, complex128, bool\)$"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x), "DM_ERR_TYPE",
                      rf"^unsupported element type '{__import__('re').escape(name)}' {supported}")
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=LAST), "DM_ERR_TYPE", supported)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4,), dtype=dtype), "DM_ERR_TYPE",
                      r"^unsupported element type .*" + supported)
    still_works(grid)


@pytest.mark.parallel(nprocs=MULTI + [8])
@pytest.mark.parametrize("dtype", [np.float16, object, str], ids=["float16", "object", "str"])
def test_unsupported_dtype_on_one_rank(dtype):
    # Only the last rank has a bad array; the others' arrays are fine.
    grid = dm.ProcessGrid()
    x = np.zeros(4, dtype=dtype if WORLD.rank == LAST else np.float64)
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x), "DM_ERR_TYPE",
                      rf"^unsupported element type '{np.zeros(1, dtype).dtype}'")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4,), dtype=x.dtype), "DM_ERR_TYPE",
                      r"^unsupported element type")
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
def test_zeros_with_something_that_is_not_a_dtype():
    grid = dm.ProcessGrid()
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4,), dtype="no such type"), "DM_ERR_TYPE",
                      r"unsupported element type 'no such type'")


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("shape", [
    (),
    (1,) * 8,
], ids=["0d", "8d"])
def test_array_rank_out_of_range(shape):
    grid = dm.ProcessGrid()
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(shape)), "DM_ERR_ARG",
                      r"rank must be in \[1, 7\]")
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(shape), root=0), "DM_ERR_ARG",
                      r"rank must be in \[1, 7\]")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("grid_ndim, shape", [(2, (6,)), (1, (2, 3)), (3, (2, 2)), (2, (1, 1, 1, 1, 1, 1, 1))])
def test_array_rank_differs_from_grid_rank(grid_ndim, shape):
    grid = dm.ProcessGrid(dims=grid_ndim)
    match = rf"array rank {len(shape)} differs from process grid rank {grid_ndim}"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(shape)), "DM_ERR_ARG", match)
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(shape), root=LAST), "DM_ERR_ARG",
                      match)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, shape), "DM_ERR_ARG", match)


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("r", [0, -1, -100])
def test_block_size_not_positive(r):
    grid = dm.ProcessGrid(dims=2)
    for dist, axis in [(dm.BlockCyclic(r), 0), ([dm.Block(), dm.BlockCyclic(r)], 1)]:
        match = rf"^axis {axis}: block size must be positive, got {r}$"
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((3, 3)), dist=dist),
                          "DM_ERR_ARG", match)
        raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (3, 3), dist=dist), "DM_ERR_ARG", match)
    still_works(grid)


@pytest.mark.parallel(nprocs=WITH_8)
def test_block_cyclic_source_out_of_range():
    grid = dm.ProcessGrid(dims=[0, 1])
    p = grid.dims[0]
    for src, dist, axis, extent in [(p, dm.BlockCyclic(2, p), 0, p), (-1, dm.BlockCyclic(2, -1), 0, p),
                                    (1, [dm.Cyclic(), dm.BlockCyclic(1, 1)], 1, 1)]:
        match = rf"^axis {axis}: source coordinate {src} out of range \[0, {extent}\)$"
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((4, 4)), dist=dist),
                          "DM_ERR_ARG", match)
        raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4, 4), dist=dist), "DM_ERR_ARG", match)
    still_works(grid)


@pytest.mark.parallel(nprocs=MULTI + [8])
def test_distribution_differs_on_one_rank():
    grid = dm.ProcessGrid()
    for mine, theirs, named in [(dm.Block(), dm.Cyclic(), r"\(Block\(\),\) on rank 0, \(Cyclic\(\),\)"),
                                (dm.BlockCyclic(2), dm.BlockCyclic(3), r"\(BlockCyclic\(r=2, src=0\),\) on rank 0, "
                                                                       r"\(BlockCyclic\(r=3, src=0\),\)"),
                                (dm.BlockCyclic(1, 0), dm.BlockCyclic(1, 1), r"\(BlockCyclic\(r=1, src=0\),\) on "
                                                                             r"rank 0, \(BlockCyclic\(r=1, src=1\),\)"),
                                (dm.Cyclic(), dm.BlockCyclic(1), r"\(Cyclic\(\),\) on rank 0, "
                                                                 r"\(BlockCyclic\(r=1, src=0\),\)")]:
        dist = theirs if WORLD.rank == LAST else mine
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(5), dist=dist),
                          "DM_ERR_MISMATCH", rf"^distribution differs across ranks: {named} on rank {LAST}$")
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
def test_distribution_and_ghost_lists_of_the_wrong_length():
    grid = dm.ProcessGrid(dims=2)
    x = np.zeros((3, 3))
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, dist=[dm.Block()]), "DM_ERR_ARG",
                      r"1 distributions for 2 axes")
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, dist=[dm.Block()] * 3), "DM_ERR_ARG",
                      r"3 distributions for 2 axes")
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, ghost=[1, 1, 1]), "DM_ERR_ARG",
                      r"3 ghost widths for 2 axes")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (3, 3), ghost=[1]), "DM_ERR_ARG",
                      r"1 ghost widths for 2 axes")


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("ghost, axis", [(-1, 0), ([0, -2], 1), ([-3, 1], 0)])
def test_negative_ghost(ghost, axis):
    grid = dm.ProcessGrid(dims=2)
    match = rf"ghost width of axis {axis} is negative"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((3, 3)), ghost=ghost),
                      "DM_ERR_ARG", match)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (3, 3), ghost=ghost), "DM_ERR_ARG", match)


@pytest.mark.parallel(nprocs=MULTI + [8])
def test_ghost_differs_on_one_rank():
    grid = dm.ProcessGrid()
    ghost = 2 if WORLD.rank == LAST else 1
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(5), ghost=ghost),
                      "DM_ERR_MISMATCH", rf"^ghost width differs across ranks: \(1,\) on rank 0, \(2,\) on rank {LAST}$")
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
def test_zeros_bad_shapes():
    grid = dm.ProcessGrid(dims=2)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (3, -1)), "DM_ERR_ARG",
                      r"extent of axis 1 is negative \(-1\)")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (2**40, 2**40)), "DM_ERR_ARG",
                      r"global size overflows 64 bits")
    if WORLD.size > 1:
        shape = (3, 4) if WORLD.rank != LAST else (3, 5)
        raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, shape), "DM_ERR_MISMATCH",
                          rf"^global shape differs across ranks: \(3, 4\) on rank 0, \(3, 5\) on rank {LAST}$")


@pytest.mark.parallel(nprocs=MAIN)
def test_allocation_failure_is_collective():
    # Each rank's share of a huge array cannot be allocated: DM_ERR_MEMORY everywhere, no crash.
    grid = dm.ProcessGrid()
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (2**60,), np.int32), "DM_ERR_MEMORY")
    still_works(grid)


# ---------------------------------------------------------------------------
# Roots
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("root", ["size", "size+3", -2, -100])
def test_root_out_of_range(root):
    grid = dm.ProcessGrid()
    root = {"size": WORLD.size, "size+3": WORLD.size + 3}.get(root, root)
    x = np.arange(5.0)
    match = rf"^root {root} out of range \[0, {WORLD.size}\)"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=root), "DM_ERR_ARG", match)
    a = dm.DistArray.from_global(grid, x)
    raises_everywhere(WORLD, lambda: a.to_global(root=root), "DM_ERR_ARG", match)
    raises_everywhere(WORLD, lambda: a.scatter(x, root=root), "DM_ERR_ARG", match)
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
def test_root_minus_one_is_refused():
    # -1 is the C API's "all ranks" code; from Python it is not a rank and must fail
    # (collectively), not be taken as root=None.
    grid = dm.ProcessGrid()
    x = np.arange(5.0)
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=-1))
    a = dm.DistArray.from_global(grid, x)
    raises_everywhere(WORLD, lambda: a.to_global(root=-1))
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
def test_root_minus_one_is_reported_as_out_of_range():
    grid = dm.ProcessGrid()
    x = np.arange(5.0)
    match = rf"^root -1 out of range \[0, {WORLD.size}\)"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=-1), "DM_ERR_ARG", match)
    a = dm.DistArray.from_global(grid, x)
    raises_everywhere(WORLD, lambda: a.to_global(root=-1), "DM_ERR_ARG", match)


@pytest.mark.parallel(nprocs=MULTI + [8])
@pytest.mark.parametrize("roots", ["own rank", "one differs", "None on one"])
def test_root_differs_across_ranks(roots):
    grid = dm.ProcessGrid()
    if roots == "own rank":
        root = WORLD.rank
    elif roots == "one differs":
        root = 1 if WORLD.rank == LAST else 0
    else:
        root = None if WORLD.rank == LAST else 0
    x = np.arange(7)
    # Shown: rank 0's root and that of the lowest rank whose root differs.
    other = 1 if roots == "own rank" else LAST
    value = {"own rank": "1", "one differs": "1"}.get(roots, r"DM_ALL_RANKS \(None\)")
    named = rf"^root differs across ranks: 0 on rank 0, {value} on rank {other}$"
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x, root=root), "DM_ERR_MISMATCH", named)
    a = dm.DistArray.from_global(grid, x)
    raises_everywhere(WORLD, lambda: a.to_global(root=root), "DM_ERR_MISMATCH", named)
    raises_everywhere(WORLD, lambda: a.scatter(x, root=root), "DM_ERR_MISMATCH", named)
    check_same_array(WORLD, a.to_global(), x, "array unchanged by the failed calls")


# ---------------------------------------------------------------------------
# Moving data in and out of an existing array
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("root", [None, 0, LAST])
def test_scatter_with_the_wrong_shape(root):
    grid = dm.ProcessGrid(dims=2)
    a = dm.DistArray.zeros(grid, (4, 5), np.int32)
    # The message names both shapes, as Python writes them.
    for bad, shape in ((np.zeros((4, 6)), r"\(4, 6\)"), (np.zeros((5, 4)), r"\(5, 4\)"), (np.zeros(20), r"\(20,\)"),
                       (np.zeros((4, 5, 1)), r"\(4, 5, 1\)")):
        raises_everywhere(WORLD, lambda: a.scatter(bad, root=root), "DM_ERR_ARG",
                          rf"^scatter: the global array's shape {shape} differs from the distributed array's \(4, 5\)$")
    # Only one rank's array is wrong.
    if root is None and WORLD.size > 1:
        y = np.zeros((4, 5) if WORLD.rank != LAST else (4, 4))
        raises_everywhere(WORLD, lambda: a.scatter(y), "DM_ERR_ARG",
                          r"^scatter: the global array's shape \(4, 4\) differs from the distributed array's \(4, 5\)$")
    check_same_array(WORLD, a.to_global(), np.zeros((4, 5), np.int32), "array unchanged by failed scatters")


@pytest.mark.parallel(nprocs=MAIN)
def test_scatter_missing_array_on_a_reader():
    grid = dm.ProcessGrid()
    a = dm.DistArray.zeros(grid, (4,))
    # No array on one reader (through the compiled call: DistArray.scatter would
    # turn None into a 0-d array, which is refused as the wrong shape).
    raises_everywhere(WORLD, lambda: a._a.scatter(None if WORLD.rank == LAST else np.zeros(4), -1),
                      "DM_ERR_ARG", rf"^scatter: global array (missing|is NULL) on rank {LAST}$")
    raises_everywhere(WORLD, lambda: a._a.scatter(None, 0), "DM_ERR_ARG",
                      r"^scatter: global array (missing|is NULL) on rank 0$")
    raises_everywhere(WORLD, lambda: a.scatter(None if WORLD.rank == LAST else np.zeros(4)), "DM_ERR_ARG",
                      r"^scatter: (global array (missing|is NULL)|the global array's shape \(\) differs)")
    still_works(grid)


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("root", [None, 0])
def test_gather_into_the_wrong_buffer(root):
    # to_global allocates its own result; the compiled gather still checks a caller's buffer.
    grid = dm.ProcessGrid(dims=2)
    a = dm.DistArray.zeros(grid, (4, 5), np.float32)
    code = -1 if root is None else root
    shape = r"^gather: the global array's shape {} differs from the distributed array's \(4, 5\)$"
    for bad, match in ((np.empty((4, 6), np.float32), shape.format(r"\(4, 6\)")),
                       (np.empty(20, np.float32), shape.format(r"\(20,\)")),
                       (np.empty((4, 5), np.float64), r"^gather: the global array's elements are 8 bytes, the "
                                                      r"distributed array's 4 \(float32\)$")):
        raises_everywhere(WORLD, lambda: a._a.gather(bad if root is None or WORLD.rank == root else None, code),
                          "DM_ERR_ARG", match)
    raises_everywhere(WORLD, lambda: a._a.gather(None, code), "DM_ERR_ARG", r"^gather: global array (missing|is NULL) on rank 0$")
    still_works(grid)


# ---------------------------------------------------------------------------
# Several errors in a row
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=WITH_8)
def test_errors_leave_no_trace():
    """A burst of failing collective calls, each failing on a different rank, then
    working ones: nothing is left in flight."""
    grid = dm.ProcessGrid(dims=2)
    for culprit in range(WORLD.size):
        me = WORLD.rank == culprit
        if WORLD.size > 1:
            raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((3, 3) if not me else (3, 4))),
                              "DM_ERR_MISMATCH")
        raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (3, 3), dtype=np.float16 if me else np.float64),
                          "DM_ERR_TYPE")
        raises_everywhere(WORLD, lambda: dm.ProcessGrid(order="bad" if me else "news"), "DM_ERR_ARG")
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((3, 3)), ghost=-1 if me else 0),
                          "DM_ERR_ARG", r"ghost width of axis 0 is negative")
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros((3, 3)), root=culprit,
                                                                  dist=dm.BlockCyclic(0 if me else 1)),
                          "DM_ERR_ARG", r"block size must be positive")
    still_works(grid)
    still_works()


# ---------------------------------------------------------------------------
# Arguments that Python cannot even convert, on one rank only
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=MULTI + [8])
def test_unconvertible_arguments_on_one_rank_fail_everywhere():
    # Each of these once raised on the last rank alone and left the others waiting.
    odd = WORLD.rank == LAST
    grid = dm.ProcessGrid()
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, np.zeros(4), dist="cyclic" if odd else None),
                      "DM_ERR_ARG", r"^distribution: expected Block\(\), Cyclic\(\)")
    ragged = [[1.0, 2.0], [3.0]] if odd else [[1.0, 2.0], [3.0, 4.0]]
    raises_everywhere(WORLD, lambda: dm.DistArray.from_global(dm.ProcessGrid(dims=2), ragged), "DM_ERR_ARG",
                      r"^global array: ")
    raises_everywhere(WORLD, lambda: dm.ProcessGrid(dims=[0, "x"] if odd else [0, 1]), "DM_ERR_ARG",
                      r"^process grid dims: ")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4,), ghost="wide" if odd else 0), "DM_ERR_ARG",
                      r"^ghost width: ")
    a = dm.DistArray.from_global(grid, np.arange(4.0))
    raises_everywhere(WORLD, lambda: a.scatter(["x", "y", "z", "w"] if odd else np.zeros(4), root=None),
                      "DM_ERR_ARG", r"^global array: ")
    raises_everywhere(WORLD, lambda: a.to_global(root=-3 if odd else 0), "DM_ERR_ARG", r"root -3 out of range")
    still_works(grid)
