"""CVL's vector operations from Python: distributed vectors, segment descriptors,
scans, reductions, permutations and packs, NumPy-like, on any communicator.

This is the C Vector Library (``cvl.h``, docs/cvl.md) behind a small Python
surface. A :class:`Vector` of n elements (int32, float64 or bool) is
block-distributed over the ranks of its communicator (``MPI.COMM_WORLD`` unless
``comm=`` says otherwise): rank r holds the b = ceil(n / p) consecutive elements
from r * b (trailing ranks fewer or none), which ``v.local`` views without a copy.
A :class:`Segments` descriptor splits such a vector into consecutive segments
(empty ones allowed)::

    import numpy as np
    from datamotion import vector as cv

    x = cv.Vector.from_numpy(np.arange(10.0))
    s = cv.Segments([3, 0, 7])
    cv.reduce(x, "add", segments=s).to_numpy()   # array([ 3.,  0., 42.])
    cv.scan(x * 2, "max").to_numpy()               # exclusive: first is -DBL_MAX
    ys = x[3]                                      # 3.0 on every rank
    x.local                                        # this rank's elements, writable

    half = MPI.COMM_WORLD.Split(MPI.COMM_WORLD.rank % 2)
    y = cv.index(7, comm=half)                     # a vector of the ranks of `half`

Every communicator has its own vector space (created at its first use there,
collectively, and freed with the communicator); the vectors of an operation must
share one, or :class:`datamotion.Error` (``DM_ERR_ARG``) names both communicators.
:meth:`Vector.from_distarray` makes a vector of a 1-d block-distributed
:class:`datamotion.DistArray` that shares the array's memory.

The programming model is CVL's hostless SPMD: every rank of the communicator makes
every call in the same order with the same arguments (``from_numpy`` takes the same
whole array on every rank; ``to_numpy`` and scalar results come back on every
rank). Vectors are freed when garbage-collected, on each rank whenever its collector
runs: a vector's handle is never reused, so ranks that free at different times still
agree on every later vector.
Errors (an index out of range, lengths that do not match) raise
:class:`datamotion.Error` on every rank with the same code and message.

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

from ._vectors import Segments, Vector
from ._operations import bpermute, distribute, extract, index, pack, permute, rank, reduce, replace, scan, select

__all__ = [
    "Vector", "Segments", "scan", "reduce", "permute", "bpermute", "pack", "index", "rank", "distribute",
    "extract", "replace", "select",
]
