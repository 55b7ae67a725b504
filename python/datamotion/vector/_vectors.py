"""CVL vectors and segment descriptors: :class:`Vector` (its memory, conversions and
elementwise operators) and :class:`Segments`, with the checks every operation of
:mod:`datamotion.vector` shares."""

from __future__ import annotations

import numbers
from typing import Optional, Sequence, Union

import numpy as np

from .._errors import DM_ERR_ARG, DM_ERR_TYPE, Error
from .._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked
from .._calls import collective

from mpi4py import MPI  # noqa: E402 - after _mpi, which settles MPI's thread level

ERR_ARG, ERR_TYPE = DM_ERR_ARG, DM_ERR_TYPE
_INT32_MIN, _INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)  # np.iinfo costs µs per call
_KINDS = {np.dtype(np.int32): "z", np.dtype(np.float64): "d", np.dtype(np.bool_): "b"}
_DTYPES = {k: d for d, k in _KINDS.items()}
# The kind of a result's dtype or scalar type, found without np.dtype() on the call path.
_RESULT_KINDS = {**_KINDS, np.int32: "z", np.float64: "d", np.bool_: "b"}
# The Python scalar type that is of each kind already.
_SCALAR_TYPES = {"z": int, "d": float, "b": bool}
_OPS = {"add": "add", "mul": "mul", "min": "min", "max": "max", "and": "and", "or": "ior", "xor": "xor"}
_OP_KINDS = {"add": "zd", "mul": "zd", "min": "zd", "max": "zd", "and": "zb", "ior": "zb", "xor": "zb"}


def _kind_of(dtype) -> str:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in _KINDS:
        raise Error(ERR_TYPE, f"CVL vectors hold int32, float64 or bool elements, not {dtype if dt is None else dt}")
    return _KINDS[dt]


def space_of(comm):
    """The vector space of ``comm`` (default MPI.COMM_WORLD); collective at its first use there."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if not isinstance(comm, MPI.Comm):
        raise Error(ERR_TYPE, f"comm must be an mpi4py communicator, not {type(comm).__name__}")
    if comm == MPI.COMM_NULL:
        raise Error(ERR_ARG, "vector: the communicator is MPI.COMM_NULL")
    return comm, _core.VectorSpace.of(comm)


def describe(comm) -> str:
    name = comm.Get_name()
    return f"communicator {name!r}" if name else "an unnamed communicator"


def same_space(first, *others) -> None:
    """Raises DM_ERR_ARG unless the vectors and segment descriptors share one vector space."""
    for x in others:
        if x._space is not first._space and x._space != first._space:
            a, b = describe(first._comm), describe(x._comm)
            if a == b:
                a, b = a + " (one)", b + " (another)"
            raise Error(ERR_ARG, f"the operands live on different communicators: {a} and {b}; "
                                  "an operation takes vectors of one communicator")


def _dtype_of_scalar(value) -> np.dtype:
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, numbers.Integral):
        return np.dtype(np.int32)
    if isinstance(value, numbers.Real):
        return np.dtype(np.float64)
    raise Error(ERR_TYPE, f"a CVL scalar is a bool, an int or a float, not {type(value).__name__}")


def as_vector(value, dtype=None, like=None) -> "Vector":
    """A Vector as is (on ``like``'s communicator, else an error); anything else through
    NumPy, on ``like``'s communicator (default MPI.COMM_WORLD)."""
    if isinstance(value, Vector):
        if like is not None:
            same_space(like, value)
        return value
    return Vector.from_numpy(np.asarray(value, dtype=dtype), comm=None if like is None else like._comm)


class Vector:
    """A distributed CVL vector of int32, float64 or bool elements.

    Made by the constructor (zero-filled), :meth:`from_numpy` (every rank passes the
    same whole array), :meth:`from_distarray` (sharing a DistArray's memory) or the
    functions of :mod:`datamotion.vector`; read back with :meth:`to_numpy` (every rank gets the
    whole array) or, this rank's block only, :attr:`local`. Rank r of ``comm`` holds
    the ceil(n / p) consecutive elements from r * ceil(n / p) (fewer or none on the
    trailing ranks), as CVL places them.

    Operators work elementwise like NumPy's on 1-d arrays of the same length, or
    with a Python scalar: ``+ - *`` (int32 wraps around), ``/`` (always float64),
    ``< <= > >= == !=`` (bool), ``& | ^ ~`` (bool: logical; int32: bitwise) and
    unary ``-``. An int32 operand meets a float64 one as float64; bool meets a
    number as int32. ``v[i]`` reads one element (negative i counts from the end)
    and ``v[i] = x`` writes one.
    """

    __slots__ = ("_space", "_comm", "_handle", "_n", "_kind", "_base", "__weakref__")

    def __init__(self, n: int, dtype=np.float64, comm: Optional[MPI.Comm] = None):
        """A zero-filled vector of ``n`` elements of ``dtype`` (int32, float64 or bool)
        over the ranks of ``comm`` (default ``MPI.COMM_WORLD``).

        Local, made by every rank of ``comm`` in the same order (collective at the
        communicator's first vector): the ranks then agree on its handle, which later
        calls carry and, in checked mode, compare."""
        kind = _kind_of(dtype)
        comm, space = space_of(comm)
        self._init(space, comm, n, kind)

    def _init(self, space, comm, n, kind, base=None, zero=True, result=False) -> None:
        self._handle = 0
        self._space, self._comm, self._kind, self._base = space, comm, kind, base
        n = int(n)
        if n < 0 or n > _INT32_MAX:
            raise Error(ERR_ARG, f"vector length {n} is outside [0, 2^31)")
        self._n = n
        if base is None:
            # A constructor's length is compared by the next collective call; a result's
            # follows from the operation's (compared) arguments.
            self._handle = space.allocate(kind, n, zero, not result)
        else:
            self._handle = space.borrow(kind, n, base)

    @classmethod
    def _on(cls, like, n: int, dtype, zero: bool = False) -> "Vector":
        """A new vector on the communicator of ``like`` (a Vector or Segments), for a
        result the next call writes completely (uninitialised unless ``zero``)."""
        v = cls.__new__(cls)
        kind = _RESULT_KINDS.get(dtype)
        v._init(like._space, like._comm, n, kind or _kind_of(dtype), zero=zero, result=True)
        return v

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", 0), 0
        if handle:
            try:
                self._space.release(handle)
            except Exception:  # noqa: BLE001 - never raise from a finaliser
                pass

    @classmethod
    def from_numpy(cls, array, comm: Optional[MPI.Comm] = None) -> "Vector":
        """Local. A vector over ``comm`` (default ``MPI.COMM_WORLD``) holding the 1-d
        ``array``, the same on every rank (in checked mode its length and a hash of its
        contents are compared across ranks, ``DM_ERR_MISMATCH`` on every rank if they
        differ).

        Integer arrays become int32 (values must fit), floating ones float64,
        bool stays bool.
        """
        a = np.asarray(array)
        if a.ndim != 1:
            raise Error(ERR_ARG, f"a CVL vector is 1-d; got an array of shape {a.shape}")
        if a.dtype == np.bool_:
            dt = np.dtype(np.bool_)
        elif np.issubdtype(a.dtype, np.integer):
            dt = np.dtype(np.int32)
            if a.size and (a.min() < _INT32_MIN or a.max() > _INT32_MAX):
                raise Error(ERR_ARG, "integer values do not fit in int32")
        elif np.issubdtype(a.dtype, np.floating):
            dt = np.dtype(np.float64)
        else:
            raise Error(ERR_TYPE, f"CVL vectors hold int32, float64 or bool elements, not {a.dtype}")
        a = np.ascontiguousarray(a, dtype=dt)
        v = cls(a.size, dt, comm)
        v._space.c2v(v._handle, a)
        return v

    @classmethod
    def from_distarray(cls, array) -> "Vector":
        """Local. A vector sharing the memory of ``array``, a 1-d
        :class:`datamotion.DistArray` of int32, float64 or bool whose axis is
        distributed ``Block()`` without ghosts: a write through either is seen by the
        other, and the vector keeps the array alive.

        The vector's communicator (``v.comm``) is the array's axis communicator
        (``array.grid.axis_comm(0)``), whose rank r holds grid coordinate r and so
        block r, whatever the grid's rank order; make the vectors it meets on that
        communicator (``comm=v.comm``). Any other layout raises
        :class:`datamotion.Error` (``DM_ERR_ARG`` or ``DM_ERR_TYPE``) naming what differs.
        """
        from ..array import DistArray  # the array module imports nothing of this one; no cycle at import
        from ..layout import Block

        if not isinstance(array, DistArray):
            raise Error(ERR_TYPE, f"from_distarray takes a datamotion.DistArray, not {type(array).__name__}")
        if array.ndim != 1:
            raise Error(ERR_ARG, f"from_distarray: a vector is 1-d; the array has {array.ndim} axes "
                                  f"(shape {array.shape})")
        if array.dtype not in _KINDS:
            raise Error(ERR_TYPE, f"from_distarray: CVL vectors hold int32, float64 or bool elements, "
                                   f"the array holds {array.dtype}")
        if array.ghost != (0,):
            raise Error(ERR_ARG, f"from_distarray: the array has ghost width {array.ghost[0]}; a vector "
                                  "borrows an array without ghost regions")
        n, p = array.shape[0], array.grid.size
        axis = array.axis_map(0)
        rule = _core.BlockRule(n, p)  # the library's block rule, which the vector's ranks follow
        for c in range(p):
            begin, count = rule.begin(c), rule.count(c)
            # Local indices keep global order: first and last in place, all between are.
            ok = axis.extent(c) == count and (count == 0 or (axis.global_index(c, 0) == begin
                                                             and axis.global_index(c, count - 1) == begin + count - 1))
            if not ok:
                first = f" from index {axis.global_index(c, 0)}" if axis.extent(c) else ""
                raise Error(ERR_ARG, f"from_distarray: the array's axis is distributed {array.dist[0]!r}, "
                                      f"coordinate {c} holding {axis.extent(c)} element(s){first}; a vector "
                                      f"needs {Block()!r} placement: coordinate {c} holding {count} consecutive "
                                      f"element(s) from index {begin}")
        comm, space = space_of(array.grid.axis_comm(0))
        v = cls.__new__(cls)
        v._init(space, comm, n, _KINDS[array.dtype], base=array.local)
        v._base = array  # keeps the storage alive (array.local views it without owning it alone)
        return v

    @collective("Vector.to_numpy")
    def to_numpy(self) -> np.ndarray:
        """Collective. The whole vector as a new NumPy array, on every rank."""
        out = np.empty(self._n, dtype=self.dtype)
        self._space.v2c(out, self._handle)
        return out

    @property
    def local(self) -> np.ndarray:
        """Local. A writable NumPy view (no copy) of this rank's elements: the
        ``len(v.local)`` elements from global index ``v.local_offset``. It keeps the
        vector alive."""
        return self._space.local(self._kind, self._handle, self._n, self)

    @property
    def local_offset(self) -> int:
        """Local. The global index of this rank's first element."""
        return self._space.begin(self._n)

    @property
    def comm(self) -> MPI.Comm:
        """The communicator whose ranks hold the vector."""
        return self._comm

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
        raise Error(ERR_TYPE, "the truth value of a Vector is ambiguous: use reduce(v, 'and') or 'or'")

    def copy(self) -> "Vector":
        """Local. A new vector with the same elements (on the same communicator)."""
        d = Vector._on(self, self._n, self.dtype)
        self._space.unary(f"cpy_wu{self._kind}", d._handle, self._handle, self._n)
        return d

    def astype(self, dtype) -> "Vector":
        """Local. The elements converted to ``dtype`` (float to int truncates;
        nonzero is true); a copy even if the type is the same."""
        to, src = _kind_of(dtype), self
        if to == self._kind:
            return self.copy()
        if self._kind == "b" and to == "d":
            src = self.astype(np.int32)
        elif self._kind == "d" and to == "b":
            return self != 0.0
        name = {"z": {"d": "int_wud", "b": "int_wub"}, "d": {"z": "dbl_wuz"}, "b": {"z": "boo_wuz"}}[to][src._kind]
        d = Vector._on(self, self._n, _DTYPES[to])
        self._space.unary(name, d._handle, src._handle, self._n)
        return d

    @collective("Vector.sum")
    def sum(self):
        """Collective. The sum of the elements (``reduce(v, "add")``)."""
        return reduce_all(self, "add")

    @collective("Vector.min")
    def min(self):
        """Collective. The smallest element (``reduce(v, "min")``)."""
        return reduce_all(self, "min")

    @collective("Vector.max")
    def max(self):
        """Collective. The largest element (``reduce(v, "max")``)."""
        return reduce_all(self, "max")

    @collective("Vector.__getitem__")
    def __getitem__(self, i):
        return extract_one(self, i)

    def __setitem__(self, i, value):
        self._space.replace(self._kind, self._handle, _position(self, i), _scalar_for(self._kind, value), self._n)

    # ---- elementwise operators
    def _binary(self, other, op: str, reflected: bool = False, kinds: str = "zd", result=None):
        a, b = operands(self, other, kinds, scalar=True)
        d = Vector._on(self, self._n, result or a.dtype)
        if type(b) is float:  # one pass, no vector of copies of the scalar
            self._space.binary_scalar(f"{op}_wu{a._kind}", d._handle, a._handle, b, reflected, self._n)
            return d
        if reflected:
            a, b = b, a
        self._space.binary(f"{op}_wu{a._kind}", d._handle, a._handle, b._handle, self._n)
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
        if self._kind == "b":
            raise Error(ERR_TYPE, "unary - needs an int32 or float64 vector")
        d = Vector._on(self, self._n, self.dtype)
        self._space.unary(f"neg_wu{self._kind}", d._handle, self._handle, self._n)
        return d

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
            raise Error(ERR_TYPE, "~ needs a bool or int32 vector")
        d = Vector._on(self, self._n, self.dtype)
        self._space.unary(f"not_wu{self._kind}", d._handle, self._handle, self._n)
        return d


def _is_bool(x) -> bool:
    return x.dtype == np.bool_ if isinstance(x, Vector) else isinstance(x, (bool, np.bool_))


def _scalar_for(kind: str, value) -> float:
    if kind == "z":
        value = int(value)
        if not _INT32_MIN <= value <= _INT32_MAX:
            raise Error(ERR_ARG, f"{value} does not fit in int32")
        return float(value)
    return float(bool(value)) if kind == "b" else float(value)


def operands(a: Vector, other, kinds: str, scalar: bool = False):
    """Both operands as vectors of one kind from `kinds` (the first that fits both); with
    `scalar`, a scalar `other` comes back as the float of its value in that kind."""
    # The common cases first, without the general rule's sets: a vector or a Python
    # scalar of the same kind.
    if (type(other) is Vector and other._kind == a._kind and a._kind in kinds and other._space is a._space
            and other._n == a._n):
        return a, other
    if scalar and type(other) is _SCALAR_TYPES.get(a._kind) and a._kind in kinds:
        return a, _scalar_for(a._kind, other)
    if isinstance(other, Vector):
        same_space(a, other)
        if len(other) != len(a):
            raise Error(ERR_ARG, f"operands have lengths {len(a)} and {len(other)}")
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
            raise Error(ERR_TYPE, "this operation needs bool or int32 operands")
    dt = _DTYPES[kind]
    a = a if a._kind == kind else a.astype(dt)
    if b is None:
        value = _scalar_for(kind, other)
        if scalar:
            return a, value
        b = full(_DTYPES[kind].type(value).item(), len(a), dt, a._comm)
    elif b._kind != kind:
        b = b.astype(dt)
    return a, b


class Segments:
    """A CVL segment descriptor: n elements in m consecutive segments.

    ``Segments(lengths, comm=None)`` (collective on ``comm``, default
    ``MPI.COMM_WORLD``) takes the m segment lengths (a list or a 1-d integer array,
    the same on every rank; zeros are allowed). It describes vectors of that
    communicator.
    """

    __slots__ = ("_space", "_comm", "_handle", "_n", "_m", "_lengths", "__weakref__")

    @collective("Segments")
    def __init__(self, lengths: Union[Sequence[int], np.ndarray], comm: Optional[MPI.Comm] = None):
        """Collective. A descriptor for segments of the given lengths."""
        self._handle = 0
        lengths = np.asarray(lengths)
        if lengths.ndim != 1 or not (lengths.size == 0 or np.issubdtype(lengths.dtype, np.integer)):
            raise Error(ERR_ARG, "segment lengths are a 1-d sequence of integers")
        if lengths.size and lengths.min() < 0:
            raise Error(ERR_ARG, f"segment length {int(lengths.min())} is negative")
        total = int(lengths.astype(np.int64).sum())
        if total > _INT32_MAX:
            raise Error(ERR_ARG, f"segment lengths sum to {total}, more than 2^31-1")
        self._lengths = lengths.astype(np.int32)
        self._lengths.flags.writeable = False
        self._n, self._m = total, int(lengths.size)
        lv = Vector.from_numpy(self._lengths, comm)
        self._space, self._comm = lv._space, lv._comm
        self._handle = self._space.allocate_segdes(self._n, self._m)
        self._space.make_segdes(self._handle, lv._handle, self._n, self._m)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", 0), 0
        if handle:
            try:
                self._space.release(handle)
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

    @property
    def comm(self) -> MPI.Comm:
        """The communicator of the vectors it describes."""
        return self._comm

    def __repr__(self):
        return f"Segments(n={self._n}, m={self._m})"


def check_segments(v: Vector, segments: Segments, what: str = "the vector") -> None:
    if not isinstance(segments, Segments):
        raise Error(ERR_TYPE, "segments must be a datamotion.vector.Segments")
    same_space(v, segments)
    if segments.n != len(v):
        raise Error(ERR_ARG, f"the segments describe {segments.n} elements but {what} has {len(v)}")


def op_name(v: Vector, op: str) -> str:
    if op not in _OPS:
        raise Error(ERR_ARG, f"unknown operator {op!r}; one of {sorted(_OPS)}")
    name = _OPS[op]
    if v._kind not in _OP_KINDS[name]:
        raise Error(ERR_TYPE, f"operator {op!r} does not apply to {v.dtype.name} vectors")
    return name


def _position(v: Vector, i) -> int:
    if not isinstance(i, numbers.Integral):
        raise Error(ERR_TYPE, "a vector position is an integer")
    i = int(i)
    return i + len(v) if -len(v) <= i < 0 else i


def reduce_all(v: Vector, op: str):
    """``op`` over every element of ``v``, a Python scalar on every rank (:func:`reduce`
    without segments)."""
    return v._space.reduce(f"{op_name(v, op)}_ru{v._kind}", v._handle, len(v))


def extract_one(v: Vector, i):
    """Element ``i`` of ``v``, a Python scalar on every rank (:func:`extract` without segments)."""
    return v._space.extract(v._kind, v._handle, _position(v, i), len(v))


def full(value, n: int, dtype, comm) -> Vector:
    """``n`` copies of the scalar ``value`` over ``comm`` (:func:`distribute` without
    segments); the dtype follows the value unless given."""
    dt = _dtype_of_scalar(value) if dtype is None else dtype
    d = Vector(n, dt, comm)
    d._space.distribute(d._kind, d._handle, _scalar_for(d._kind, value), len(d))
    return d
