"""The LogGP parameters a ping-pong can measure (:func:`loggp_from_pingpong`)."""

from __future__ import annotations

import math
from typing import Any, Dict

from .codec import num, pair_out
from .piecewise import fit_piecewise_linear


def loggp_from_pingpong(sizes, times, *, max_breakpoints: int = 2, min_points: int = 3,
                        weighting: str = "relative") -> Dict[str, Any]:
    """LogGP parameters that a ping-pong can measure.

    ``times`` are one-way times (half the round trip), which LogGP models as
    ``L + 2 o + (k - 1) G`` for a ``k``-byte message. A ping-pong therefore
    measures only:

    * ``L_plus_2o_us``: latency plus send and receive overhead, the one-way
      time of a 1-byte message on the small-message segment (``t0 + G_small``;
      its interval is that of ``t0``);
    * ``G_us_per_byte``: the time per byte for long messages, the slope of the
      largest-message segment (and ``bandwidth_MBps = 1 / G``).

    It does **not** measure ``L`` and ``o`` separately (that needs the time a
    send or receive keeps the processor busy, e.g. by overlapping computation),
    nor the gap ``g`` between consecutive small messages (that needs a stream
    of back-to-back sends, a message-rate test), nor whether ``G`` is set by
    the sender, the network or the receiver. With protocol breakpoints a single
    LogGP line does not describe mid-sized messages; the piecewise fit is
    returned as well.

    Args:
        sizes, times: as for :func:`fit_piecewise_linear`.
        max_breakpoints, min_points, weighting: passed to :func:`fit_piecewise_linear`.

    Returns:
        dict with ``L_plus_2o_us``, ``L_plus_2o_ci95``, ``G_us_per_byte``,
        ``G_ci95``, ``bandwidth_MBps``, ``large_message_t0_us``,
        ``breakpoints_bytes``, ``not_measurable`` (names and why) and ``fit``
        (the :meth:`PiecewiseFit.to_dict`); JSON-serialisable.

    Raises:
        ValueError: as :func:`fit_piecewise_linear`.
    """
    fit = fit_piecewise_linear(sizes, times, max_breakpoints=max_breakpoints, min_points=min_points,
                               weighting=weighting)
    small, large = fit.segments[0], fit.segments[-1]
    l2o = small.t0_us + small.us_per_byte
    half = max(abs(small.t0_ci95[1] - small.t0_us), 0.0) if math.isfinite(small.t0_ci95[1]) else math.nan
    return {
        "L_plus_2o_us": num(l2o),
        "L_plus_2o_ci95": pair_out((l2o - half, l2o + half)),
        "G_us_per_byte": num(large.us_per_byte),
        "G_ci95": pair_out(large.us_per_byte_ci95),
        "bandwidth_MBps": num(large.bandwidth_MBps),
        "large_message_t0_us": num(large.t0_us),
        "breakpoints_bytes": list(fit.breakpoints_bytes),
        "not_measurable": {
            "L": "only L + 2o is seen: splitting it needs the send/receive overhead o measured on its own",
            "o": "the overhead of a send or receive needs a test that overlaps computation with communication",
            "g": "the gap between consecutive small messages needs a message-rate (streaming) test",
        },
        "fit": fit.to_dict(),
    }

