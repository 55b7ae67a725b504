"""The results document (schema ``datamotion.bench/1``, see docs/bench.md): built,
written, read and checked here only, whichever suite or experiment measured it."""

from __future__ import annotations

import json
import os
from typing import Any, List, Mapping, Sequence

from .._files import atomic_write
from .constants import ENVIRONMENT_PREFIXES, MODEL_SCHEMA, RESULTS_SCHEMA
from .cores import crowded_host, sharing_sentence

__all__ = ["document", "write_results", "load_results", "load_model", "check_results", "check_model"]


def _scheduling() -> dict:
    """This process's scheduling policy and nice value (a run under ``chrt`` is
    shielded from other jobs on a shared machine; see docs/predict.md)."""
    names = {getattr(os, n): n for n in ("SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_IDLE")
             if hasattr(os, n)}
    try:
        policy = os.sched_getscheduler(0)
        return {"policy": names.get(policy, str(policy)), "priority": os.sched_getparam(0).sched_priority,
                "nice": os.nice(0)}
    except (AttributeError, OSError):
        return {}


def noisy_warnings(results: Sequence[Mapping[str, Any]]) -> List[str]:
    """One warning per kernel whose rows have a mean above 1.5 x the median (a few
    slow samples: preemption on a shared machine), naming the worst row."""
    counts: dict = {}  # kernel -> [noisy rows, rows, worst row]
    for r in results:
        for row in r.get("rows", []):
            if "mean_us" not in row or "median_us" not in row:
                continue
            seen = counts.setdefault(r["kernel"], [0, 0, None])
            seen[1] += 1
            if row["mean_us"] > 1.5 * row["median_us"]:
                seen[0] += 1
                ratio = row["mean_us"] / max(row["median_us"], 1e-12)
                if seen[2] is None or ratio > seen[2]["mean_us"] / max(seen[2]["median_us"], 1e-12):
                    seen[2] = row
    notes = []
    for kernel, (noisy, total, worst) in counts.items():
        if noisy:
            where = f"{worst['bytes']} bytes: " if "bytes" in worst else ""
            notes.append(f"{kernel}: {noisy} of {total} rows noisy, mean above 1.5 x median (worst {where}"
                         f"mean {worst['mean_us']:.3g} us, median {worst['median_us']:.3g} us)")
    return notes


def document(comm, results: List[dict], *, quick: bool, validate: bool, **fields) -> dict:
    """Collective. The results document of ``results`` measured on ``comm``, the same
    on every rank: provenance (with the MPI environment variables, the thread level
    and the scheduling policy), the run's settings, ``fields`` and the warnings
    every reader should see (oversubscribed cores, MPI_THREAD_MULTIPLE, noisy rows)."""
    from .._provenance import provenance

    info = provenance(comm)
    info["environment"] = {k: v for k, v in os.environ.items() if k.startswith(ENVIRONMENT_PREFIXES)}
    info["scheduling"] = _scheduling()
    ranks, cores, hosts = crowded_host(comm)
    info["ranks_per_host"], info["cores_per_host"] = ranks, cores  # the report says when ranks share cores
    sharing = sharing_sentence(ranks, cores, hosts)
    warnings = [sharing] if sharing else []
    if info.get("thread_level") == "multiple":
        warnings.append("measured under MPI_THREAD_MULTIPLE: MPI calls take locks that a program calling "
                        "MPI_Init does not (datamotion bench --thread-level single, or MPI4PY_RC_THREAD_LEVEL=single)")
    warnings += noisy_warnings(results)
    return {"schema": RESULTS_SCHEMA, "provenance": info, "quick": quick, "validated": validate,
            "warnings": warnings, **fields, "results": results}


def write_results(doc: Mapping[str, Any], path: str) -> None:
    """Writes a results (or model) document as JSON, whole or not at all."""
    with atomic_write(path) as f:
        json.dump(doc, f, indent=1)


def _read_json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a JSON {what}: {exc}") from None


# What each kind of document must hold: its table, the table's type and description, its schema.
_DOCUMENTS = {
    "results": ("results", list, "'results' list", RESULTS_SCHEMA),
    "model": ("models", Mapping, "'models' table", MODEL_SCHEMA),
}


def _check(doc: Any, where: str, kind: str) -> None:
    key, kind_type, description, schema = _DOCUMENTS[kind]
    if not isinstance(doc, Mapping) or not isinstance(doc.get(key), kind_type):
        raise ValueError(f"{where} is not a datamotion {kind} document (no {description})")
    if doc.get("schema") != schema:
        raise ValueError(f"{where} has schema {doc.get('schema')!r}, expected {schema!r}")


def _load(path: str, kind: str) -> dict:
    doc = _read_json(path, f"{kind} document")
    _check(doc, path, kind)
    return doc


def check_results(doc: Any, where: str = "the document") -> None:
    """Raises ValueError unless ``doc`` is a results document."""
    _check(doc, where, "results")


def check_model(doc: Any, where: str = "the model") -> None:
    """Raises ValueError unless ``doc`` is a model document."""
    _check(doc, where, "model")


def load_results(path: str) -> dict:
    """Reads a results document written by ``datamotion bench``.

    Raises:
        ValueError: with a one-line message when the file cannot be read, is
            not JSON, has no ``results`` list or a schema other than
            ``datamotion.bench/1``.
    """
    return _load(path, "results")


def load_model(path: str) -> dict:
    """Reads a model document written by ``datamotion model fit``.

    Raises:
        ValueError: with a one-line message when the file cannot be read, is
            not JSON, has no ``models`` table or a schema other than
            ``datamotion.model/1``.
    """
    return _load(path, "model")
