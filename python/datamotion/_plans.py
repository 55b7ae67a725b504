"""Plans behind the one-shot calls (``cshift``, ``eoshift``, ``redistribute``),
kept on the process grid so that a repeated call costs what a reused plan does.
They are freed with the grid (and its communicator)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Hashable

CAPACITY = 16  # plans per grid; the least recently used beyond it are freed


def cached(grid: Any, key: Hashable, make: Callable[[], Any]) -> Any:
    """The plan for ``key`` on ``grid``, made by ``make()`` when missing.

    The calls using it are collective and their keys are made of arguments that
    agree across ranks, so every rank finds or makes the same plans in the same
    order, and the collective setup in ``make`` runs on all ranks or none.
    """
    try:
        hash(key)
    except TypeError:  # arguments of the wrong kind: the plan's setup reports them
        return make()
    plans = grid.__dict__.setdefault("_plans", OrderedDict())
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = make()
        while len(plans) > CAPACITY:
            plans.popitem(last=False)
    else:
        plans.move_to_end(key)
    return plan


def layout_key(a: Any) -> tuple:
    """What makes arrays interchangeable in a plan: shape, type, distribution, ghosts
    (the grid is the cache's owner)."""
    return (a.shape, a.dtype.str, a.dist, a.ghost)
