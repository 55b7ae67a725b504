"""CVL arithmetic (elementwise operators, reductions, scans) against NumPy on the
same local block, plus the one MPI call a NumPy program would add.

    mpiexec -n 2 python benchmarks/cvl_arith_vs_numpy.py [--n 1000,1000000,10000000] [--reps 21]

For each N of --n, a vector of n = N x ranks elements (N per rank), int32, float64
and bool, every operator of datamotion.vector on every type it applies to; side by
side in one run (the two contenders alternate inside each repetition, a barrier
before each, the slowest rank's time), medians over the repetitions:

  elementwise  ours: ``a + b``, ``a + 1.5``, ``a.copy()``, ``a.astype(t)``,
               ``select(f, a, b)`` etc. on Vectors (a new result vector each call)
               NumPy: the same on this rank's block (``np.where`` for select; a new
               array each call)
  reduce       ours: datamotion.vector.reduce(v, op)
               NumPy: ``np.<ufunc>.reduce`` of the block + one MPI_Allreduce of
               the rank's result (mpi4py, buffer interface)
  scan         ours: datamotion.vector.scan(v, op) (exclusive)
               NumPy: ``np.<ufunc>.accumulate`` of the block (inclusive), one
               MPI_Exscan of the rank's total, the carry combined into the block
               in place (skipped on rank 0)

Ratios are ours / NumPy: of the medians, and the median of the per-repetition
ratios (two times taken moments apart, steadier on a shared machine). Under each
size's table: its worst row and its median row (by median ratio) and, where NumPy's
call takes under 50 us, the worst difference ours - NumPy in microseconds (at small
N the Python call itself is what is compared).
Reductions and scans wait in one collective each: on a machine whose cores are
busy with other work, or with MPICH's progress throttle, its latency (up to
milliseconds) can hide the local work; the 1-rank run shows the local work alone.

Measured at MPI_THREAD_SINGLE (set before mpi4py initialises MPI); the thread
level is printed.
"""

import argparse
import operator
import sys

import mpi4py

mpi4py.rc.thread_level = "single"
from mpi4py import MPI  # noqa: E402

import numpy as np  # noqa: E402

from datamotion import vector as cv  # noqa: E402
from datamotion.measure.hosts import job_description  # noqa: E402

# How each contender computes (printed above the table).
PATHS = {
    "elementwise": "ours: one C loop (SSE2, AVX2 or AVX-512 clone, picked at load) over the rank's block into a "
                   "fresh, uninitialised vector (node memory where the node's pool has room, else host memory: "
                   "huge pages, a freed block kept for the next result); NumPy: its ufunc loop into a fresh array",
    "reduce": "ours: local fold, MPI_Allgather of the partials (with the call's signature), folded in rank "
              "order; NumPy: ufunc.reduce + MPI_Allreduce",
    "scan": "ours: local fold, MPI_Exscan of (value, flag) pairs, one pass writing the exclusive scan; "
            "NumPy: ufunc.accumulate + MPI_Exscan + the carry applied in place",
}

# (name, Python operator, types)
BINARY = [
    ("+", operator.add, "zd"), ("-", operator.sub, "zd"), ("*", operator.mul, "zd"), ("/", operator.truediv, "d"),
    ("<", operator.lt, "zd"), ("<=", operator.le, "zd"), (">", operator.gt, "zd"), (">=", operator.ge, "zd"),
    ("==", operator.eq, "zdb"), ("!=", operator.ne, "zdb"),
    ("&", operator.and_, "zb"), ("|", operator.or_, "zb"), ("^", operator.xor, "zb"),
]
UNARY = [("~", operator.invert, "zb"), ("neg", operator.neg, "zd"),
         ("copy", lambda a: a.copy(), "zdb")]
# A scalar right operand: (name, Python operator, types)
SCALAR = [("+ 1.5", operator.add, "d"), ("- 1.5", operator.sub, "d"), ("* 1.5", operator.mul, "d"),
          ("/ 1.5", operator.truediv, "d"), ("+ 3", operator.add, "z"), ("* 3", operator.mul, "z"),
          ("< 500", operator.lt, "zd")]
SCALARS = {"+ 1.5": 1.5, "- 1.5": 1.5, "* 1.5": 1.5, "/ 1.5": 1.5, "+ 3": 3, "* 3": 3, "< 500": 500}
# Conversions: (source type, target type)
CASTS = [("z", "d"), ("d", "z"), ("b", "z"), ("z", "b")]

# op -> (types, NumPy ufunc per type, MPI op per type)
REDUCE = {
    "add": ("zd", {"z": np.add, "d": np.add}, {"z": MPI.SUM, "d": MPI.SUM}),
    "mul": ("zd", {"z": np.multiply, "d": np.multiply}, {"z": MPI.PROD, "d": MPI.PROD}),
    "min": ("zd", {"z": np.minimum, "d": np.minimum}, {"z": MPI.MIN, "d": MPI.MIN}),
    "max": ("zd", {"z": np.maximum, "d": np.maximum}, {"z": MPI.MAX, "d": MPI.MAX}),
    "and": ("zb", {"z": np.bitwise_and, "b": np.logical_and}, {"z": MPI.BAND, "b": MPI.LAND}),
    "or": ("zb", {"z": np.bitwise_or, "b": np.logical_or}, {"z": MPI.BOR, "b": MPI.LOR}),
    "xor": ("zb", {"z": np.bitwise_xor, "b": np.logical_xor}, {"z": MPI.BXOR, "b": MPI.LXOR}),
}
DTYPES = {"z": np.int32, "d": np.float64, "b": np.bool_}


def block(n, p, rank):
    """CVL's block rule: ceil(n/p) per rank, trailing ranks short or empty."""
    b = -(-n // p)
    lo = min(n, rank * b)
    return slice(lo, min(n, lo + b))


def operands(kind, n, rng):
    """Whole arrays, the same on every rank (same seed)."""
    if kind == "d":
        return rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    if kind == "z":
        return rng.integers(-1000, 1000, n, dtype=np.int32), rng.integers(1, 1000, n, dtype=np.int32)
    return rng.random(n) < 0.5, rng.random(n) < 0.5


def reduce_operand(kind, op, n, rng):
    """Products that stay normal numbers (no subnormal slow paths) or wrap like NumPy's int32."""
    if op == "mul":
        return rng.uniform(0.999, 1.001, n) if kind == "d" else rng.integers(1, 4, n, dtype=np.int32)
    return operands(kind, n, rng)[0]


def sizes(text):
    """--n: a comma-separated list of elements per rank."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers separated by commas, not {text!r}")
    return values


def measure(comm, per_rank, sections, reps, seed):
    """The rows (section, dtype, op, ours us, NumPy us, ratio of medians, median ratio)
    at per_rank elements per rank."""
    rank, p = comm.Get_rank(), comm.Get_size()
    n = per_rank * p
    mine = block(n, p, rank)
    rng = np.random.default_rng(seed)

    def timed(fn):
        comm.Barrier()
        t0 = MPI.Wtime()
        r = fn()
        t = MPI.Wtime() - t0
        del r  # freeing the result is not timed
        return t

    def side_by_side(ours, numpy):
        for _ in range(3):  # warm up: first touch, buffers grown, the call path's caches
            for fn in (ours, numpy):
                fn()
        t = np.zeros((2, reps))
        for k in range(reps):
            t[0, k] = timed(ours)
            t[1, k] = timed(numpy)
        comm.Allreduce(MPI.IN_PLACE, t, op=MPI.MAX)  # the slowest rank per repetition
        return t

    rows = []

    def row(section, kind, op, t):
        med = np.median(t, axis=1)
        ratios = t[0] / t[1]
        rows.append((section, DTYPES[kind].__name__, op, med[0] * 1e6, med[1] * 1e6, med[0] / med[1],
                     float(np.median(ratios))))

    def elementwise(name, kind, ours_fn, numpy_fn, vectors, blocks, want):
        if not np.array_equal(ours_fn(*vectors).to_numpy(), want):
            sys.exit(f"{name} {kind}: wrong result")
        # A second reference to each block: an array only the argument tuple holds has a
        # reference count of 1, and NumPy then computes into it in place (temporary
        # elision), which is neither a new array nor the same inputs next time.
        held = list(blocks)
        row("elementwise", kind, name, side_by_side(lambda: ours_fn(*vectors), lambda: numpy_fn(*blocks)))
        del held

    if "elementwise" in sections:
        for name, fn, kinds in BINARY:
            for kind in kinds:
                a, b = operands(kind, n, rng)
                elementwise(name, kind, fn, fn, (cv.Vector.from_numpy(a), cv.Vector.from_numpy(b)),
                            (a[mine].copy(), b[mine].copy()), fn(a, b))
        for name, fn, kinds in UNARY:
            for kind in kinds:
                a, _ = operands(kind, n, rng)
                elementwise(name, kind, fn, fn, (cv.Vector.from_numpy(a),), (a[mine].copy(),),
                            a.copy() if name == "copy" else fn(a))
        for name, fn, kinds in SCALAR:
            for kind in kinds:
                a, _ = operands(kind, n, rng)
                c = SCALARS[name]
                elementwise(name, kind, lambda v: fn(v, c), lambda x: fn(x, c), (cv.Vector.from_numpy(a),),
                            (a[mine].copy(),), fn(a, c))
        for source, target in CASTS:
            a, _ = operands(source, n, rng)
            to = DTYPES[target]
            elementwise(f"astype {to.__name__}", source, lambda v: v.astype(to), lambda x: x.astype(to),
                        (cv.Vector.from_numpy(a),), (a[mine].copy(),), a.astype(to))
        for kind in "zdb":
            a, b = operands(kind, n, rng)
            flags = rng.random(n) < 0.5
            elementwise("select", kind, cv.select, np.where,
                        tuple(cv.Vector.from_numpy(x) for x in (flags, a, b)),
                        tuple(x[mine].copy() for x in (flags, a, b)), np.where(flags, a, b))

    if "reduce" in sections or "scan" in sections:
        for op, (kinds, ufuncs, mpi_ops) in REDUCE.items():
            for kind in kinds:
                a = reduce_operand(kind, op, n, rng)
                va, la = cv.Vector.from_numpy(a), a[mine].copy()
                uf, mop, dt = ufuncs[kind], mpi_ops[kind], DTYPES[kind]
                send, recv = np.empty(1, dt), np.empty(1, dt)

                if "reduce" in sections:
                    def np_reduce():
                        send[0] = uf.reduce(la, dtype=dt)
                        comm.Allreduce(send, recv, op=mop)
                        return recv[0]

                    got, want = cv.reduce(va, op), np_reduce()
                    if not (got == want or (kind == "d" and np.isclose(got, want, rtol=1e-9))):
                        sys.exit(f"reduce {op} {kind}: {got} != {want}")
                    row("reduce", kind, op, side_by_side(lambda: cv.reduce(va, op), np_reduce))

                if "scan" in sections:
                    def np_scan():
                        acc = uf.accumulate(la, dtype=dt)
                        send[0] = acc[-1] if len(acc) else uf.identity
                        comm.Exscan(send, recv, op=mop)
                        if rank > 0:
                            uf(acc, recv[0], out=acc)
                        return acc

                    got = cv.scan(va, op).to_numpy()[mine]
                    want = np_scan()
                    # exclusive (ours) against inclusive (NumPy): element i+1 against i
                    ok = np.allclose(got[1:], want[:-1], rtol=1e-9) if kind == "d" else np.array_equal(got[1:],
                                                                                                      want[:-1])
                    if not ok:
                        sys.exit(f"scan {op} {kind}: wrong result")
                    row("scan", kind, op, side_by_side(lambda: cv.scan(va, op), np_scan))
                del va
    return rows


def summary(rows):
    """The worst and the median row by median ratio, and the worst difference in us
    among the rows where NumPy takes under 50 us."""
    ranked = sorted(rows, key=lambda r: r[6])
    worst, median = ranked[-1], ranked[len(ranked) // 2]
    text = (f"worst row: {worst[0]} {worst[1]} {worst[2]} {worst[6]:.2f}; "
            f"median row: {median[0]} {median[1]} {median[2]} {median[6]:.2f}")
    small = [r for r in rows if r[4] < 50]
    if small:
        most = max(small, key=lambda r: r[3] - r[4])
        text += f"; worst difference: {most[0]} {most[1]} {most[2]} {most[3] - most[4]:+.1f} us"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=sizes, default=[1_000, 1_000_000, 10_000_000],
                        help="elements per rank, comma-separated (default 1000,1000000,10000000)")
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--only", default="", help="comma-separated sections: elementwise,reduce,scan")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    sections = set(args.only.split(",")) if args.only else {"elementwise", "reduce", "scan"}

    comm = MPI.COMM_WORLD
    rank, p = comm.Get_rank(), comm.Get_size()
    if max(args.n) * p >= 2**31:
        sys.exit("the vector must have fewer than 2^31 elements")
    layout = job_description(comm)
    if rank == 0:
        thread_level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled",
                        MPI.THREAD_SERIALIZED: "serialized", MPI.THREAD_MULTIPLE: "multiple"}[MPI.Query_thread()]
        print(f"## CVL arithmetic vs NumPy: {p} ranks ({layout}), {args.reps} repetitions")
        print(f"MPI: {MPI.Get_library_version().splitlines()[0].strip()}; thread level: {thread_level}; "
              f"NumPy {np.__version__}")
        print(f"datamotion: {cv.__file__}")
        print("Times: slowest rank per repetition, median over repetitions (us); contenders interleaved.")
        for name, path in PATHS.items():
            print(f"- {name}: {path}")
    summaries = []
    for per_rank in args.n:
        rows = measure(comm, per_rank, sections, args.reps, args.seed)
        if rank == 0:
            print(f"\n### {per_rank} elements per rank\n")
            print("| section | dtype | op | ours (us) | NumPy (us) | ratio of medians | median ratio |")
            print("|---|---|---|---:|---:|---:|---:|")
            for s, dt, op, ours, ref, r1, r2 in rows:
                print(f"| {s} | {dt} | {op} | {ours:.1f} | {ref:.1f} | {r1:.2f} | **{r2:.2f}** |")
            summaries.append(f"{per_rank} per rank: {summary(rows)}")
            print(f"\n{summaries[-1]}")
    if rank == 0:
        print("\nratio = ours / NumPy (+ its one MPI call for reduce and scan)")
        for line in summaries:
            print(f"- {line}")


if __name__ == "__main__":
    main()
