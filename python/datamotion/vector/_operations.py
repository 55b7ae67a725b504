"""CVL's operations on vectors: scans, reductions, permutations, packs, ranks,
``index``, ``distribute``, ``extract``, ``replace`` and ``select``, each with a
segmented form where CVL has one."""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from .._calls import collective
from .._errors import Error
from ._vectors import (ERR_ARG, ERR_TYPE, Segments, Vector, as_vector, check_segments, describe, extract_one, full,
                       op_name, operands, reduce_all, same_space, space_of)

from mpi4py import MPI  # noqa: E402 - after _mpi (through ._vectors), which settles MPI's thread level


def _typed_vector(x, n: int, dtype, what: str, like: Vector) -> Vector:
    x = as_vector(x, like=like)
    if x.dtype != dtype:
        raise Error(ERR_TYPE, f"{what} must hold {np.dtype(dtype).name} values")
    if len(x) != n:
        raise Error(ERR_ARG, f"{what} has {len(x)} elements, expected {n}")
    return x


def _int_vector(x, n: int, what: str, like: Vector) -> Vector:
    return _typed_vector(x, n, np.int32, what, like)


def _bool_vector(x, n: int, what: str, like: Vector) -> Vector:
    return _typed_vector(x, n, np.bool_, what, like)


@collective("scan")
def scan(v: Vector, op: str = "add", segments: Optional[Segments] = None) -> Vector:
    """Collective. Exclusive scan: ``d[i] = v[0] op ... op v[i-1]`` (per segment if
    ``segments`` is given; each segment starts with the identity).

    ``op``: "add", "mul", "min", "max" (int32, float64) or "and", "or", "xor"
    (bool, int32). Identities: 0, 1, the type's max, its min, true / all bits,
    false / 0. Compare ``np.cumsum(v) - v`` for "add".
    """
    v = as_vector(v, like=segments)
    name, n = op_name(v, op), len(v)
    if segments is None:
        d = Vector._on(v, n, v.dtype)
        v._space.unary(f"{name}_su{v._kind}", d._handle, v._handle, n)
    else:
        check_segments(v, segments)
        d = Vector._on(v, n, v.dtype)
        v._space.seg_unary(f"{name}_se{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


@collective("reduce")
def reduce(v: Vector, op: str = "add", segments: Optional[Segments] = None):
    """Collective. Combines the elements with ``op`` (see :func:`scan`): a Python
    scalar on every rank, or with ``segments`` a Vector of one value per segment
    (the identity for an empty segment). The identity for an empty vector.
    """
    v = as_vector(v, like=segments)
    if segments is None:
        return reduce_all(v, op)
    name, n = op_name(v, op), len(v)
    check_segments(v, segments)
    d = Vector._on(v, segments.m, v.dtype)
    v._space.seg_unary(f"{name}_re{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


@collective("permute")
def permute(v: Vector, index, segments: Optional[Segments] = None) -> Vector:
    """Collective. Send permutation: ``d[index[k]] = v[k]`` (``d[index] = v`` in
    NumPy). With ``segments`` the indices are relative to each segment's start.

    ``index`` is an int32 Vector (or array) of ``len(v)`` values in range; a
    value out of range raises datamotion.Error on every rank. Positions no index
    names are 0 (false); with repeated indices the highest k wins.
    """
    v = as_vector(v, like=segments)
    n = len(v)
    index = _int_vector(index, n, "the index", v)
    if segments is not None:
        check_segments(v, segments)
    d = Vector._on(v, n, v.dtype, zero=True)  # positions no index names stay 0
    if segments is None:
        v._space.permute(f"smp_pu{v._kind}", d._handle, v._handle, index._handle, n)
    else:
        v._space.seg_binary(f"smp_pe{v._kind}", d._handle, v._handle, index._handle, segments._handle, n,
                            segments.m)
    return d


@collective("bpermute")
def bpermute(v: Vector, index, segments: Optional[Segments] = None,
             index_segments: Optional[Segments] = None) -> Vector:
    """Collective. Back permutation (gather): ``d[k] = v[index[k]]`` (``v[index]``
    in NumPy); the result has ``len(index)`` elements.

    With ``segments`` (of ``v``) and ``index_segments`` (of ``index``, the same
    number of segments; default ``segments``), ``index[k]`` is relative to the
    start of the source segment with the same number as k's segment.
    """
    v = as_vector(v, like=segments)
    index = as_vector(index, like=v)
    index = _int_vector(index, len(index), "the index", v)
    nd = len(index)
    if segments is None:
        d = Vector._on(v, nd, v.dtype)
        v._space.two_len(f"bck_pu{v._kind}", d._handle, v._handle, index._handle, len(v), nd)
    else:
        check_segments(v, segments)
        index_segments = segments if index_segments is None else index_segments
        check_segments(index, index_segments, "the index")
        d = Vector._on(v, nd, v.dtype)
        v._space.seg_two(f"bck_pe{v._kind}", d._handle, v._handle, index._handle, segments._handle, len(v),
                         segments.m, index_segments._handle, nd, index_segments.m)
    return d


@collective("pack")
def pack(v: Vector, flags, segments: Optional[Segments] = None):
    """Collective. The elements whose flag is true, in order (``v[flags]``).

    ``flags`` is a bool Vector (or array) of ``len(v)``. With ``segments`` it
    packs within each segment and returns ``(vector, Segments)`` of the kept
    elements per segment; otherwise just the vector.
    """
    v = as_vector(v, like=segments)
    n = len(v)
    flags = _bool_vector(flags, n, "the flags", v)
    if segments is None:
        count = v._space.count_true(flags._handle, n)
        d = Vector._on(v, count, v.dtype)
        v._space.two_len(f"pk2_lu{v._kind}", d._handle, v._handle, flags._handle, n, count)
        return d
    check_segments(v, segments)
    counts = Vector._on(v, segments.m, np.int32)
    v._space.seg_unary("pk1_lev", counts._handle, flags._handle, segments._handle, n, segments.m)
    out_segments = Segments(counts.to_numpy(), v._comm)
    d = Vector._on(v, out_segments.n, v.dtype)
    v._space.seg_two(f"pk2_le{v._kind}", d._handle, v._handle, flags._handle, segments._handle, n, segments.m,
                     out_segments._handle, out_segments.n, out_segments.m)
    return d, out_segments


def index(n: int, init: int = 0, stride: int = 1, comm: Optional[MPI.Comm] = None) -> Vector:
    """Local. The int32 vector ``init + k * stride`` for k in [0, n)
    (``np.arange(init, init + n * stride, stride)``) over ``comm`` (default
    ``MPI.COMM_WORLD``)."""
    d = Vector(n, np.int32, comm)
    d._space.index(d._handle, int(init), int(stride), len(d))
    return d


@collective("rank")
def rank(v: Vector, descending: bool = False, segments: Optional[Segments] = None) -> Vector:
    """Collective. ``d[k]`` = the position of ``v[k]`` in a stable sort (ascending,
    or descending), so ``permute(v, rank(v))`` sorts v; with ``segments`` within
    each segment. int32 or float64 vectors (NaN sorts above every number).
    Compare ``np.argsort(np.argsort(v, kind="stable"))``."""
    v = as_vector(v, like=segments)
    if v._kind == "b":
        raise Error(ERR_TYPE, "rank needs an int32 or float64 vector")
    n = len(v)
    prefix = "rkd" if descending else "rku"
    if segments is None:
        d = Vector._on(v, n, np.int32)
        v._space.unary(f"{prefix}_lu{v._kind}", d._handle, v._handle, n)
    else:
        check_segments(v, segments)
        d = Vector._on(v, n, np.int32)
        v._space.seg_unary(f"{prefix}_le{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


def distribute(value, n: Union[int, Segments], dtype=None, comm: Optional[MPI.Comm] = None) -> Vector:
    """A vector of ``n`` copies of the scalar ``value`` over ``comm`` (local;
    ``np.full``; default ``MPI.COMM_WORLD``); the dtype follows the value (bool,
    int -> int32, float -> float64) unless given.

    Segmented (collective): ``distribute(values, segments)`` with a Vector of one
    value per segment fills every element of segment j with ``values[j]``; the
    result lives on the communicator of ``segments`` (``comm``, if given, must be it).
    """
    if isinstance(n, Segments):
        if comm is not None and space_of(comm)[1] != n._space:
            raise Error(ERR_ARG, f"distribute: the segments live on {describe(n._comm)}, not on the given "
                                  f"{describe(comm)}")
        values = as_vector(value, dtype, like=n)
        if len(values) != n.m:
            raise Error(ERR_ARG, f"{len(values)} values for {n.m} segments")
        d = Vector._on(n, n.n, values.dtype)
        n._space.seg_unary(f"dis_ve{values._kind}", d._handle, values._handle, n._handle, n.n, n.m)
        return d
    return full(value, n, dtype, comm)


@collective("extract")
def extract(v: Vector, i, segments: Optional[Segments] = None):
    """Collective. Element ``i`` of ``v`` as a Python scalar on every rank
    (negative i counts from the end; out of range raises datamotion.Error).

    With ``segments``, ``i`` is a Vector of one position per segment (relative
    to its start) and the result a Vector of one element per segment.
    """
    v = as_vector(v, like=segments)
    if segments is None:
        return extract_one(v, i)
    check_segments(v, segments)
    i = _int_vector(i, segments.m, "the positions", v)
    d = Vector._on(v, segments.m, v.dtype)
    v._space.seg_binary(f"ext_ve{v._kind}", d._handle, v._handle, i._handle, segments._handle, len(v), segments.m)
    return d


@collective("replace")
def replace(v: Vector, i, value, segments: Optional[Segments] = None) -> Vector:
    """A copy of ``v`` with element ``i`` set to ``value`` (local; ``v[i] = value``
    changes v itself).

    With ``segments`` (collective), ``i`` and ``value`` are Vectors of one
    position (relative to the segment start) and one value per segment.
    """
    v = as_vector(v, like=segments)
    if segments is None:
        d = v.copy()
        d[i] = value
        return d
    check_segments(v, segments)
    i = _int_vector(i, segments.m, "the positions", v)
    value = as_vector(value, v.dtype, like=v)
    if value.dtype != v.dtype or len(value) != segments.m:
        raise Error(ERR_ARG, f"the values must be {segments.m} elements of {v.dtype.name}")
    d = v.copy()
    v._space.seg_binary(f"rep_ve{v._kind}", d._handle, i._handle, value._handle, segments._handle, len(v),
                        segments.m)
    return d


def select(flags, a, b) -> Vector:
    """Local. ``flags[k] ? a[k] : b[k]`` (``np.where``); ``a`` and ``b`` are Vectors
    of one type or scalars, on the communicator of ``flags``."""
    like = flags if isinstance(flags, Vector) else a if isinstance(a, Vector) else b if isinstance(b, Vector) else None
    flags = as_vector(flags, like=like)
    if flags.dtype != np.bool_:
        raise Error(ERR_TYPE, "the flags must hold bool values")
    n = len(flags)
    if not isinstance(a, Vector):
        a = distribute(a, n, b.dtype if isinstance(b, Vector) else None, comm=flags._comm)
    same_space(flags, a)
    a, b = operands(a, b, "zdb")
    if len(a) != n:
        raise Error(ERR_ARG, f"the flags have {n} elements, the values {len(a)}")
    d = Vector._on(flags, n, a.dtype)
    flags._space.select(f"sel_wu{a._kind}", d._handle, flags._handle, a._handle, b._handle, n)
    return d
