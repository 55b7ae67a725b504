"""Names for the collective calls of the Python API.

Every agreement among the ranks of a call carries the name of the call each rank is
in, so that ranks in different calls are told which ("rank 0 is in
DistArray.to_global, rank 1 in redistribute"), and a rank whose partners never
arrive names the call it waits in when its deadline (DATAMOTION_TIMEOUT) passes.
The outermost name wins: ``redistribute`` stays ``redistribute`` while it creates
its result array. Hot paths (``execute``, ``exchange``) name themselves only where
they agree, in checked mode, and so add nothing to their cost otherwise.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

from ._mpi import _core

F = TypeVar("F", bound=Callable)


def collective(name: str) -> Callable[[F], F]:
    """Decorates a collective function or method: its agreements name it ``name``."""
    def name_calls(function: F) -> F:
        @functools.wraps(function)
        def named(*args, **kwargs):
            _core.enter_call(name)
            try:
                return function(*args, **kwargs)
            finally:
                _core.leave_call()
        return named  # type: ignore[return-value]
    return name_calls
