"""datamotion.vector: every operation against a NumPy oracle at 1-5 ranks, on
lengths 0, 1, fewer than the ranks and more, segmentations with empty segments,
and bad input failing the same way on every rank."""

import gc

import numpy as np
import pytest

import datamotion as dm
from datamotion import vector as cv
from dmtest import WORLD, check_all, check_same_array, raises_everywhere, run_job


@pytest.fixture(autouse=True)
def _free_cyclic_garbage_alike():
    """Vectors kept alive by reference cycles of earlier tests (tracebacks of the
    errors they check) are freed on every rank at the same point."""
    gc.collect()

SIZE = WORLD.size
RANKS = [1, 2, 3, 4, 5]
LENGTHS = sorted({0, 1, max(SIZE - 1, 1), 2 * SIZE + 3, 61})
I32 = np.iinfo(np.int32)
F64 = np.finfo(np.float64)
IDENTITY = {
    ("add", "i"): 0, ("add", "f"): 0.0, ("mul", "i"): 1, ("mul", "f"): 1.0,
    ("min", "i"): I32.max, ("min", "f"): F64.max, ("max", "i"): I32.min, ("max", "f"): -F64.max,
    ("and", "i"): -1, ("and", "b"): True, ("or", "i"): 0, ("or", "b"): False, ("xor", "i"): 0, ("xor", "b"): False,
}
UFUNC = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
         "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
OPS = {np.int32: ["add", "mul", "min", "max", "and", "or", "xor"], np.float64: ["add", "mul", "min", "max"],
       np.bool_: ["and", "or", "xor"]}


def data(rng, n, dtype, op="add"):
    """Values whose scans and reductions are exact in any order of combination."""
    if dtype == np.bool_:
        return rng.random(n) < 0.6
    if dtype == np.int32:
        return rng.integers(-3, 4, n).astype(np.int32) if op == "mul" else rng.integers(-50, 51, n).astype(np.int32)
    if op == "mul":
        return rng.choice([0.5, 1.0, 2.0, -1.0], n)
    return rng.integers(-50, 51, n).astype(np.float64)


def segmentations(rng, n):
    """Lengths summing to n, with empty segments at the ends and in between."""
    out = [[n], [0, n, 0]]
    for _ in range(2):
        m = int(rng.integers(1, 7))
        cuts = np.sort(rng.integers(0, n + 1, m - 1))
        out.append(np.diff(np.concatenate([[0], cuts, [n]])).tolist() + [0])
    return out


def ex_scan(a, op):
    ident = IDENTITY[(op, a.dtype.kind)]
    if a.size == 0:
        return a.copy()
    acc = UFUNC[op].accumulate(a, dtype=a.dtype)
    return np.concatenate([np.array([ident], dtype=a.dtype), acc[:-1]])


def reduce_oracle(a, op):
    return a.dtype.type(IDENTITY[(op, a.dtype.kind)]) if a.size == 0 else UFUNC[op].reduce(a, dtype=a.dtype)


def per_segment(a, lengths, f):
    starts = np.concatenate([[0], np.cumsum(lengths)])
    return [f(a[starts[j]:starts[j + 1]], j) for j in range(len(lengths))]


def rank_oracle(a, descending=False):
    order = np.argsort(-a if descending else a, kind="stable")
    r = np.empty(a.size, dtype=np.int32)
    r[order] = np.arange(a.size, dtype=np.int32)
    return r


@pytest.mark.parallel(nprocs=RANKS)
def test_numpy_round_trip_and_elementwise_operators():
    rng = np.random.default_rng(1)
    for n in LENGTHS:
        a = rng.integers(-50, 51, n).astype(np.int32)
        b = rng.integers(1, 51, n).astype(np.int32)
        x = rng.random(n) * 10 - 5
        f = rng.random(n) < 0.5
        va, vb, vx, vf = (cv.Vector.from_numpy(t) for t in (a, b, x, f))
        for v, t in ((va, a), (vx, x), (vf, f)):
            check_same_array(WORLD, v.to_numpy(), t, f"round trip n={n} {t.dtype}")
            check_all(WORLD, len(v) == n and v.dtype == t.dtype, "length and dtype")
        cases = {
            "a+b": (va + vb, a + b), "a-b": (va - vb, a - b), "a*b": (va * vb, a * b),
            "a/b": (va / vb, a / b), "x+a": (vx + va, x + a), "3-a": (3 - va, 3 - a), "a*2": (va * 2, a * 2),
            "x/2.5": (vx / 2.5, x / 2.5), "1/b": (1 / vb, 1 / b), "-x": (-vx, -x), "x*a": (vx * va, x * a),
            "a<b": (va < vb, a < b), "a<=3": (va <= 3, a <= 3), "x>0.5": (vx > 0.5, x > 0.5),
            "a>=b": (va >= vb, a >= b), "a==b": (va == vb, a == b), "x!=x": (vx != vx, x != x),
            "f&(a>0)": (vf & (va > 0), f & (a > 0)), "f|True": (vf | True, f | True), "f^f": (vf ^ vf, f ^ f),
            "~f": (~vf, ~f), "a&b": (va & vb, a & b), "~a": (~va, ~a),
            "astype": (vx.astype(np.int32), x.astype(np.int32)), "a as f64": (va.astype(np.float64), a * 1.0),
            "select": (cv.select(vf, va, vb), np.where(f, a, b)), "copy": (va.copy(), a),
        }
        for what, (got, want) in cases.items():
            check_same_array(WORLD, got.to_numpy(), want, f"{what} n={n}")


@pytest.mark.parallel(nprocs=RANKS)
def test_scan_and_reduce_unsegmented_and_segmented():
    rng = np.random.default_rng(2)
    for n in LENGTHS:
        for dtype, ops in OPS.items():
            for op in ops:
                a = data(rng, n, dtype, op)
                v = cv.Vector.from_numpy(a)
                check_same_array(WORLD, cv.scan(v, op).to_numpy(), ex_scan(a, op), f"scan {op} {a.dtype} n={n}")
                got = cv.reduce(v, op)
                want = reduce_oracle(a, op)
                check_all(WORLD, got == want and type(got) is type(want.item()),
                          f"reduce {op} {a.dtype} n={n}: {got!r} != {want!r}")
                for lengths in segmentations(rng, n):
                    s = cv.Segments(lengths)
                    want_scan = np.concatenate(per_segment(a, lengths, lambda t, j: ex_scan(t, op)) or [a[:0]])
                    check_same_array(WORLD, cv.scan(v, op, segments=s).to_numpy(), want_scan.astype(a.dtype),
                                     f"segmented scan {op} {a.dtype} {lengths}")
                    want_red = np.array(per_segment(a, lengths, lambda t, j: reduce_oracle(t, op)), dtype=a.dtype)
                    check_same_array(WORLD, cv.reduce(v, op, segments=s).to_numpy(), want_red,
                                     f"segmented reduce {op} {a.dtype} {lengths}")


@pytest.mark.parallel(nprocs=RANKS)
def test_permute_bpermute_pack_rank():
    rng = np.random.default_rng(3)
    for n in LENGTHS:
        a = rng.random(n)
        va = cv.Vector.from_numpy(a)
        p = rng.permutation(n).astype(np.int32)
        want = np.empty_like(a)
        want[p] = a
        check_same_array(WORLD, cv.permute(va, p).to_numpy(), want, f"permute n={n}")
        g = rng.integers(0, max(n, 1), 2 * n + 1).astype(np.int32) if n else np.zeros(0, np.int32)
        check_same_array(WORLD, cv.bpermute(va, g).to_numpy(), a[g], f"bpermute n={n}")
        f = rng.random(n) < 0.4
        check_same_array(WORLD, cv.pack(va, f).to_numpy(), a[f], f"pack n={n}")
        k = rng.integers(-5, 6, n).astype(np.int32)
        vk = cv.Vector.from_numpy(k)
        check_same_array(WORLD, cv.rank(vk).to_numpy(), rank_oracle(k), f"rank n={n}")
        check_same_array(WORLD, cv.rank(vk, descending=True).to_numpy(), rank_oracle(k, True), f"rank desc n={n}")
        check_same_array(WORLD, cv.permute(vk, cv.rank(vk)).to_numpy(), np.sort(k, kind="stable"), "sort by rank")
        check_same_array(WORLD, cv.rank(va).to_numpy(), rank_oracle(a), f"rank float n={n}")

        for lengths in segmentations(rng, n):
            s = cv.Segments(lengths)
            check_all(WORLD, s.n == n and s.m == len(lengths) and list(s.lengths) == list(lengths), "Segments")
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
            local = np.concatenate([rng.permutation(L) for L in lengths] or [[]]).astype(np.int32)
            seg_of = np.repeat(np.arange(len(lengths)), lengths)
            want = np.empty_like(a)
            want[starts[seg_of] + local] = a
            check_same_array(WORLD, cv.permute(va, local, segments=s).to_numpy(), want, f"seg permute {lengths}")
            back = np.concatenate([rng.integers(0, max(L, 1), L) if L else np.zeros(0, int) for L in lengths]
                                  or [[]]).astype(np.int32)
            # Index into a nonempty source segment only: empty source segments take no index.
            check_same_array(WORLD, cv.bpermute(va, back, segments=s).to_numpy(), a[starts[seg_of] + back],
                             f"seg bpermute {lengths}")
            got, out_s = cv.pack(va, f, segments=s)
            check_same_array(WORLD, got.to_numpy(), a[f], f"seg pack {lengths}")
            counts = np.array(per_segment(f, lengths, lambda t, j: int(t.sum())), dtype=np.int32)
            check_same_array(WORLD, out_s.lengths, counts, f"seg pack counts {lengths}")
            want_rank = np.concatenate(per_segment(k, lengths, lambda t, j: rank_oracle(t)) or [k[:0]]).astype(np.int32)
            check_same_array(WORLD, cv.rank(vk, segments=s).to_numpy(), want_rank, f"seg rank {lengths}")


@pytest.mark.parallel(nprocs=RANKS)
def test_long_permutations_span_several_windows():
    """Vectors long enough that every rank holds more than one 2^16-element window
    (the unit the permutation engines sort by): permutations, repeated targets (the
    highest source position wins), gathers of another length, segmented forms."""
    rng = np.random.default_rng(11)
    n = 70_000 * SIZE + 3
    for dtype in (np.float64, np.int32, np.bool_):
        a = data(rng, n, dtype)
        va = cv.Vector.from_numpy(a)
        p = rng.permutation(n).astype(np.int32)
        want = np.empty_like(a)
        want[p] = a
        check_same_array(WORLD, cv.permute(va, p).to_numpy(), want, f"long permute {dtype.__name__}")
        many = rng.integers(0, n // 3, n).astype(np.int32)
        last = n - 1 - np.unique(many[::-1], return_index=True)[1]
        want = np.zeros_like(a)
        want[many[last]] = a[last]
        check_same_array(WORLD, cv.permute(va, many).to_numpy(), want, f"long permute, repeated {dtype.__name__}")
        g = rng.integers(0, n, n // 2 + 7).astype(np.int32)
        check_same_array(WORLD, cv.bpermute(va, g).to_numpy(), a[g], f"long bpermute {dtype.__name__}")
        lengths = [n // 3, 0, n - n // 3]
        s = cv.Segments(lengths)
        local = np.concatenate([rng.permutation(L) for L in lengths]).astype(np.int32)
        starts = np.repeat([0, n // 3, n // 3], lengths)
        want = np.empty_like(a)
        want[starts + local] = a
        check_same_array(WORLD, cv.permute(va, local, segments=s).to_numpy(), want, f"long seg permute {dtype}")
        check_same_array(WORLD, cv.bpermute(va, local, segments=s).to_numpy(), a[starts + local],
                         f"long seg bpermute {dtype.__name__}")


@pytest.mark.parallel(nprocs=RANKS)
def test_index_distribute_extract_replace():
    rng = np.random.default_rng(4)
    for n in LENGTHS:
        check_same_array(WORLD, cv.index(n).to_numpy(), np.arange(n, dtype=np.int32), f"index n={n}")
        check_same_array(WORLD, cv.index(n, 7, -3).to_numpy(), (7 - 3 * np.arange(n)).astype(np.int32), "index 7,-3")
        check_same_array(WORLD, cv.distribute(2.5, n).to_numpy(), np.full(n, 2.5), f"distribute n={n}")
        check_same_array(WORLD, cv.distribute(True, n).to_numpy(), np.ones(n, bool), "distribute bool")
        check_same_array(WORLD, cv.distribute(-4, n).to_numpy(), np.full(n, -4, np.int32), "distribute int")
        a = rng.integers(-9, 10, n).astype(np.int32)
        va = cv.Vector.from_numpy(a)
        if n:
            i = int(rng.integers(0, n))
            check_all(WORLD, cv.extract(va, i) == a[i] and va[-1] == a[-1], f"extract n={n}")
            b = a.copy()
            b[i] = 99
            check_same_array(WORLD, cv.replace(va, i, 99).to_numpy(), b, "replace")
            check_same_array(WORLD, va.to_numpy(), a, "replace leaves its argument alone")
            va[i] = 99
            check_same_array(WORLD, va.to_numpy(), b, "v[i] = x")
            va = cv.Vector.from_numpy(a)
        for lengths in segmentations(rng, n):
            s = cv.Segments(lengths)
            m = len(lengths)
            vals = rng.random(m)
            check_same_array(WORLD, cv.distribute(cv.Vector.from_numpy(vals), s).to_numpy(),
                             np.repeat(vals, lengths), f"seg distribute {lengths}")
            nonempty = [j for j in range(m) if lengths[j]]
            if len(nonempty) == m:
                starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
                pos = np.array([rng.integers(0, L) for L in lengths], dtype=np.int32)
                check_same_array(WORLD, cv.extract(va, pos, segments=s).to_numpy(), a[starts + pos],
                                 f"seg extract {lengths}")
                new = rng.integers(100, 200, m).astype(np.int32)
                b = a.copy()
                b[starts + pos] = new
                check_same_array(WORLD, cv.replace(va, pos, new, segments=s).to_numpy(), b,
                                 f"seg replace {lengths}")


@pytest.mark.parallel(nprocs=RANKS)
def test_errors_are_raised_on_every_rank():
    n = 2 * SIZE + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64))
    bad = np.arange(n, dtype=np.int32)
    bad[n - 1] = n + 5  # on the last rank that holds elements
    raises_everywhere(WORLD, lambda: cv.permute(v, bad), status="DM_ERR_ARG", match=r"outside \[0, ")
    raises_everywhere(WORLD, lambda: cv.bpermute(v, [0, -1]), status="DM_ERR_ARG", match="outside")
    raises_everywhere(WORLD, lambda: cv.extract(v, n), status="DM_ERR_ARG")
    raises_everywhere(WORLD, lambda: v + cv.index(n + 1), status="DM_ERR_ARG", match="lengths")
    raises_everywhere(WORLD, lambda: cv.scan(v, "or"), status="DM_ERR_TYPE")
    raises_everywhere(WORLD, lambda: cv.reduce(v, segments=cv.Segments([1, n])), status="DM_ERR_ARG")
    raises_everywhere(WORLD, lambda: cv.Vector.from_numpy(np.zeros(3, np.complex128)), status="DM_ERR_TYPE")
    # The library is still usable after an error.
    check_all(WORLD, v.sum() == n * (n - 1) / 2, "sum after errors")
    check_all(WORLD, isinstance(cv.Vector, type) and dm.Vector is cv.Vector and dm.Segments is cv.Segments,
              "exported")


# ---- ranks that disagree: the same DM_ERR_MISMATCH on every rank, never a hang

CHECKED = dm._core.checked_mode()


def _odd() -> bool:
    """The rank that disagrees (the last one, when there are several)."""
    return SIZE > 1 and WORLD.rank == SIZE - 1


def _mismatch(fn, match=None):
    """Collective. With several ranks fn raises DM_ERR_MISMATCH everywhere; with one it works."""
    if SIZE == 1:
        fn()
    else:
        raises_everywhere(WORLD, fn, status="DM_ERR_MISMATCH", match=match)


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_arguments_that_differ_by_rank_fail_on_every_rank():
    n = 2 * SIZE + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64))
    # bpermute with index lengths differing by rank: never "Message truncated".
    _mismatch(lambda: cv.bpermute(v, np.arange(n - 1 if _odd() else n, dtype=np.int32)))
    # extract with the index differing by rank: never a silent v[0].
    _mismatch(lambda: cv.extract(v, 1 if _odd() else 0), match="argument i differs")
    # reduce over vectors whose lengths differ by rank.
    w = cv.Vector.from_numpy(np.arange(n - 1 if _odd() else n, dtype=np.float64)) if not CHECKED else None
    if w is not None:
        _mismatch(lambda: cv.reduce(w))  # the lengths, or the allocations they needed
    check_all(WORLD, v.sum() == n * (n - 1) / 2, "the library works afterwards")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_replicated_arrays_that_differ_by_rank_fail_in_checked_mode():
    if not CHECKED:
        pytest.skip("from_numpy's array is compared in checked mode (DATAMOTION_CHECK=1)")
    n = 2 * SIZE + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64))
    # A permutation index with the same length but other contents on one rank.
    perm = np.arange(n, dtype=np.int32)[::-1].copy()
    if _odd():
        perm[0] = perm[1]
    _mismatch(lambda: cv.permute(v, perm), match="hash of its contents")
    # from_numpy with 10 elements on one rank and 11 on the others.
    _mismatch(lambda: cv.Vector.from_numpy(np.arange(10 if _odd() else 11, dtype=np.float64)))
    # An elementwise operation on lengths that differ by rank.
    _mismatch(lambda: v + cv.index(n - 1 if _odd() else n).astype(np.float64))
    check_same_array(WORLD, cv.permute(v, np.arange(n, dtype=np.int32)[::-1].copy()).to_numpy(),
                     np.arange(n, dtype=np.float64)[::-1], "permute afterwards")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_vector_created_on_one_rank_only_is_reported_not_hung():
    n = 2 * SIZE + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64))
    # Large enough to grow vector memory: growth is local and never waits.
    extra = cv.Vector(1 << 22) if _odd() else None
    _mismatch(lambda: v.sum(), match="calls")
    del extra
    check_all(WORLD, v.sum() == n * (n - 1) / 2, "sum afterwards")


_EXIT_ON_ONE_RANK = r"""
import sys, time
import numpy as np
from mpi4py import MPI
from datamotion import vector as cv
v = cv.Vector.from_numpy(np.arange(10.0))
total = v.sum()
if MPI.COMM_WORLD.rank == 1:
    print("rank 1 exits", flush=True)
    sys.exit(0)   # nothing collective may run at exit on this rank alone
time.sleep(1.0)   # rank 0 is elsewhere meanwhile, then makes local calls only
w = cv.Vector(5)
print("rank 0 done", total, flush=True)
"""


@pytest.mark.parallel(nprocs=[1])
def test_exit_on_one_rank_runs_nothing_collective(tmp_path):
    done = run_job(_EXIT_ON_ONE_RANK, 2, tmp_path)
    out = done.stdout
    assert done.returncode == 0, out
    assert "rank 1 exits" in out and "rank 0 done 45.0" in out, out
