"""Performance models fitted to benchmark timings.

Pure Python and NumPy: nothing here loads MPI, so measurements can be fitted
anywhere, e.g. on a laptop from the JSON document that ``datamotion bench``
wrote on a cluster. Sizes are in bytes, times in microseconds, bandwidths in
bytes per microsecond (= MB/s, 10**6 bytes per second).

The models are those of two 1995 benchmark studies:

* Point to point (Dincer, Bozkus, Ranka & Fox, *Benchmarking the computation
  and communication performance of the CM-5*; Bokhari, *Communication overhead
  on the Intel Paragon, IBM SP2 & Meiko CS-2*):
  ``T(l) = t0 + l / B``, fitted piecewise because a message-passing library
  changes protocol at some sizes (Bokhari's "short" and "long" messages, the
  SP2's eager limit): :func:`fit_piecewise_linear` finds the number of
  breakpoints and where they are.
* Barrier (Bokhari, Table 1: ``126 d - 113`` microseconds on ``2**d``
  Paragon nodes): ``T(P) = a log2(P) + b``, :func:`fit_barrier`. The CM-5's
  hardware barrier (5 us whatever the partition) is the case ``a = 0``.
* Broadcast: the CM-5 paper fits one line ``T(l) = t0 + k l`` per partition
  size (its equations 2 and 3) and explains the small growth of both terms
  with the partition by the depth of the spanning tree. :func:`fit_collective`
  fits that growth in one model, ``T(l, P) = (a + b l) log2(P) + c + d l``,
  and keeps the per-partition lines of the paper in
  :attr:`CollectiveFit.per_ranks`.
* Concatenation (allgather): ``T(l, P) = c + d P l`` with ``l`` the bytes each
  rank contributes (the CM-5 paper: 23.44 + 0.975 P l; "time for
  concatenation depends only on P for its contribution to the message size").
  It grows with ``P``, not ``log2 P``: :func:`fit_allgather`.
* LogGP parameters seen from a ping-pong: :func:`loggp_from_pingpong`.

:func:`fit_results` fits every kernel of a ``datamotion.bench/1`` results
document; :mod:`datamotion.measure.predict` evaluates the fitted document.

Every fit is a least-squares fit. By default it is weighted by ``1 / T**2``
(``weighting="relative"``): timing noise is roughly proportional to the time,
and an unweighted fit would let the largest messages decide the start-up time
of small ones. ``weighting="uniform"`` gives ordinary least squares.

Every coefficient is physical: start-up times, times per byte and the
coefficients of the barrier, collective and allgather models are constrained
to be ``>= 0`` (an exact bound-constrained least squares,
:func:`datamotion.measure.lsq.nonnegative_lstsq`: where the free fit is negative, Lawson and
Hanson's active-set method finds the optimum). The breakpoint search compares physical segments only.

Confidence intervals (95 %) come from the least-squares covariance with
Student-t quantiles (a table up to 30 degrees of freedom, a Cornish-Fisher
expansion beyond); they are NaN where there are no residual degrees of
freedom, their lower ends are clipped at 0, and a coefficient held at 0 has
``[0, upper end of its unconstrained interval]``. Breakpoints have intervals
by profile likelihood (:func:`fit_piecewise_linear`). ``r2``, ``rmse_us``,
``relative_rmse`` and ``max_relative_residual`` are always computed on the
unweighted times, for every fit and every segment.

Quality: every fit and segment carries ``flags``, a list of reasons it is
below the threshold of :mod:`~datamotion.measure.constants` (empty when it
is not). Where the times come with their measured spreads (the rows'
``ci95_us``; ``spreads=`` of every ``fit_*``), the residuals are judged
against them (the models over rank counts at each rank count) (:func:`datamotion.measure.lsq.spread_judgement`): a range
of sizes off the fit one way beyond their spread is a wrong shape and flagged,
single disturbed sizes and a noisy run are noted in the fit's ``noise``
(:func:`noise_notes`). Without spreads: r² below ``FIT_MIN_R2`` on at least
``FIT_R2_MIN_POINTS`` distinct sizes or rank counts; relative RMSE above
``FIT_MAX_RELATIVE_RMSE``; a coefficient held at 0 whose free fit was negative
beyond its 95 % interval. In both, in :func:`fit_results` when the results
hold a ``memcopy`` entry, a segment whose bandwidth is above memcpy's at the
same sizes (flagged, not clipped). :func:`flagged_fits` lists the flagged fits
of a model document.

One module per job, every name above importable from here: a model family each
(``piecewise``, ``barrier``, ``collective``, ``allgather``, and ``loggp`` from a
piecewise fit), the arguments checked and numbers to and from JSON (``codec``), the
judgement against measured spreads (``spreads``) and whole documents (``documents``).
"""

from ..constants import MODEL_SCHEMA, RESULTS_SCHEMA  # noqa: F401 - offered here as before
from .allgather import AllgatherFit, fit_allgather
from .barrier import LogFit, fit_barrier
from .collective import CollectiveFit, fit_collective
from .documents import LOCAL_KERNELS  # noqa: F401 - offered here as before
from .documents import CACHE_KERNELS, KERNEL_MODELS, fit_results, flagged_fits, noise_notes
from .loggp import loggp_from_pingpong
from .piecewise import PiecewiseFit, Segment, fit_piecewise_linear

__all__ = [
    "Segment", "PiecewiseFit", "LogFit", "CollectiveFit", "AllgatherFit",
    "fit_piecewise_linear", "fit_barrier", "fit_collective", "fit_allgather",
    "loggp_from_pingpong", "fit_results", "flagged_fits", "noise_notes", "KERNEL_MODELS", "CACHE_KERNELS",
]
