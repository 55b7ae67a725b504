"""The CVL paper's two NESL benchmarks (its appendix) on ``datamotion.vector``: the
demo shows them, ``datamotion bench cvl`` times them (the paper's Figures 5 and 6).
Both are collective on the vectors' communicator."""

from __future__ import annotations

import numpy as np

from .. import vector as cv

__all__ = ["linefit", "select_kth"]


def linefit(x: "cv.Vector", y: "cv.Vector"):
    """NESL's linefit (Appendix A.1): intercept a, slope b and their probable
    uncertainties of the least-squares line through (x, y), with five plus-reductions."""
    n = float(len(x))
    xa = cv.reduce(x) / n
    ya = cv.reduce(y) / n
    dx = x - xa
    stt = cv.reduce(dx * dx)
    b = cv.reduce(dx * y) / stt
    a = ya - xa * b
    r = y - a - b * x
    chi2 = cv.reduce(r * r)
    sigma = np.sqrt((1.0 / n + xa * xa / stt) * chi2 / n)
    sigb = np.sqrt((1.0 / stt) * chi2 / n)
    return a, b, sigma, sigb


def select_kth(s: "cv.Vector", k: int):
    """NESL's quickselect (Appendix A.2): the k-th smallest element of s (the recursion
    as a loop; every partition is packed, so it is load-balanced again)."""
    while True:
        pivot = s[len(s) // 2]
        les = cv.pack(s, s < pivot)
        if k < len(les):
            s = les
            continue
        grt = cv.pack(s, s > pivot)
        if k >= len(s) - len(grt):
            k -= len(s) - len(grt)
            s = grt
            continue
        return pivot
