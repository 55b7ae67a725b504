"""Local argument preparation that cannot fail on one rank alone.

Converting arguments (NumPy arrays, distributions, widths) can raise on one
rank only, e.g. when that rank passes a ragged list. Raising there would leave
the other ranks waiting inside the collective call. Instead the first problem
is recorded and handed to the call, which fails on every rank with it.
"""

from __future__ import annotations

import operator
from typing import Callable, Optional, Tuple, TypeVar

from ._errors import DM_ERR_ARG, Error

T = TypeVar("T")

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def int64(value, what: str) -> int:
    """``value`` as a Python int if it is an integer (``int``, NumPy integer, anything
    with ``__index__``) in the int64 range; otherwise TypeError or ValueError naming
    ``what``, so that ``1.5`` is refused instead of truncated."""
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None
    if not INT64_MIN <= n <= INT64_MAX:
        raise ValueError(f"{what} {n} is outside the 64-bit integer range [-2**63, 2**63 - 1]")
    return n


class LocalProblems:
    """The first thing that went wrong on this rank while preparing a call."""

    def __init__(self) -> None:
        self.problem: Optional[Tuple[int, str]] = None

    def report(self, code: int, message: str) -> None:
        if self.problem is None:
            self.problem = (code, message)

    def attempt(self, what: str, prepare: Callable[[], T], default: T = None, code: int = DM_ERR_ARG) -> T:
        """``prepare()``, or ``default`` after recording its exception as ``what: error``."""
        if self.problem is not None:
            return default
        try:
            return prepare()
        except Exception as exc:  # any conversion error becomes the call's collective error
            self.report(code, f"{what}: {exc.message if isinstance(exc, Error) else exc}")
            return default


def root_code(root, size: int, problems: LocalProblems) -> int:
    """The C root (-1 for all ranks) of a Python ``root`` (None for all ranks)."""
    if root is None:
        return -1
    value = problems.attempt("root", lambda: int(root), default=0)
    if not 0 <= value < size:
        problems.report(DM_ERR_ARG, f"root {root!r} out of range [0, {size}) (or None for all ranks)")
        return 0
    return value
