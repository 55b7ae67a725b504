"""pytest configuration shared by every datamotion Python test.

The suite runs under mpi-pytest in its non-forking mode: ``./dev test`` starts
``mpiexec -n N python -m pytest -m "parallel[N]"`` once per rank count, so every
rank of the launch runs the same tests in the same order. This file makes that
mode safe to report on:

* each rank writes its own JUnit report (rank r > 0 inserts ``.rank{r}`` before
  ``.xml``), instead of all ranks overwriting one file; ``tests/summarize.py``
  merges them, worst outcome per test case;
* a test that fails on any rank fails on every rank, with the failing ranks and
  their messages in the report of the ranks that passed; if a rank fails while
  the others are stuck in a collective call it left, it aborts the launch after
  ``DM_TEST_STUCK_TIMEOUT`` seconds (default 30) with its error on stderr;
* a test that runs longer than ``DM_TEST_TIMEOUT`` seconds (default 120) dumps
  every thread's traceback and ends the process, so a collective call that one
  rank never reaches fails the launch instead of hanging it;
* only rank 0 reports on the terminal (the others' failures reach it, above);
  ``DM_TEST_ALL_RANKS=1`` lets every rank report, interleaved;
* Hypothesis never writes an example database (ranks would race on it), never
  fails a health check on timing alone (a rank that fails one when the others do
  not would leave them waiting), and has no deadline.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import time

import pytest
from mpi4py import MPI

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the tests that need Hypothesis import it themselves
    settings = None
else:
    settings.register_profile(
        "datamotion",
        database=None,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    settings.load_profile("datamotion")

_TIMEOUT = float(os.environ.get("DM_TEST_TIMEOUT", "120"))
_STUCK = float(os.environ.get("DM_TEST_STUCK_TIMEOUT", "30"))


def _rank_path(path: str, rank: int) -> str:
    stem, ext = os.path.splitext(path)
    if ext.lower() != ".xml":
        return f"{path}.rank{rank}"
    return f"{stem}.rank{rank}{ext}"


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Runs before the junitxml plugin's own pytest_configure opens its report.
    world = MPI.COMM_WORLD
    xmlpath = getattr(config.option, "xmlpath", None)
    if xmlpath and world.size > 1 and world.rank > 0:
        config.option.xmlpath = _rank_path(xmlpath, world.rank)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    # Before the terminal reporter prints its header: ranks > 0 report into the void,
    # since a failure on any rank is also a failure, with its message, on rank 0.
    world = MPI.COMM_WORLD
    if world.rank == 0 or os.environ.get("DM_TEST_ALL_RANKS", "") not in ("", "0"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        from _pytest.config import create_terminal_writer

        session.config._dm_devnull = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the session
        reporter._tw = create_terminal_writer(session.config, session.config._dm_devnull)


def _outcome_of(exc: BaseException | None) -> str:
    if exc is None:
        return "passed"
    if isinstance(exc, pytest.skip.Exception):
        return "skipped"
    if isinstance(exc, pytest.xfail.Exception):
        return "xfailed"
    return "failed"


def _describe(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    first = text.strip().splitlines()[:6]
    return "\n    ".join(first)[:1500]


def _meet(world, item, failure):
    """Collective: waits for every rank to finish the test body. A rank whose test
    failed gives the others DM_TEST_STUCK_TIMEOUT seconds (default 30) to arrive;
    if they do not, they are stuck in a collective call this rank left early, and
    waiting longer helps nobody: it says so and aborts the launch."""
    request = world.Ibarrier()
    deadline = time.monotonic() + _STUCK
    while not request.Test():
        if failure is not None and time.monotonic() > deadline:
            message = (f"\n[rank {world.rank}] {item.nodeid} failed on this rank:\n    {failure}\n"
                       f"[rank {world.rank}] the other ranks did not finish it within {_STUCK:g} s: they are "
                       "waiting in a collective call this rank never reached. Aborting the launch.\n")
            os.write(2, message.encode(errors="replace"))  # fd 2: pytest captures sys.stderr here
            world.Abort(1)
        time.sleep(0.0005)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Agrees on the outcome of the test body across the ranks of COMM_WORLD."""
    world = MPI.COMM_WORLD
    if world.size == 1:
        return (yield)
    exc = None
    try:
        result = yield
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: B036 - pytest's outcomes are BaseExceptions
        exc = e
        result = None
    outcome = _outcome_of(exc)
    _meet(world, item, _describe(exc) if outcome == "failed" else None)
    reports = world.allgather((outcome, _describe(exc) if outcome == "failed" else ""))
    failed = [(r, text) for r, (o, text) in enumerate(reports) if o == "failed"]
    if exc is not None:
        raise exc
    if failed:
        lines = "\n".join(f"  rank {r}: {text}" for r, text in failed)
        pytest.fail(f"failed on rank(s) {[r for r, _ in failed]} of {world.size}:\n{lines}", pytrace=False)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A watchdog per test: a rank stuck in a collective ends the launch, loudly."""
    if _TIMEOUT > 0:
        faulthandler.dump_traceback_later(_TIMEOUT, exit=True, file=sys.stderr)
    try:
        return (yield)
    finally:
        if _TIMEOUT > 0:
            faulthandler.cancel_dump_traceback_later()
