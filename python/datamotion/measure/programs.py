"""Predicting a stencil time step and a redistribution from the fitted model.

The CM-5 paper predicts Gaussian elimination from its measured primitives
(:mod:`datamotion.measure.gauss`); this module predicts two more programs the
same way, each from the plan it runs (the plan's own messages, without moving
data: ``Halo.messages()``, ``RedistPlan.messages()``) and a fitted
``datamotion.model/1`` document:

* :func:`plan_time` prices one execution of a plan. Rank ``r`` spends::

      T_r = sum_rounds sum_peers X(max(sent, received bytes to that peer))
            + sum_messages of > 1 run  C(bytes, runs)               (pack, unpack)
            + sum_rounds sum_on-node peers 2 X(8) + max C(bytes, runs of both sides)
            + sum_local copies        C(bytes, runs)
      C(b, k) = max(b M(W_r) / W_r, k M(b / k))

  ``X`` the ``exchange`` kernel (both ranks of a pair send and receive at once,
  the Paragon paper's exchange), ``M`` the ``memcopy`` kernel: copying ``b``
  bytes in ``k`` runs is no faster than copying them at the rate of the rank's
  working set, nor than ``k`` copies of one run (a start-up each). ``W_r`` is
  every byte rank ``r`` copies in one execution (packs, unpacks, on-node and
  local copies): the copies of one execution stream through the same caches,
  so a plan whose pieces each fit in cache but whose whole does not runs at
  the rate of the level its whole fits in. A
  message of several runs is packed on one side and unpacked on the other, a
  contiguous one travels in place. A message the plan sends on a node
  (transport ``onnode``) is one copy by the receiver, run against run, straight
  out of the sender's memory; the pair swaps a control message and then an
  answer (two small exchanges), and each waits for the slower of its two
  copies (its own of the incoming message, the peer's of the outgoing one).
  The plan takes its slowest rank's time, ``max_r T_r``.
* :func:`stencil_step` adds the compute of a 5-point stencil on the local
  array: its NumPy statements over the ``m`` local elements, each priced by the
  ``ufunc`` entry of its form at ``8 m`` bytes (measured on ghosted blocks like
  the stencil's; the fit has breakpoints where the arrays leave a cache level,
  so the step is priced at the rate of its own working set).
* :func:`redistribution` is :func:`plan_time` of a redistribution plan.

Pure NumPy, no MPI: the messages of every rank are gathered by the caller
(``comm.gather(plan.messages())``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

from .predict import prediction

__all__ = ["plan_time", "stencil_step", "redistribution", "copied_bytes", "STENCIL_STATEMENTS"]

STENCIL_STATEMENTS = {"add": 1, "accumulate": 2, "scale": 1}
"""The NumPy statements of one 5-point update into preallocated arrays, by form (the
``form`` of a ``ufunc`` entry) and count: the sum of two neighbours, two more added
to it in place, and the scaling into the array (datamotion.measure.suites.programs)."""

_KEYS = ("peer", "round", "bytes", "runs", "sending")


def _check_messages(messages_by_rank: Sequence[Sequence[Mapping[str, Any]]]) -> None:
    if not isinstance(messages_by_rank, (list, tuple)) or not messages_by_rank:
        raise ValueError("messages_by_rank must be one list of messages per rank (comm.gather(plan.messages()))")
    for rank, messages in enumerate(messages_by_rank):
        for m in messages:
            if not isinstance(m, Mapping) or any(k not in m for k in _KEYS):
                raise ValueError(f"rank {rank}: a message must have {', '.join(_KEYS)}, got {m!r}")
            if m["bytes"] < 0 or m["runs"] < 0:
                raise ValueError(f"rank {rank}: negative bytes or runs in {dict(m)!r}")


class _Pricer:
    """The model's kernels at given sizes, remembering what a reader must know
    (flags, extrapolations, unmeasured gaps) once per kernel."""

    def __init__(self, model: Mapping[str, Any], ranks: int):
        self.model, self.ranks, self.warnings = model, ranks, {}

    def ufunc(self, form: str, nbytes: float) -> float:
        """The ``ufunc`` entry of this form when the model has one per form (from
        ``datamotion bench programs``), else its one ``ufunc`` entry."""
        models = self.model.get("models") or {}
        keys = [k for k, e in models.items() if isinstance(e, Mapping) and e.get("kernel") == "ufunc"
                and (e.get("params") or {}).get("form") == form]
        return self(keys[0] if len(keys) == 1 else "ufunc", nbytes)

    def __call__(self, kernel: str, nbytes: float) -> float:
        p = prediction(self.model, kernel, size_bytes=float(nbytes), ranks=self.ranks if kernel == "exchange" else None)
        notes = list(p.flags) + ([p.note()] if p.note() else [])
        if notes:
            self.warnings.setdefault(p.kernel, set()).update(notes)
        return float(p.value_us)


def _exchange_model_ranks(model: Mapping[str, Any]) -> int:
    """The rank count the model's exchange kernel was fitted at (2 for a pair)."""
    entry = next((e for e in (model.get("models") or {}).values()
                  if isinstance(e, Mapping) and e.get("kernel") == "exchange"), None)
    if entry is None:
        raise ValueError("the model has no exchange kernel: fit a `datamotion bench pt2pt` run")
    return int((entry.get("ranks") or [2])[0])


def _runs_us(price: _Pricer, nbytes: int, runs: int, us_per_byte: float) -> float:
    """Copying ``nbytes`` in ``runs`` contiguous runs: no faster than ``us_per_byte``
    (the rate of the rank's working set: past a cache level it streams), nor than
    ``runs`` copies of one run each (a start-up per run)."""
    if runs <= 0 or nbytes <= 0:
        return 0.0
    return max(nbytes * us_per_byte, runs * price("memcopy", nbytes / runs))


def copied_bytes(messages: Sequence[Mapping[str, Any]]) -> int:
    """The bytes one rank copies in one execution of a plan, given its messages:
    local copies, the messages it packs or unpacks (more than one run), and those
    it copies out of a sender's memory on a node."""
    total = 0
    for m in messages:
        on_node = m.get("transport") == "onnode"
        if m["peer"] < 0 or (on_node and not m["sending"]) or (not on_node and int(m["runs"]) > 1):
            total += int(m["bytes"])
    return total


_CONTROL_BYTES = 8  # the on-node transport's control message and answer (where the buffers are; done)


def _pair_key(rank: int, m: Mapping[str, Any]) -> tuple:
    """(sender, receiver, round) of message ``m`` as rank ``rank`` lists it."""
    peer, rnd = int(m["peer"]), int(m["round"])
    return (rank, peer, rnd) if m["sending"] else (peer, rank, rnd)


def _on_node_runs(messages_by_rank: Sequence[Sequence[Mapping[str, Any]]]) -> Dict[tuple, int]:
    """(sender, receiver, round) -> the runs of an on-node copy: the larger count of
    the two sides' (each run of either side starts a new piece of the copy)."""
    runs: Dict[tuple, int] = {}
    for rank, messages in enumerate(messages_by_rank):
        for m in messages:
            if m["peer"] >= 0 and m.get("transport") == "onnode":
                key = _pair_key(rank, m)
                runs[key] = max(runs.get(key, 0), int(m["runs"]))
    return runs


def _rank_time(price: _Pricer, rank: int, messages: Sequence[Mapping[str, Any]],
               on_node_runs: Mapping[tuple, int]) -> Dict[str, float]:
    exchanged: Dict[tuple, int] = {}
    on_node: Dict[tuple, float] = {}
    pack = copy = 0.0
    working_set = copied_bytes(messages)
    us_per_byte = price("memcopy", working_set) / working_set if working_set else 0.0
    for m in messages:
        nbytes, runs = int(m["bytes"]), int(m["runs"])
        if m["peer"] < 0:
            copy += _runs_us(price, nbytes, runs, us_per_byte)
            continue
        key = (int(m["round"]), int(m["peer"]))
        if m.get("transport") == "onnode":
            both = on_node_runs.get(_pair_key(rank, m), runs)
            on_node[key] = max(on_node.get(key, 0.0), _runs_us(price, nbytes, both, us_per_byte))
            continue
        exchanged[key] = max(exchanged.get(key, 0), nbytes)
        if runs > 1:
            pack += _runs_us(price, nbytes, runs, us_per_byte)
    comm = sum(price("exchange", nbytes) for nbytes in exchanged.values())
    on_node_us = sum(2 * price("exchange", _CONTROL_BYTES) + c for c in on_node.values())
    total = comm + on_node_us + pack + copy
    return {"exchange_us": comm, "on_node_us": on_node_us, "pack_us": pack, "copy_us": copy, "total_us": total}


def plan_time(model: Mapping[str, Any], messages_by_rank: Sequence[Sequence[Mapping[str, Any]]], *,
              call_us: float = 0.0) -> Dict[str, Any]:
    """Predicted time of one execution of a plan from every rank's messages.

    Args:
        model: a ``datamotion.model/1`` document with ``exchange`` (from
            ``datamotion bench pt2pt``) and ``memcopy`` (``datamotion bench
            local``) fits.
        messages_by_rank: per rank, the list ``plan.messages()`` returns.
        call_us: the cost of the call itself, added to every rank's time (its
            argument checks and bookkeeping, measured on a plan that moves
            nothing: ``datamotion bench programs`` does); 0 leaves it out.

    Returns:
        ``total_us`` (the slowest rank's), ``slowest_rank``, ``by_rank`` (each
        rank's ``exchange_us``, ``on_node_us``, ``pack_us``, ``copy_us``,
        ``call_us``, ``total_us``) and
        ``warnings`` (the model's flags, extrapolations and unmeasured gaps
        at the sizes used, by kernel).

    Raises:
        ValueError: for malformed messages or a model without those kernels.
    """
    _check_messages(messages_by_rank)
    price = _Pricer(model, _exchange_model_ranks(model))
    on_node_runs = _on_node_runs(messages_by_rank)
    if not call_us >= 0:
        raise ValueError(f"call_us must be a non-negative number, got {call_us!r}")
    by_rank = [_rank_time(price, rank, messages, on_node_runs) for rank, messages in enumerate(messages_by_rank)]
    for row in by_rank:
        row["call_us"] = call_us
        row["total_us"] += call_us
    slowest = max(range(len(by_rank)), key=lambda r: by_rank[r]["total_us"])
    return {"total_us": by_rank[slowest]["total_us"], "slowest_rank": slowest, "by_rank": by_rank,
            "warnings": {k: sorted(v) for k, v in price.warnings.items()}}


def stencil_step(model: Mapping[str, Any], messages_by_rank: Sequence[Sequence[Mapping[str, Any]]],
                 local_elements: Sequence[int], *, statements: Mapping[str, int] = STENCIL_STATEMENTS,
                 call_us: float = 0.0) -> Dict[str, Any]:
    """Predicted time of one stencil time step: the halo exchange
    (:func:`plan_time` of the halo plan) then the NumPy ``statements`` (form ->
    count) over each rank's ``local_elements``, each priced by the model's
    ``ufunc`` entry of its form (or its one ``ufunc`` entry) at
    ``8 * local_elements`` bytes (float64). The step takes the slowest rank's
    halo plus compute. ``call_us``: as :func:`plan_time`'s, for the halo call.

    Returns:
        ``total_us``, ``halo_us`` and ``compute_us`` (of the slowest rank),
        ``slowest_rank``, ``by_rank`` and ``warnings``.

    Raises:
        ValueError: for a bad argument or a model without ``exchange``,
            ``memcopy`` or ``ufunc``.
    """
    if len(local_elements) != len(messages_by_rank):
        raise ValueError(f"local_elements has {len(local_elements)} entries for {len(messages_by_rank)} ranks")
    if any(c < 0 for c in statements.values()) or any(m < 0 for m in local_elements):
        raise ValueError("statement counts and local_elements must be non-negative")
    halo = plan_time(model, messages_by_rank, call_us=call_us)
    price = _Pricer(model, 1)
    rows: List[Dict[str, float]] = []
    for rank, m in enumerate(local_elements):
        compute = sum(count * price.ufunc(form, 8 * int(m)) for form, count in statements.items()) if m else 0.0
        halo_us = halo["by_rank"][rank]["total_us"]
        rows.append({"halo_us": halo_us, "compute_us": compute, "total_us": halo_us + compute})
    slowest = max(range(len(rows)), key=lambda r: rows[r]["total_us"])
    warnings = dict(halo["warnings"])
    for k, v in price.warnings.items():
        warnings[k] = sorted(set(warnings.get(k, [])) | v)
    return {**rows[slowest], "slowest_rank": slowest, "by_rank": rows, "warnings": warnings}


def redistribution(model: Mapping[str, Any], messages_by_rank: Sequence[Sequence[Mapping[str, Any]]], *,
                   call_us: float = 0.0) -> Dict[str, Any]:
    """Predicted time of one execution of a redistribution plan: :func:`plan_time`
    of ``RedistPlan.messages()`` gathered from every rank."""
    return plan_time(model, messages_by_rank, call_us=call_us)
