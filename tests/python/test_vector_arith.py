"""datamotion.vector arithmetic on long vectors, where the local loops take their
vectorised paths (blocked and pairwise folds, scans cut into independent pieces,
elementwise loops), against sequential NumPy oracles; and the accuracy of
floating-point sums against exact ones (math.fsum). The same loops on destinations
that are their sources: tests/cvl (every function in place, long vectors too)."""

import math

import numpy as np
import pytest

from datamotion import vector as cv
from vector_oracle import I32, IDENTITY, OPS, UFUNC
from dmtest import WORLD, check_all, check_same_array

SIZE = WORLD.size
RANKS = [1, 2, 3]
# Several thousand elements per rank: the scans' pieces (4096 and more) and the folds'
# pairwise blocks (128), with remainders.
N = 9 * 1024 * SIZE + 37


def data(rng, n, dtype, op):
    """Values whose scans and reductions are exact in any order (int32 wraps alike)."""
    if dtype == np.bool_:
        return rng.random(n) < (0.9995 if op == "and" else 0.5)
    if dtype == np.int32:
        if op == "and":  # mostly all ones: the result keeps some bits
            return np.where(rng.random(n) < 0.0005, ~(1 << rng.integers(0, 31, n)), -1).astype(np.int32)
        return rng.integers(-3, 4, n).astype(np.int32) if op == "mul" else rng.integers(I32.min, I32.max, n,
                                                                                          dtype=np.int32)
    if op == "mul":  # powers of two whose products stay normal numbers in any order
        return rng.choice([0.5, 1.0, 2.0, -1.0], n, p=[0.05, 0.85, 0.05, 0.05])
    return rng.integers(-2**20, 2**20, n).astype(np.float64)


def ex_scan(a, op):
    out = np.empty_like(a)
    if a.size:
        out[0] = IDENTITY[(op, a.dtype.kind)]
        out[1:] = UFUNC[op].accumulate(a[:-1], dtype=a.dtype)
    return out


def reduce_oracle(a, op):
    return a.dtype.type(IDENTITY[(op, a.dtype.kind)]) if a.size == 0 else UFUNC[op].reduce(a, dtype=a.dtype)


@pytest.mark.parallel(nprocs=RANKS)
def test_long_scans_and_reductions_match_the_sequential_oracle():
    rng = np.random.default_rng(141)
    # One segment over everything, long segments crossing ranks, short ones, empty ones.
    lengths = [[N], [N // 2, 0, 3, 1, N // 3] + [1] * 40 + [N - N // 2 - N // 3 - 44],
               [0] + [13] * (N // 13) + [N % 13, 0]]
    for dtype, ops in OPS.items():
        for op in ops:
            a = data(rng, N, dtype, op)
            v = cv.Vector.from_numpy(a)
            check_same_array(WORLD, cv.scan(v, op).to_numpy(), ex_scan(a, op), f"scan {op} {a.dtype}")
            got, want = cv.reduce(v, op), reduce_oracle(a, op)
            check_all(WORLD, got == want, f"reduce {op} {a.dtype}: {got!r} != {want!r}")
            for ls in lengths:
                s = cv.Segments(ls)
                bounds = np.concatenate([[0], np.cumsum(ls)])
                pieces = [a[bounds[j]:bounds[j + 1]] for j in range(len(ls))]
                check_same_array(WORLD, cv.scan(v, op, segments=s).to_numpy(),
                                 np.concatenate([ex_scan(t, op) for t in pieces]), f"segmented scan {op} {a.dtype}")
                check_same_array(WORLD, cv.reduce(v, op, segments=s).to_numpy(),
                                 np.array([reduce_oracle(t, op) for t in pieces], dtype=a.dtype),
                                 f"segmented reduce {op} {a.dtype}")


def sequential_sum(a):
    acc = 0.0
    for x in a.tolist():
        acc += x
    return acc


@pytest.mark.parallel(nprocs=RANKS)
def test_double_sums_are_at_least_as_accurate_as_the_sequential_sum():
    rng = np.random.default_rng(142)

    def cancelling(m):
        """Ill-conditioned: large values that cancel exactly, small ones in between."""
        big = rng.normal(0, 1e10, m // 4)
        out = np.concatenate([big, -big, rng.normal(0, 1e-3, m - 2 * (m // 4))])
        rng.shuffle(out)
        return out

    cases = {  # each segment of [N // 3, N - N // 3] is such a case too
        # 1 then values below half its unit in the last place: a sequential sum never
        # moves from 1, the exact sum is 1 + (N - 1) 1e-16.
        "tiny after one": np.concatenate([[1.0], np.full(N // 3 - 1, 1e-16), [1.0], np.full(N - N // 3 - 1, 1e-16)]),
        "cancellation": np.concatenate([cancelling(N // 3), cancelling(N - N // 3)]),
        "magnitudes 1e-8 to 1e8": rng.uniform(0, 1, N) * 10.0 ** rng.integers(-8, 9, N),
    }
    s = cv.Segments([N // 3, N - N // 3])
    for name, a in cases.items():
        v = cv.Vector.from_numpy(a)
        # The whole vector, and segments (folded the same way, each alone).
        got = [cv.reduce(v, "add")] + cv.reduce(v, "add", segments=s).to_numpy().tolist()
        for what, t, ours in zip(("all", "segment 0", "segment 1"), (a, a[: N // 3], a[N // 3:]), got):
            exact = math.fsum(t)
            seq_err, our_err = abs(sequential_sum(t) - exact), abs(ours - exact)
            check_all(WORLD, our_err <= seq_err,
                      f"{name}, {what}: |pairwise - fsum| = {our_err:.3g} > |sequential - fsum| = {seq_err:.3g}")
    # The first case is decided: the sequential sum stays at 2.0 (an error of about
    # N 1e-16), the pairwise one loses at most the few values a lane adds to a 1.
    a = cases["tiny after one"]
    check_all(WORLD, abs(cv.reduce(cv.Vector.from_numpy(a), "add") - math.fsum(a)) < 1e-14,
              "pairwise sum of 1 + tiny values lost the tiny values")


@pytest.mark.parallel(nprocs=RANKS)
def test_long_elementwise_operators():
    rng = np.random.default_rng(143)
    ai, bi = rng.integers(I32.min, I32.max, N, dtype=np.int32), rng.integers(I32.min, I32.max, N, dtype=np.int32)
    ai[::13] = I32.min  # its negation wraps to itself
    ad, bd = rng.normal(0, 1, N), rng.normal(0, 1, N)
    ad[::7] = bd[::7]
    ad[::11] = np.nan
    ab, bb = rng.random(N) < 0.5, rng.random(N) < 0.5
    for a, b in ((ai, bi), (ad, bd), (ab, bb)):
        va, vb = cv.Vector.from_numpy(a), cv.Vector.from_numpy(b)
        ops = {"==": (va == vb, a == b), "!=": (va != vb, a != b)}
        if a.dtype != np.bool_:
            ops.update({"neg": (-va, -a), "+": (va + vb, a + b), "-": (va - vb, a - b), "*": (va * vb, a * b), "<": (va < vb, a < b),
                        "<=": (va <= vb, a <= b), ">": (va > vb, a > b), ">=": (va >= vb, a >= b)})
        if a.dtype != np.float64:
            ops.update({"&": (va & vb, a & b), "|": (va | vb, a | b), "^": (va ^ vb, a ^ b), "~": (~va, ~a)})
        for name, (got, want) in ops.items():
            got = got.to_numpy()
            check_all(WORLD, got.dtype == want.dtype and np.array_equal(got, want, equal_nan=want.dtype.kind == "f"),
                      f"{a.dtype} {name}: {np.count_nonzero(got != want)} elements differ")
