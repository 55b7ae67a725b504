"""``datamotion bench``: measure the machine and write the results document."""

from __future__ import annotations

import contextlib
import sys

from .._files import require_writable_file
from ..measure.constants import DEFAULT_THREAD_LEVEL, THREAD_LEVELS
from .common import CommandError, start_mpi, written


def run(args) -> int:
    """``datamotion bench SUITE... --out PATH``, on every rank of the job."""
    import os

    requested = args.thread_level or os.environ.get("MPI4PY_RC_THREAD_LEVEL") or DEFAULT_THREAD_LEVEL
    if requested not in THREAD_LEVELS:
        raise CommandError(f"MPI4PY_RC_THREAD_LEVEL={requested!r} is not one of {', '.join(THREAD_LEVELS)}")
    MPI = start_mpi(requested)
    provided = {getattr(MPI, f"THREAD_{level.upper()}"): level for level in THREAD_LEVELS}[MPI.Query_thread()]

    from ..measure.results import write_results
    from ..measure.suites import run_suites

    comm = MPI.COMM_WORLD
    if comm.size < 2:
        raise CommandError("bench needs at least 2 ranks (use --np 2 or more)")
    # Before measuring: a path that cannot be written fails now, on every rank alike.
    problem = None
    if comm.rank == 0:
        try:
            require_writable_file(args.out)
        except OSError as exc:
            problem = str(exc)
    problem = comm.bcast(problem, root=0)
    if problem:
        raise CommandError(problem)
    if comm.rank == 0:
        with _progress(f"measuring {' '.join(args.suites)} on {comm.size} ranks") as advance:
            doc = run_suites(args.suites, comm, quick=args.quick, validate=args.validate, progress=advance)
        doc["thread_level_requested"] = requested  # provenance.thread_level is what MPI provides
        if provided != requested:
            doc["warnings"].append(f"thread level {requested} was requested, but MPI provides {provided} (MPI was "
                                   "initialised before datamotion bench started, or offers no other level)")
        problem = written(lambda: write_results(doc, args.out), args.out)
    else:
        run_suites(args.suites, comm, quick=args.quick, validate=args.validate)
    # A write that failed after all (a disk filled up meanwhile) is one line too, on every rank alike.
    problem = comm.bcast(problem, root=0)
    if problem:
        raise CommandError(problem)
    if comm.rank == 0:
        rows = {r["kernel"]: r["rows"] for r in doc["results"]}
        summary = []
        for row in rows.get("pingpong", []):
            if row["bytes"] in (8, 1 << 20):
                rate = f", {row['bytes'] / row['median_us']:.0f} MB/s" if row["bytes"] else ""
                summary.append(f"ping-pong {row['bytes']} B: {row['median_us']:.2f} us{rate}")
        for row in rows.get("barrier", []):
            summary.append(f"barrier on {row['ranks']} ranks: {row['median_us']:.2f} us")
        for r in doc["results"]:
            if r["kernel"] == "vector":
                p = r["params"]
                summary.append(f"{p['op']} {p['dtype']}: R_inf {p['rinf_mflops']:.0f} Mflop/s, N_1/2 {p['nhalf']:.0f}")
        # The conditions (ranks sharing cores first) right below the figures they qualify.
        print("\n".join(summary + [f"warning: {w}" for w in doc["warnings"]] + [f"wrote {args.out}"]))
    return 0


@contextlib.contextmanager
def _progress(what: str):
    """Yields a function to call once per point measured. On a terminal a spinner counts
    them; elsewhere (a log, a pipe, the launcher's forwarding of a relaunched command)
    there are two plain lines, one before and one after."""
    import time

    if sys.stdout.isatty():
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(SpinnerColumn(), TextColumn("{task.description} {task.completed} points"),
                      TimeElapsedColumn()) as bar:
            task = bar.add_task(what, total=None)
            yield lambda: bar.advance(task)
        return
    print(f"{what} ...", flush=True)
    points, start = 0, time.perf_counter()

    def advance():
        nonlocal points
        points += 1

    yield advance
    print(f"{what}: {points} points in {time.perf_counter() - start:.1f} s", flush=True)
