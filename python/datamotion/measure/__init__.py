"""Measuring the machine: suites of measurement kernels, fitted models, predictions
and the report, each a module with one job.

* :mod:`~datamotion.measure.suites` — what ``datamotion bench`` runs (one module per
  suite or seed experiment), returning result entries;
* :mod:`~datamotion.measure.stats` — repetition rules and summaries of samples;
* :mod:`~datamotion.measure.results` — the results document: built, written, read;
* :mod:`~datamotion.measure.fit` — models fitted to results (no MPI);
* :mod:`~datamotion.measure.lsq` — the least squares every fit shares: intervals, constraints, quality;
* :mod:`~datamotion.measure.predict` — times predicted from a fitted model (no MPI);
* :mod:`~datamotion.measure.gauss` — a program's time predicted from its primitives;
* :mod:`~datamotion.measure.report` — the offline HTML report (no MPI);
* :mod:`~datamotion.measure.calibrate` — the exchange engine's cost model of this MPI,
  measured and fitted (what ``datamotion calibrate`` runs);
* :mod:`~datamotion.measure.constants` — schemas, sizes and names, in one place.
* :mod:`~datamotion.measure.hosts` — where the ranks live: nodes, ranks per node, how
  nodes reach each other (emulated nodes too), messages that cross nodes.

Only the suites, :func:`~datamotion.measure.gauss.measure_primitives`, the measuring
functions of :mod:`~datamotion.measure.calibrate` and the collective functions of
:mod:`~datamotion.measure.hosts` load MPI.
"""

import importlib

_EXPORTS = {
    "SUITES": "suites",
    "run_suites": "suites",
    "summarize": "stats",
    "time_collective": "stats",
    "document": "results",
    "write_results": "results",
    "load_results": "results",
    "load_model": "results",
    "fit_results": "fit",
    "fit_piecewise_linear": "fit",
    "write_report": "report",
    "load_folder": "report",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'datamotion.measure' has no attribute {name!r}")
