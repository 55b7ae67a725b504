"""CVL's vector operations from Python: distributed vectors, segment descriptors,
scans, reductions, permutations and packs, NumPy-like.

This is the C Vector Library (``cvl.h``, docs/cvl.md) behind a small Python
surface. A :class:`Vector` of n elements (int32, float64 or bool) is
block-distributed over the ranks of ``MPI.COMM_WORLD``; a :class:`Segments`
descriptor splits such a vector into consecutive segments (empty ones allowed)::

    import numpy as np
    from datamotion import vector as cv

    x = cv.Vector.from_numpy(np.arange(10.0))
    s = cv.Segments([3, 0, 7])
    cv.reduce(x, "add", segments=s).to_numpy()   # array([ 3.,  0., 42.])
    cv.scan(x * 2, "max").to_numpy()               # exclusive: first is -DBL_MAX
    ys = x[3]                                      # 3.0 on every rank

The programming model is CVL's hostless SPMD: every rank runs the same program
and makes every call in the same order with the same arguments (``from_numpy``
takes the same whole array on every rank; ``to_numpy`` and scalar results come
back on every rank). Vectors are freed when garbage-collected, which CPython's
reference counting does at the same point on every rank of an SPMD program. A
vector caught in a reference cycle (a traceback kept after an exception, say) is
freed whenever the cycle collector runs, which may differ by rank; vector memory
then differs by rank, which checked mode reports as a handle that differs. Calling
``gc.collect()`` on every rank at the same point frees such vectors alike.
Errors (an index out of range, lengths that do not match) raise
:class:`datamotion.Error` on every rank with the same code and message.

The library is started on first use (MPI stays mpi4py's) and stopped inside
``MPI_Finalize`` (which every rank enters), never by an exit handler that could run
on one rank alone.

When ranks disagree (see docs/cvl.md, "When ranks disagree"): every call carries
the arguments that must agree (lengths, indices, scalars, handles, the number of
calls made). Permutations, unsegmented reductions, ``extract`` and ``pack``
compare them in the exchange they make anyway and raise :class:`datamotion.Error`
``DM_ERR_MISMATCH`` on every rank. In checked mode (``DATAMOTION_CHECK=1``) every
call compares them first, and ``from_numpy`` also compares a hash of the array;
otherwise local operations given different lengths compute what each rank's
arguments say.

Segmented forms: ``scan``, ``reduce``, ``permute``, ``bpermute``, ``pack``,
``rank``, ``distribute`` (one value per segment) and ``extract``/``replace``
(one position per segment) accept ``segments=``; ``index`` has the unsegmented
form only.
"""

from __future__ import annotations

import numbers
from typing import Optional, Sequence, Union

import numpy as np

from ._errors import DM_ERR_ARG, DM_ERR_TYPE, Error
from ._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked

__all__ = [
    "Vector", "Segments", "scan", "reduce", "permute", "bpermute", "pack", "index", "rank", "distribute",
    "extract", "replace", "select",
]

_ERR_ARG, _ERR_TYPE = DM_ERR_ARG, DM_ERR_TYPE
_KINDS = {np.dtype(np.int32): "z", np.dtype(np.float64): "d", np.dtype(np.bool_): "b"}
_DTYPES = {k: d for d, k in _KINDS.items()}
_OPS = {"add": "add", "mul": "mul", "min": "min", "max": "max", "and": "and", "or": "ior", "xor": "xor"}
_OP_KINDS = {"add": "zd", "mul": "zd", "min": "zd", "max": "zd", "and": "zb", "ior": "zb", "xor": "zb"}


def _start() -> int:
    """Starts CVL if it is not running (collective on COMM_WORLD); returns its generation.
    It stops inside MPI_Finalize (collective), not at exit on one rank."""
    generation = _core.cvl_generation()
    if generation:
        return generation
    return _core.cvl_init()


def _dtype_of_scalar(value) -> np.dtype:
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, numbers.Integral):
        return np.dtype(np.int32)
    if isinstance(value, numbers.Real):
        return np.dtype(np.float64)
    raise Error(_ERR_TYPE, f"a CVL scalar is a bool, an int or a float, not {type(value).__name__}")


def _as_vector(value, dtype=None) -> "Vector":
    """A Vector as is; anything else through NumPy."""
    if isinstance(value, Vector):
        return value
    return Vector.from_numpy(np.asarray(value, dtype=dtype))


class Vector:
    """A distributed CVL vector of int32, float64 or bool elements.

    Made by :meth:`from_numpy` (every rank passes the same whole array) or by the
    functions of this module; read back with :meth:`to_numpy` (every rank gets the
    whole array). Rank r holds a block of consecutive elements, as CVL places them.

    Operators work elementwise like NumPy's on 1-d arrays of the same length, or
    with a Python scalar: ``+ - *`` (int32 wraps around), ``/`` (always float64),
    ``< <= > >= == !=`` (bool), ``& | ^ ~`` (bool: logical; int32: bitwise) and
    unary ``-``. An int32 operand meets a float64 one as float64; bool meets a
    number as int32. ``v[i]`` reads one element (negative i counts from the end)
    and ``v[i] = x`` writes one.
    """

    __slots__ = ("_handle", "_n", "_kind", "_generation", "__weakref__")

    def __init__(self, n: int, dtype=np.float64):
        """An uninitialised vector of ``n`` elements of ``dtype`` (int32, float64 or bool).

        Collective in CVL's sense: every rank creates it, in the same order, so that
        the ranks' vector memory stays the same. It never waits for the other ranks
        (memory grows locally); a vector created on some ranks only is reported as
        ``DM_ERR_MISMATCH`` on every rank by the next call that compares arguments
        (the next permutation, reduction, ``extract`` or ``pack``; in checked mode
        the next call of any kind)."""
        dt = np.dtype(dtype)
        if dt not in _KINDS:
            raise Error(_ERR_TYPE, f"CVL vectors hold int32, float64 or bool elements, not {dt}")
        n = int(n)
        if n < 0 or n > np.iinfo(np.int32).max:
            raise Error(_ERR_ARG, f"vector length {n} is outside [0, 2^31)")
        self._handle = 0
        self._generation = _start()
        self._n = n
        self._kind = _KINDS[dt]
        self._handle = _core.cvl_alloc(_core.cvl_size(self._kind, n))

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", 0), 0
        if handle:
            try:
                _core.cvl_free(handle, self._generation)
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass

    @classmethod
    def from_numpy(cls, array) -> "Vector":
        """Local. A vector holding the 1-d ``array`` (the same on every rank; in
        checked mode its length and a hash of its contents are compared across ranks,
        ``DM_ERR_MISMATCH`` on every rank if they differ).

        Integer arrays become int32 (values must fit), floating ones float64,
        bool stays bool.
        """
        a = np.asarray(array)
        if a.ndim != 1:
            raise Error(_ERR_ARG, f"a CVL vector is 1-d; got an array of shape {a.shape}")
        if a.dtype == np.bool_:
            dt = np.dtype(np.bool_)
        elif np.issubdtype(a.dtype, np.integer):
            dt = np.dtype(np.int32)
            if a.size and (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
                raise Error(_ERR_ARG, "integer values do not fit in int32")
        elif np.issubdtype(a.dtype, np.floating):
            dt = np.dtype(np.float64)
        else:
            raise Error(_ERR_TYPE, f"CVL vectors hold int32, float64 or bool elements, not {a.dtype}")
        a = np.ascontiguousarray(a, dtype=dt)
        v = cls(a.size, dt)
        try:
            _core.cvl_c2v(v._handle, a)
        except BaseException:
            # Free now, at the same point on every rank: the traceback would keep the
            # vector alive until a garbage collection whose timing may differ by rank.
            v.__del__()
            raise
        return v

    def to_numpy(self) -> np.ndarray:
        """Collective. The whole vector as a new NumPy array, on every rank."""
        out = np.empty(self._n, dtype=self.dtype)
        _core.cvl_v2c(out, self._handle)
        return out

    @property
    def dtype(self) -> np.dtype:
        """The element type: int32, float64 or bool."""
        return _DTYPES[self._kind]

    @property
    def size(self) -> int:
        """The number of elements (also ``len(v)``)."""
        return self._n

    def __len__(self):
        return self._n

    def __repr__(self):
        return f"Vector(n={self._n}, dtype={self.dtype.name})"

    def __bool__(self):
        raise Error(_ERR_TYPE, "the truth value of a Vector is ambiguous: use reduce(v, 'and') or 'or'")

    def copy(self) -> "Vector":
        """Local. A new vector with the same elements."""
        d = Vector(self._n, self.dtype)
        _core.cvl_unary(f"cpy_wu{self._kind}", d._handle, self._handle, self._n)
        return d

    def astype(self, dtype) -> "Vector":
        """Local. The elements converted to ``dtype`` (float to int truncates;
        nonzero is true); a copy even if the type is the same."""
        dt = np.dtype(dtype)
        if dt not in _KINDS:
            raise Error(_ERR_TYPE, f"CVL vectors hold int32, float64 or bool elements, not {dt}")
        to, src = _KINDS[dt], self
        if to == self._kind:
            return self.copy()
        if self._kind == "b" and to == "d":
            src = self.astype(np.int32)
        elif self._kind == "d" and to == "b":
            return self != 0.0
        name = {"z": {"d": "int_wud", "b": "int_wub"}, "d": {"z": "dbl_wuz"}, "b": {"z": "boo_wuz"}}[to][src._kind]
        d = Vector(self._n, dt)
        _core.cvl_unary(name, d._handle, src._handle, self._n)
        return d

    def sum(self):
        """Collective. The sum of the elements (``reduce(v, "add")``)."""
        return reduce(self, "add")

    def min(self):
        """Collective. The smallest element (``reduce(v, "min")``)."""
        return reduce(self, "min")

    def max(self):
        """Collective. The largest element (``reduce(v, "max")``)."""
        return reduce(self, "max")

    def __getitem__(self, i):
        return extract(self, i)

    def __setitem__(self, i, value):
        _core.cvl_replace(self._kind, self._handle, _position(self, i), _scalar_for(self._kind, value), self._n)

    # ---- elementwise operators
    def _binary(self, other, op: str, reflected: bool = False, kinds: str = "zd", result=None):
        a, b = _operands(self, other, kinds)
        if reflected:
            a, b = b, a
        d = Vector(self._n, result or a.dtype)
        _core.cvl_binary(f"{op}_wu{a._kind}", d._handle, a._handle, b._handle, self._n)
        return d

    def __add__(self, other):
        return self._binary(other, "add")

    def __radd__(self, other):
        return self._binary(other, "add", True)

    def __sub__(self, other):
        return self._binary(other, "sub")

    def __rsub__(self, other):
        return self._binary(other, "sub", True)

    def __mul__(self, other):
        return self._binary(other, "mul")

    def __rmul__(self, other):
        return self._binary(other, "mul", True)

    def __truediv__(self, other):
        return self._binary(other, "div", kinds="d")

    def __rtruediv__(self, other):
        return self._binary(other, "div", True, kinds="d")

    def __neg__(self):
        return self._binary(0, "sub", True)

    def __lt__(self, other):
        return self._binary(other, "les", result=np.bool_)

    def __le__(self, other):
        return self._binary(other, "leq", result=np.bool_)

    def __gt__(self, other):
        return self._binary(other, "grt", result=np.bool_)

    def __ge__(self, other):
        return self._binary(other, "geq", result=np.bool_)

    def __eq__(self, other):
        kinds = "b" if self._kind == "b" and _is_bool(other) else "zd"
        return self._binary(other, "eql", kinds=kinds, result=np.bool_)

    def __ne__(self, other):
        kinds = "b" if self._kind == "b" and _is_bool(other) else "zd"
        return self._binary(other, "neq", kinds=kinds, result=np.bool_)

    __hash__ = None

    def _logical(self, other, op):
        kinds = "b" if self._kind == "b" and _is_bool(other) else "z"
        return self._binary(other, op, kinds=kinds)

    def __and__(self, other):
        return self._logical(other, "and")

    __rand__ = __and__

    def __or__(self, other):
        return self._logical(other, "ior")

    __ror__ = __or__

    def __xor__(self, other):
        return self._logical(other, "xor")

    __rxor__ = __xor__

    def __invert__(self):
        if self._kind == "d":
            raise Error(_ERR_TYPE, "~ needs a bool or int32 vector")
        d = Vector(self._n, self.dtype)
        _core.cvl_unary(f"not_wu{self._kind}", d._handle, self._handle, self._n)
        return d


def _is_bool(x) -> bool:
    return x.dtype == np.bool_ if isinstance(x, Vector) else isinstance(x, (bool, np.bool_))


def _scalar_for(kind: str, value) -> float:
    if kind == "z":
        value = int(value)
        if not np.iinfo(np.int32).min <= value <= np.iinfo(np.int32).max:
            raise Error(_ERR_ARG, f"{value} does not fit in int32")
        return float(value)
    return float(bool(value)) if kind == "b" else float(value)


def _operands(a: Vector, other, kinds: str):
    """Both operands as vectors of one kind from `kinds` (the first that fits both)."""
    if isinstance(other, Vector):
        if len(other) != len(a):
            raise Error(_ERR_ARG, f"operands have lengths {len(a)} and {len(other)}")
        b = other
        other_kind = other._kind
    else:
        other_kind = _KINDS[_dtype_of_scalar(other)]
        b = None
    both = {a._kind, other_kind}
    if both <= set(kinds):
        kind = a._kind if a._kind == other_kind else ("d" if "d" in both else "z")
    else:
        kind = "d" if "d" in both and "d" in kinds else ("z" if "z" in kinds else kinds[0])
        if "d" in both and kind != "d":
            raise Error(_ERR_TYPE, "this operation needs bool or int32 operands")
    dt = _DTYPES[kind]
    a = a if a._kind == kind else a.astype(dt)
    if b is None:
        b = distribute(_DTYPES[kind].type(_scalar_for(kind, other)).item(), len(a), dt)
    elif b._kind != kind:
        b = b.astype(dt)
    return a, b


class Segments:
    """A CVL segment descriptor: n elements in m consecutive segments.

    ``Segments(lengths)`` (collective) takes the m segment lengths (a list or a
    1-d integer array, the same on every rank; zeros are allowed).
    """

    __slots__ = ("_handle", "_n", "_m", "_lengths", "_generation", "__weakref__")

    def __init__(self, lengths: Union[Sequence[int], np.ndarray]):
        """Collective. A descriptor for segments of the given lengths."""
        self._handle = 0
        lengths = np.asarray(lengths)
        if lengths.ndim != 1 or not (lengths.size == 0 or np.issubdtype(lengths.dtype, np.integer)):
            raise Error(_ERR_ARG, "segment lengths are a 1-d sequence of integers")
        if lengths.size and lengths.min() < 0:
            raise Error(_ERR_ARG, f"segment length {int(lengths.min())} is negative")
        total = int(lengths.astype(np.int64).sum())
        if total > np.iinfo(np.int32).max:
            raise Error(_ERR_ARG, f"segment lengths sum to {total}, more than 2^31-1")
        self._lengths = lengths.astype(np.int32)
        self._lengths.flags.writeable = False
        self._n, self._m = total, int(lengths.size)
        lv = Vector.from_numpy(self._lengths)
        self._generation = lv._generation
        self._handle = _core.cvl_alloc(_core.cvl_segdes_size(self._n, self._m))
        _core.cvl_make_segdes(self._handle, lv._handle, self._n, self._m)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", 0), 0
        if handle:
            try:
                _core.cvl_free(handle, self._generation)
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass

    @property
    def lengths(self) -> np.ndarray:
        """The m segment lengths (read-only int32 array)."""
        return self._lengths

    @property
    def n(self) -> int:
        """The number of elements (the sum of the lengths)."""
        return self._n

    @property
    def m(self) -> int:
        """The number of segments."""
        return self._m

    def __repr__(self):
        return f"Segments(n={self._n}, m={self._m})"


def _check_segments(v: Vector, segments: Segments, what: str = "the vector") -> None:
    if not isinstance(segments, Segments):
        raise Error(_ERR_TYPE, "segments must be a datamotion.vector.Segments")
    if segments.n != len(v):
        raise Error(_ERR_ARG, f"the segments describe {segments.n} elements but {what} has {len(v)}")


def _op_name(v: Vector, op: str) -> str:
    if op not in _OPS:
        raise Error(_ERR_ARG, f"unknown operator {op!r}; one of {sorted(_OPS)}")
    name = _OPS[op]
    if v._kind not in _OP_KINDS[name]:
        raise Error(_ERR_TYPE, f"operator {op!r} does not apply to {v.dtype.name} vectors")
    return name


def _typed_vector(x, n: int, dtype, what: str) -> Vector:
    x = _as_vector(x)
    if x.dtype != dtype:
        raise Error(_ERR_TYPE, f"{what} must hold {np.dtype(dtype).name} values")
    if len(x) != n:
        raise Error(_ERR_ARG, f"{what} has {len(x)} elements, expected {n}")
    return x


def _int_vector(x, n: int, what: str) -> Vector:
    return _typed_vector(x, n, np.int32, what)


def _bool_vector(x, n: int, what: str) -> Vector:
    return _typed_vector(x, n, np.bool_, what)


def scan(v: Vector, op: str = "add", segments: Optional[Segments] = None) -> Vector:
    """Collective. Exclusive scan: ``d[i] = v[0] op ... op v[i-1]`` (per segment if
    ``segments`` is given; each segment starts with the identity).

    ``op``: "add", "mul", "min", "max" (int32, float64) or "and", "or", "xor"
    (bool, int32). Identities: 0, 1, the type's max, its min, true / all bits,
    false / 0. Compare ``np.cumsum(v) - v`` for "add".
    """
    v = _as_vector(v)
    name, n = _op_name(v, op), len(v)
    d = Vector(n, v.dtype)
    if segments is None:
        _core.cvl_unary(f"{name}_su{v._kind}", d._handle, v._handle, n)
    else:
        _check_segments(v, segments)
        _core.cvl_seg_unary(f"{name}_se{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


def reduce(v: Vector, op: str = "add", segments: Optional[Segments] = None):
    """Collective. Combines the elements with ``op`` (see :func:`scan`): a Python
    scalar on every rank, or with ``segments`` a Vector of one value per segment
    (the identity for an empty segment). The identity for an empty vector.
    """
    v = _as_vector(v)
    name, n = _op_name(v, op), len(v)
    if segments is None:
        return _core.cvl_reduce(f"{name}_ru{v._kind}", v._handle, n)
    _check_segments(v, segments)
    d = Vector(segments.m, v.dtype)
    _core.cvl_seg_unary(f"{name}_re{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


def permute(v: Vector, index, segments: Optional[Segments] = None) -> Vector:
    """Collective. Send permutation: ``d[index[k]] = v[k]`` (``d[index] = v`` in
    NumPy). With ``segments`` the indices are relative to each segment's start.

    ``index`` is an int32 Vector (or array) of ``len(v)`` values in range; a
    value out of range raises datamotion.Error on every rank. Positions no index
    names are 0 (false); with repeated indices the highest k wins.
    """
    v = _as_vector(v)
    n = len(v)
    index = _int_vector(index, n, "the index")
    d = distribute(_DTYPES[v._kind].type(0).item(), n, v.dtype)
    if segments is None:
        _core.cvl_permute(f"smp_pu{v._kind}", d._handle, v._handle, index._handle, n)
    else:
        _check_segments(v, segments)
        _core.cvl_seg_binary(f"smp_pe{v._kind}", d._handle, v._handle, index._handle, segments._handle, n,
                             segments.m)
    return d


def bpermute(v: Vector, index, segments: Optional[Segments] = None,
             index_segments: Optional[Segments] = None) -> Vector:
    """Collective. Back permutation (gather): ``d[k] = v[index[k]]`` (``v[index]``
    in NumPy); the result has ``len(index)`` elements.

    With ``segments`` (of ``v``) and ``index_segments`` (of ``index``, the same
    number of segments; default ``segments``), ``index[k]`` is relative to the
    start of the source segment with the same number as k's segment.
    """
    v = _as_vector(v)
    index = _as_vector(index)
    index = _int_vector(index, len(index), "the index")
    nd = len(index)
    d = Vector(nd, v.dtype)
    if segments is None:
        _core.cvl_two_len(f"bck_pu{v._kind}", d._handle, v._handle, index._handle, len(v), nd)
    else:
        _check_segments(v, segments)
        index_segments = segments if index_segments is None else index_segments
        _check_segments(index, index_segments, "the index")
        _core.cvl_seg_two(f"bck_pe{v._kind}", d._handle, v._handle, index._handle, segments._handle, len(v),
                          segments.m, index_segments._handle, nd, index_segments.m)
    return d


def pack(v: Vector, flags, segments: Optional[Segments] = None):
    """Collective. The elements whose flag is true, in order (``v[flags]``).

    ``flags`` is a bool Vector (or array) of ``len(v)``. With ``segments`` it
    packs within each segment and returns ``(vector, Segments)`` of the kept
    elements per segment; otherwise just the vector.
    """
    v = _as_vector(v)
    n = len(v)
    flags = _bool_vector(flags, n, "the flags")
    if segments is None:
        count = _core.cvl_count(flags._handle, n)
        d = Vector(count, v.dtype)
        _core.cvl_two_len(f"pk2_lu{v._kind}", d._handle, v._handle, flags._handle, n, count)
        return d
    _check_segments(v, segments)
    counts = Vector(segments.m, np.int32)
    _core.cvl_seg_unary("pk1_lev", counts._handle, flags._handle, segments._handle, n, segments.m)
    out_segments = Segments(counts.to_numpy())
    d = Vector(out_segments.n, v.dtype)
    _core.cvl_seg_two(f"pk2_le{v._kind}", d._handle, v._handle, flags._handle, segments._handle, n, segments.m,
                      out_segments._handle, out_segments.n, out_segments.m)
    return d, out_segments


def index(n: int, init: int = 0, stride: int = 1) -> Vector:
    """Local. The int32 vector ``init + k * stride`` for k in [0, n)
    (``np.arange(init, init + n * stride, stride)``)."""
    d = Vector(n, np.int32)
    _core.cvl_index(d._handle, int(init), int(stride), len(d))
    return d


def rank(v: Vector, descending: bool = False, segments: Optional[Segments] = None) -> Vector:
    """Collective. ``d[k]`` = the position of ``v[k]`` in a stable sort (ascending,
    or descending), so ``permute(v, rank(v))`` sorts v; with ``segments`` within
    each segment. int32 or float64 vectors (NaN sorts above every number).
    Compare ``np.argsort(np.argsort(v, kind="stable"))``."""
    v = _as_vector(v)
    if v._kind == "b":
        raise Error(_ERR_TYPE, "rank needs an int32 or float64 vector")
    n = len(v)
    d = Vector(n, np.int32)
    prefix = "rkd" if descending else "rku"
    if segments is None:
        _core.cvl_unary(f"{prefix}_lu{v._kind}", d._handle, v._handle, n)
    else:
        _check_segments(v, segments)
        _core.cvl_seg_unary(f"{prefix}_le{v._kind}", d._handle, v._handle, segments._handle, n, segments.m)
    return d


def distribute(value, n: Union[int, Segments], dtype=None) -> Vector:
    """A vector of ``n`` copies of the scalar ``value`` (local; ``np.full``); the
    dtype follows the value (bool, int -> int32, float -> float64) unless given.

    Segmented (collective): ``distribute(values, segments)`` with a Vector of one
    value per segment fills every element of segment j with ``values[j]``.
    """
    if isinstance(n, Segments):
        values = _as_vector(value, dtype)
        if len(values) != n.m:
            raise Error(_ERR_ARG, f"{len(values)} values for {n.m} segments")
        d = Vector(n.n, values.dtype)
        _core.cvl_seg_unary(f"dis_ve{values._kind}", d._handle, values._handle, n._handle, n.n, n.m)
        return d
    dt = _dtype_of_scalar(value) if dtype is None else np.dtype(dtype)
    d = Vector(n, dt)
    _core.cvl_distribute(d._kind, d._handle, _scalar_for(d._kind, value), len(d))
    return d


def _position(v: Vector, i) -> int:
    if not isinstance(i, numbers.Integral):
        raise Error(_ERR_TYPE, "a vector position is an integer")
    i = int(i)
    return i + len(v) if -len(v) <= i < 0 else i


def extract(v: Vector, i, segments: Optional[Segments] = None):
    """Collective. Element ``i`` of ``v`` as a Python scalar on every rank
    (negative i counts from the end; out of range raises datamotion.Error).

    With ``segments``, ``i`` is a Vector of one position per segment (relative
    to its start) and the result a Vector of one element per segment.
    """
    v = _as_vector(v)
    if segments is None:
        return _core.cvl_extract(v._kind, v._handle, _position(v, i), len(v))
    _check_segments(v, segments)
    i = _int_vector(i, segments.m, "the positions")
    d = Vector(segments.m, v.dtype)
    _core.cvl_seg_binary(f"ext_ve{v._kind}", d._handle, v._handle, i._handle, segments._handle, len(v), segments.m)
    return d


def replace(v: Vector, i, value, segments: Optional[Segments] = None) -> Vector:
    """A copy of ``v`` with element ``i`` set to ``value`` (local; ``v[i] = value``
    changes v itself).

    With ``segments`` (collective), ``i`` and ``value`` are Vectors of one
    position (relative to the segment start) and one value per segment.
    """
    v = _as_vector(v)
    d = v.copy()
    if segments is None:
        d[i] = value
        return d
    _check_segments(v, segments)
    i = _int_vector(i, segments.m, "the positions")
    value = _as_vector(value, v.dtype)
    if value.dtype != v.dtype or len(value) != segments.m:
        raise Error(_ERR_ARG, f"the values must be {segments.m} elements of {v.dtype.name}")
    _core.cvl_seg_binary(f"rep_ve{v._kind}", d._handle, i._handle, value._handle, segments._handle, len(v),
                         segments.m)
    return d


def select(flags, a, b) -> Vector:
    """Local. ``flags[k] ? a[k] : b[k]`` (``np.where``); ``a`` and ``b`` are Vectors
    of one type or scalars."""
    flags = _as_vector(flags)
    if flags.dtype != np.bool_:
        raise Error(_ERR_TYPE, "the flags must hold bool values")
    n = len(flags)
    if not isinstance(a, Vector):
        a = distribute(a, n, b.dtype if isinstance(b, Vector) else None)
    a, b = _operands(a, b, "zdb")
    if len(a) != n:
        raise Error(_ERR_ARG, f"the flags have {n} elements, the values {len(a)}")
    d = Vector(n, a.dtype)
    _core.cvl_select(f"sel_wu{a._kind}", d._handle, flags._handle, a._handle, b._handle, n)
    return d
