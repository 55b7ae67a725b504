"""datamotion.vector: every operation against a NumPy oracle at 1-5 ranks (the
permutations and scans also at 13 and 16), on MPI.COMM_WORLD, MPI.COMM_SELF and a
split communicator (groups of different sizes), on lengths 0, 1, fewer than the
ranks and more (ranks that own nothing), segmentations with empty segments, local
views and vectors sharing a DistArray's memory, and bad input failing the same way
on every rank."""

import gc

import numpy as np
import pytest
from mpi4py import MPI

import datamotion as dm
from datamotion import vector as cv
from vector_oracle import IDENTITY, OPS, UFUNC
from dmtest import LARGE, WORLD, check_all, check_same_array, raises_everywhere, run_job

SIZE = WORLD.size
# Even and odd ranks: at 3 ranks groups of 2 and 1, whose vectors are placed differently.
SPLIT = WORLD.Split(WORLD.rank % 2, WORLD.rank)
COMMS = {"world": WORLD, "self": MPI.COMM_SELF, "split": SPLIT}
on_comms = pytest.mark.parametrize("comm", list(COMMS.values()), ids=list(COMMS))
RANKS = [1, 2, 3, 4, 5]
# At 13 and 16 ranks (LARGE) the permutations and scans run on fewer cases: a length
# below the ranks and one above (both leave ranks that own nothing), one segmentation
# with empty segments besides [0, n, 0], and an operator or two per element type.
FEW = SIZE > max(RANKS)
LENGTHS = [SIZE - 1, 2 * SIZE + 3] if FEW else sorted({0, 1, max(SIZE - 1, 1), 2 * SIZE + 3, 61})
SCANNED = {np.int32: ["add", "min"], np.float64: ["mul"], np.bool_: ["xor"]} if FEW else OPS


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
    out = [[0, n, 0]] if FEW else [[n], [0, n, 0]]
    for _ in range(1 if FEW else 2):
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
@on_comms
def test_numpy_round_trip_and_elementwise_operators(comm):
    rng = np.random.default_rng(1)
    for n in LENGTHS:
        a = rng.integers(-50, 51, n).astype(np.int32)
        b = rng.integers(1, 51, n).astype(np.int32)
        x = rng.random(n) * 10 - 5
        f = rng.random(n) < 0.5
        va, vb, vx, vf = (cv.Vector.from_numpy(t, comm) for t in (a, b, x, f))
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
def test_scalar_operands_on_either_side_match_numpy():
    """A scalar operand takes one pass (binary_scalar), on the left or the right, for every
    operator and type: the same elements and result type as NumPy's."""
    import operator as o

    rng = np.random.default_rng(7)
    n = 2 * SIZE + 3
    arith = {"+": o.add, "-": o.sub, "*": o.mul}
    compare = {"<": o.lt, "<=": o.le, ">": o.gt, ">=": o.ge, "==": o.eq, "!=": o.ne}
    logic = {"&": o.and_, "|": o.or_, "^": o.xor}
    arrays = {
        np.int32: (rng.integers(-50, 51, n).astype(np.int32), (0, 3, -7, 2**31 - 1), {**arith, **compare, **logic}),
        np.float64: (rng.random(n) * 10 - 5, (0.0, 2.5, -1e300, float("nan")),
                     {**arith, "/": o.truediv, **compare}),
        np.bool_: (rng.random(n) < 0.5, (True, False), {"==": o.eq, "!=": o.ne, **logic}),
    }
    for dtype, (a, scalars, ops) in arrays.items():
        v = cv.Vector.from_numpy(a)
        for x in scalars:
            for name, fn in ops.items():
                for left in (False, True):
                    with np.errstate(all="ignore"):
                        want = fn(x, a) if left else fn(a, x)
                        if dtype is np.int32 and name in arith:
                            want = want.astype(np.int32)  # CVL wraps int32 as NumPy does
                    got = (fn(x, v) if left else fn(v, x)).to_numpy()
                    check_all(WORLD, got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True),
                              f"{'x ' + name + ' v' if left else 'v ' + name + ' x'} with x={x!r}, {np.dtype(dtype)}")


@pytest.mark.parallel(nprocs=RANKS + LARGE)
@on_comms
def test_scan_and_reduce_unsegmented_and_segmented(comm):
    rng = np.random.default_rng(2)
    for n in LENGTHS:
        for dtype, ops in SCANNED.items():
            for op in ops:
                a = data(rng, n, dtype, op)
                v = cv.Vector.from_numpy(a, comm)
                check_same_array(WORLD, cv.scan(v, op).to_numpy(), ex_scan(a, op), f"scan {op} {a.dtype} n={n}")
                got = cv.reduce(v, op)
                want = reduce_oracle(a, op)
                check_all(WORLD, got == want and type(got) is type(want.item()),
                          f"reduce {op} {a.dtype} n={n}: {got!r} != {want!r}")
                for lengths in segmentations(rng, n):
                    s = cv.Segments(lengths, comm)
                    want_scan = np.concatenate(per_segment(a, lengths, lambda t, j: ex_scan(t, op)) or [a[:0]])
                    check_same_array(WORLD, cv.scan(v, op, segments=s).to_numpy(), want_scan.astype(a.dtype),
                                     f"segmented scan {op} {a.dtype} {lengths}")
                    want_red = np.array(per_segment(a, lengths, lambda t, j: reduce_oracle(t, op)), dtype=a.dtype)
                    check_same_array(WORLD, cv.reduce(v, op, segments=s).to_numpy(), want_red,
                                     f"segmented reduce {op} {a.dtype} {lengths}")


@pytest.mark.parallel(nprocs=RANKS + LARGE)
@on_comms
def test_permute_bpermute_pack_rank(comm):
    rng = np.random.default_rng(3)
    for n in LENGTHS:
        a = rng.random(n)
        va = cv.Vector.from_numpy(a, comm)
        p = rng.permutation(n).astype(np.int32)
        want = np.empty_like(a)
        want[p] = a
        check_same_array(WORLD, cv.permute(va, p).to_numpy(), want, f"permute n={n}")
        g = rng.integers(0, max(n, 1), 2 * n + 1).astype(np.int32) if n else np.zeros(0, np.int32)
        check_same_array(WORLD, cv.bpermute(va, g).to_numpy(), a[g], f"bpermute n={n}")
        f = rng.random(n) < 0.4
        check_same_array(WORLD, cv.pack(va, f).to_numpy(), a[f], f"pack n={n}")
        k = rng.integers(-5, 6, n).astype(np.int32)
        vk = cv.Vector.from_numpy(k, comm)
        check_same_array(WORLD, cv.rank(vk).to_numpy(), rank_oracle(k), f"rank n={n}")
        check_same_array(WORLD, cv.rank(vk, descending=True).to_numpy(), rank_oracle(k, True), f"rank desc n={n}")
        check_same_array(WORLD, cv.permute(vk, cv.rank(vk)).to_numpy(), np.sort(k, kind="stable"), "sort by rank")
        check_same_array(WORLD, cv.rank(va).to_numpy(), rank_oracle(a), f"rank float n={n}")

        for lengths in segmentations(rng, n):
            s = cv.Segments(lengths, comm)
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
@on_comms
def test_index_distribute_extract_replace(comm):
    rng = np.random.default_rng(4)
    for n in LENGTHS:
        check_same_array(WORLD, cv.index(n, comm=comm).to_numpy(), np.arange(n, dtype=np.int32), f"index n={n}")
        check_same_array(WORLD, cv.index(n, 7, -3, comm).to_numpy(), (7 - 3 * np.arange(n)).astype(np.int32),
                         "index 7,-3")
        check_same_array(WORLD, cv.distribute(2.5, n, comm=comm).to_numpy(), np.full(n, 2.5), f"distribute n={n}")
        check_same_array(WORLD, cv.distribute(True, n, comm=comm).to_numpy(), np.ones(n, bool), "distribute bool")
        check_same_array(WORLD, cv.distribute(-4, n, comm=comm).to_numpy(), np.full(n, -4, np.int32), "distribute int")
        check_same_array(WORLD, cv.Vector(n, np.int32, comm).to_numpy(), np.zeros(n, np.int32), "zero-filled")
        a = rng.integers(-9, 10, n).astype(np.int32)
        va = cv.Vector.from_numpy(a, comm)
        if n:
            i = int(rng.integers(0, n))
            check_all(WORLD, cv.extract(va, i) == a[i] and va[-1] == a[-1], f"extract n={n}")
            b = a.copy()
            b[i] = 99
            check_same_array(WORLD, cv.replace(va, i, 99).to_numpy(), b, "replace")
            check_same_array(WORLD, va.to_numpy(), a, "replace leaves its argument alone")
            va[i] = 99
            check_same_array(WORLD, va.to_numpy(), b, "v[i] = x")
            va = cv.Vector.from_numpy(a, comm)
        for lengths in segmentations(rng, n):
            s = cv.Segments(lengths, comm)
            m = len(lengths)
            vals = rng.random(m)
            check_same_array(WORLD, cv.distribute(vals, s).to_numpy(), np.repeat(vals, lengths),
                             f"seg distribute of an array {lengths}")
            check_same_array(WORLD, cv.distribute(cv.Vector.from_numpy(vals, comm), s).to_numpy(),
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


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@on_comms
def test_local_views_and_placement(comm):
    """v.local is this rank's block by the one block rule, a writable view that keeps
    its vector alive."""
    p, r = comm.size, comm.rank
    for n in LENGTHS:
        a = np.arange(n, dtype=np.float64) * 1.5
        v = cv.Vector.from_numpy(a, comm)
        b = -(-n // p)
        lo, hi = min(r * b, n), min((r + 1) * b, n)
        check_same_array(WORLD, v.local, a[lo:hi], f"local block n={n}")
        check_all(WORLD, v.local_offset == lo and v.comm is comm, "local_offset and comm")
        view = v.local
        view[:] = -view
        check_same_array(WORLD, v.to_numpy(), -a, f"writes through v.local n={n}")
        del v
        gc.collect()
        view += 1.0  # the view still owns the vector
        check_same_array(WORLD, view, 1.0 - a[lo:hi], "a view outlives its Vector object")
        for dtype in (np.int32, np.bool_):
            w = cv.distribute(dtype(1), n, dtype, comm)
            check_all(WORLD, w.local.dtype == dtype and w.local.size == hi - lo and w.local.all(), "typed views")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("comm", [WORLD, SPLIT], ids=["world", "split"])
@pytest.mark.parametrize("order", ["send", "news"])
def test_from_distarray_shares_memory(comm, order):
    grid = dm.ProcessGrid(comm, order=order)
    for n in LENGTHS:
        for dtype in (np.float64, np.int32):
            x = (np.arange(n) * 3 - 7).astype(dtype)
            a = dm.DistArray.from_global(grid, x, dist=dm.Block())
            v = cv.Vector.from_distarray(a)
            check_same_array(WORLD, v.to_numpy(), x, f"from_distarray n={n} {order}")
            check_all(WORLD, np.shares_memory(v.local, a.local) or a.local.size == 0, "zero copy")
            v.local[:] *= 2
            check_same_array(WORLD, a.to_global(), 2 * x, "a write through the vector is seen by the array")
            a.local[:] += 1
            check_same_array(WORLD, v.to_numpy(), 2 * x + 1, "a write through the array is seen by the vector")
            w = v + cv.index(n, comm=v.comm).astype(dtype)
            check_same_array(WORLD, w.to_numpy(), 2 * x + 1 + np.arange(n, dtype=dtype), "operations on it")
            check_same_array(WORLD, cv.permute(v, cv.rank(v, descending=True)).to_numpy(),
                             np.sort(2 * x + 1)[::-1].copy(), "permute by rank")
            del a
            gc.collect()
            check_same_array(WORLD, v.to_numpy(), 2 * x + 1, "the vector keeps the array alive")
    b = dm.DistArray.zeros(grid, (5,), np.bool_)
    vb = cv.Vector.from_distarray(b)
    vb.local[:] = True
    check_all(WORLD, b.local.all() and cv.reduce(vb, "and") is True, "bool")


def vector_in(memory, x, grid):
    """A vector of the values x on WORLD: in node memory (datamotion
    allocates it), in a DistArray's memory, or in memory the user adopted."""
    if memory == "node":
        return cv.Vector.from_numpy(x, WORLD)
    a = dm.DistArray.from_global(grid, x, dist=dm.Block())
    if memory == "adopted":
        a = dm.DistArray.adopt(grid, a.local.copy(), x.shape, dist=dm.Block())
    return cv.Vector.from_distarray(a)


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("memory", ["node", "distarray", "adopted"])
def test_bpermute_reads_in_place_or_by_message(memory):
    """On one node bpermute reads the owners' blocks in place where every source is
    node memory (vectors datamotion allocates, DistArrays it allocates) and falls
    back to messages for memory a user adopted: the same result either way, also
    with an index vector that is its own source's destination."""
    rng = np.random.default_rng(11)
    grid = dm.ProcessGrid(WORLD)
    for n in LENGTHS:
        for dtype in (np.float64, np.int32):
            x = rng.integers(-99, 100, n).astype(dtype)
            v = vector_in(memory, x, grid)
            g = rng.integers(0, max(n, 1), 2 * n + 1).astype(np.int32) if n else np.zeros(0, np.int32)
            check_same_array(WORLD, cv.bpermute(v, g).to_numpy(), x[g], f"bpermute {memory} n={n} {dtype.__name__}")
            i = cv.Vector.from_numpy(rng.integers(0, max(n, 1), n).astype(np.int32), v.comm)
            want = i.to_numpy()[i.to_numpy()] if n else np.zeros(0, np.int32)
            check_same_array(WORLD, cv.bpermute(i, i).to_numpy(), want, f"bpermute of the index itself n={n}")


def last_wins(values, index, into):
    """``into`` with into[index[k]] = values[k] in order of k: the highest k wins."""
    out = into.copy()
    last = np.full(out.size, -1)
    np.maximum.at(last, index, np.arange(index.size))
    hit = last >= 0
    out[hit] = values[last[hit]]
    return out


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("path", ["auto", "messages"])
@pytest.mark.parametrize("memory", ["node", "distarray", "adopted"])
def test_permute_in_place_or_by_message(memory, path, monkeypatch):
    """On one node permute places its records in node memory and each rank reads
    its own straight out of the senders' buffers, whatever memory the vectors are
    in (blocks of 8 KiB and more); DM_EXCHANGE=pack keeps them on messages. The
    same result either way: with repeated targets the highest source position
    wins, ranks may own nothing (short vectors) or send nothing (replace in two
    segments), the destination may be the source itself (smp_pu into its own
    source), and a bad index fails on every rank before anything moves."""
    if path == "messages":
        monkeypatch.setenv("DM_EXCHANGE", "pack")
    rng = np.random.default_rng(17)
    grid = dm.ProcessGrid(WORLD)
    # Blocks of at least 8 KiB (smaller ones go by message), and several 2^16-element
    # windows per rank.
    lengths = LENGTHS + [2100 * SIZE + 5]
    if memory == "node":
        lengths.append(2 * 70_000 * SIZE + 3)
    for n in lengths:
        for dtype in (np.float64, np.int32):
            what = f"permute {memory} {path} n={n} {dtype.__name__}"
            x = rng.integers(-99, 100, n).astype(dtype)
            v = vector_in(memory, x, grid)
            i = rng.integers(0, max(n, 1), n).astype(np.int32) if n else np.zeros(0, np.int32)
            check_same_array(WORLD, cv.permute(v, i).to_numpy(), last_wins(x, i, np.zeros_like(x)), what)
            vi = cv.Vector.from_numpy(i, v.comm)
            v._space.permute(f"smp_pu{v._kind}", v._handle, v._handle, vi._handle, n)
            want = last_wins(x, i, x)
            check_same_array(WORLD, v.to_numpy(), want, f"{what}, into its own source")
            if n >= 12:  # two segments: from 3 ranks on, a rank with none sends nothing
                s = cv.Segments([n - 7, 7], v.comm)
                got = cv.replace(v, [3, 5], np.array([7, 9], dtype), segments=s).to_numpy()
                replaced = want.copy()
                replaced[[3, n - 2]] = [7, 9]
                check_same_array(WORLD, got, replaced, f"{what}: replace in segments")
            if n:
                bad = i.copy()
                bad[n // 2] = n + 5
                vb = cv.Vector.from_numpy(bad, v.comm)
                raises_everywhere(WORLD, lambda: v._space.permute(f"smp_pu{v._kind}", v._handle, v._handle,
                                                                  vb._handle, n),
                                  status="DM_ERR_ARG", match=rf"index {n + 5} at position {n // 2} is outside")
                check_same_array(WORLD, v.to_numpy(), want, f"{what}: nothing moved after a bad index")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_from_distarray_refuses_other_layouts():
    grid = dm.ProcessGrid(WORLD)
    n = 2 * SIZE + 3

    def refused(make, status, match):
        a = make()
        raises_everywhere(WORLD, lambda: cv.Vector.from_distarray(a), status=status, match=match)

    refused(lambda: dm.DistArray.zeros(grid, (n,), np.float64, ghost=1), "DM_ERR_ARG", "ghost width 1")
    refused(lambda: dm.DistArray.zeros(grid, (n,), np.int64), "DM_ERR_TYPE", "int64")
    grid2 = dm.ProcessGrid(WORLD, dims=[SIZE, 1])
    refused(lambda: dm.DistArray.zeros(grid2, (n, 2)), "DM_ERR_ARG", "2 axes")
    if SIZE > 1:
        refused(lambda: dm.DistArray.zeros(grid, (n,), dist=dm.Cyclic()), "DM_ERR_ARG", r"Cyclic\(\).*needs Block")
        refused(lambda: dm.DistArray.zeros(grid, (n,), dist=dm.BlockCyclic(1, 1)), "DM_ERR_ARG", "BlockCyclic")
        refused(lambda: dm.DistArray.zeros(grid, (n,), dist=dm.Sizes([n] + [0] * (SIZE - 1))), "DM_ERR_ARG",
                r"Sizes\(\[.*needs Block")
    # Sizes that are the block rule's place every element where a vector does.
    rule = dm._core.BlockRule(n, SIZE)
    same = dm.DistArray.from_global(grid, np.arange(n, dtype=np.int32),
                                    dist=dm.Sizes([rule.count(c) for c in range(SIZE)]))
    check_same_array(WORLD, cv.Vector.from_distarray(same).to_numpy(), np.arange(n, dtype=np.int32), "Sizes")
    raises_everywhere(WORLD, lambda: cv.Vector.from_distarray(np.zeros(n)), status="DM_ERR_TYPE",
                      match="DistArray")


@pytest.mark.parallel(nprocs=RANKS)
@on_comms
def test_errors_are_raised_on_every_rank(comm):
    p = comm.size
    n = 2 * p + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64), comm)
    bad = np.arange(n, dtype=np.int32)
    bad[n - 1] = n + 5  # on the last rank that holds elements
    raises_everywhere(comm, lambda: cv.permute(v, bad), status="DM_ERR_ARG", match=r"outside \[0, ")
    raises_everywhere(comm, lambda: cv.bpermute(v, [0, -1]), status="DM_ERR_ARG", match="outside")
    raises_everywhere(comm, lambda: cv.extract(v, n), status="DM_ERR_ARG")
    raises_everywhere(comm, lambda: v + cv.index(n + 1, comm=comm), status="DM_ERR_ARG", match="lengths")
    raises_everywhere(comm, lambda: cv.scan(v, "or"), status="DM_ERR_TYPE")
    raises_everywhere(comm, lambda: cv.reduce(v, segments=cv.Segments([1, n], comm)), status="DM_ERR_ARG",
                      match=f"describe {n + 1} elements but the vector has {n}")
    raises_everywhere(comm, lambda: cv.Vector.from_numpy(np.zeros(3, np.complex128), comm), status="DM_ERR_TYPE")
    raises_everywhere(comm, lambda: cv.Vector(3, np.complex128, comm), status="DM_ERR_TYPE", match="complex128")
    raises_everywhere(comm, lambda: cv.Vector(3, "no such type", comm), status="DM_ERR_TYPE")
    raises_everywhere(comm, lambda: cv.Vector(-1, comm=comm), status="DM_ERR_ARG", match="outside")
    # The library is still usable after an error.
    check_all(WORLD, v.sum() == n * (n - 1) / 2, "sum after errors")
    check_all(WORLD, isinstance(cv.Vector, type) and dm.Vector is cv.Vector and dm.Segments is cv.Segments,
              "exported")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_vectors_of_different_communicators_are_refused():
    n = 7
    v = cv.index(n)
    dup = WORLD.Dup()
    try:
        for other in (SPLIT, MPI.COMM_SELF, dup):
            w = cv.index(n, comm=other)
            s = cv.Segments([3, 4], comm=other)
            match = "different communicators"
            raises_everywhere(WORLD, lambda: v + w, status="DM_ERR_ARG", match=match)
            raises_everywhere(WORLD, lambda: cv.permute(v, w), status="DM_ERR_ARG", match=match)
            raises_everywhere(WORLD, lambda: cv.bpermute(w, v), status="DM_ERR_ARG", match=match)
            raises_everywhere(WORLD, lambda: cv.scan(v, segments=s), status="DM_ERR_ARG", match=match)
            raises_everywhere(WORLD, lambda: cv.select(v > 3, v, w), status="DM_ERR_ARG", match=match)
            raises_everywhere(WORLD, lambda: cv.distribute(v, s), status="DM_ERR_ARG", match=match)
        err = raises_everywhere(WORLD, lambda: v + cv.index(n, comm=MPI.COMM_SELF), status="DM_ERR_ARG")
        check_all(WORLD, "MPI_COMM_WORLD" in str(err) and "MPI_COMM_SELF" in str(err), f"names both: {err}")
        del w, s
    finally:
        dup.Free()
    # Below the Python layer, the space checks handles itself: a released one is refused.
    t = cv.index(n)
    gone = t._handle
    del t
    raises_everywhere(WORLD, lambda: v._space.unary("cpy_wuz", v._handle, gone, n), status="DM_ERR_ARG",
                      match="not a live vector of this communicator")
    check_same_array(WORLD, (v + v).to_numpy(), 2 * np.arange(n, dtype=np.int32), "works afterwards")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_vectors_freed_on_some_ranks_only():
    """A vector freed on some ranks only (a garbage collection that ran there, a
    reference held on the others) changes nothing for the vectors made after it:
    handles are never reused, so the ranks still agree on every later call (checked
    mode compares them)."""
    n = 3 * SIZE + 1
    keep = cv.index(n)
    doomed = [cv.distribute(1.0, n) for _ in range(3)]
    cycle = [cv.index(n)]
    cycle.append(cycle)  # freed only by the cycle collector
    if WORLD.rank % 2 == 1:
        del doomed[1:]
    del cycle
    if WORLD.rank == 0:
        gc.collect()
    x = cv.Vector.from_numpy(np.arange(n, dtype=np.float64))
    for _ in range(3):
        y = cv.permute(x * 2.0, cv.rank(-keep))
        x = y / 2.0
    # rank(-keep) reverses; three reversals reverse.
    check_same_array(WORLD, x.to_numpy(), np.arange(n, dtype=np.float64)[::-1], "permutations after uneven frees")
    check_all(WORLD, cv.reduce(keep + 1) == n * (n + 1) // 2, "reduce after uneven frees")
    del doomed
    gc.collect()


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_vector_outliving_its_communicator():
    dup = WORLD.Dup()
    v = cv.index(5, comm=dup)
    check_all(WORLD, v.sum() == 10, "sum")
    dup.Free()
    raises_everywhere(WORLD, lambda: v.to_numpy(), status="DM_ERR_STATE", match="freed")
    del v  # forgotten: nothing to free


# ---- ranks that disagree: the same DM_ERR_MISMATCH on every rank, never a hang

CHECKED = dm._core.checked_mode()


def _odd(comm) -> bool:
    """The rank that disagrees (the last one, when there are several)."""
    return comm.size > 1 and comm.rank == comm.size - 1


def _mismatch(comm, fn, match=None):
    """Collective. With several ranks fn raises DM_ERR_MISMATCH everywhere; with one it works."""
    if comm.size == 1:
        fn()
    else:
        raises_everywhere(comm, fn, status="DM_ERR_MISMATCH", match=match)


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("comm", [WORLD, SPLIT], ids=["world", "split"])
def test_arguments_that_differ_by_rank_fail_on_every_rank(comm):
    n = 2 * comm.size + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64), comm)
    # bpermute with index lengths differing by rank: never "Message truncated".
    _mismatch(comm, lambda: cv.bpermute(v, np.arange(n - 1 if _odd(comm) else n, dtype=np.int32)))
    # extract with the index differing by rank: never a silent v[0].
    _mismatch(comm, lambda: cv.extract(v, 1 if _odd(comm) else 0), match="argument i differs")
    # reduce over vectors whose lengths differ by rank.
    w = cv.Vector.from_numpy(np.arange(n - 1 if _odd(comm) else n, dtype=np.float64), comm) if not CHECKED else None
    if w is not None:
        _mismatch(comm, lambda: cv.reduce(w))
    check_all(WORLD, v.sum() == n * (n - 1) / 2, "the library works afterwards")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("comm", [WORLD, SPLIT], ids=["world", "split"])
def test_replicated_arrays_that_differ_by_rank_fail_in_checked_mode(comm):
    if not CHECKED:
        pytest.skip("from_numpy's array is compared in checked mode (DATAMOTION_CHECK=1)")
    n = 2 * comm.size + 3
    v = cv.Vector.from_numpy(np.arange(n, dtype=np.float64), comm)
    # A permutation index with the same length but other contents on one rank.
    perm = np.arange(n, dtype=np.int32)[::-1].copy()
    if _odd(comm):
        perm[0] = perm[1]
    _mismatch(comm, lambda: cv.permute(v, perm), match="hash of its contents")
    # from_numpy with 10 elements on one rank and 11 on the others.
    _mismatch(comm, lambda: cv.Vector.from_numpy(np.arange(10 if _odd(comm) else 11, dtype=np.float64), comm))
    # An elementwise operation on lengths that differ by rank.
    _mismatch(comm, lambda: v + cv.index(n - 1 if _odd(comm) else n, comm=comm).astype(np.float64))
    check_same_array(WORLD, cv.permute(v, np.arange(n, dtype=np.int32)[::-1].copy()).to_numpy(),
                     np.arange(n, dtype=np.float64)[::-1], "permute afterwards")


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
