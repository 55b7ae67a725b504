"""The ``datamotion`` command.

    datamotion --version        the version, and the MPI library it was built with
    datamotion demo [--np N]    show what the library does, on N local ranks (default 4)
    datamotion info [--np N]    print the provenance of this installation and MPI
    datamotion bench SUITE... [--np N] [--quick] [--validate] [--thread-level L] --out results.json
                                measure the machine (suites: pt2pt, collectives, local, patterns,
                                cm5, paragon, pshift, redist, cvl, gauss, programs, or all)
    datamotion model fit results.json --out model.json
    datamotion model predict model.json KERNEL [--bytes B] [--ranks P]
    datamotion model predict model.json stencil_step|redistribution --order N --np P
                                a program's time, priced from its plan's messages
    datamotion report results.json [--model model.json] --out DIR
                                an offline HTML report: plots, tables, CSV
    datamotion calibrate [--np N] [--quick] [--output PATH]
                                measure the exchange cost model of this MPI and write
                                the model file the library reads (docs/exchange.md)

Outside an MPI job a command starts itself on N local ranks with the MPI's own
launcher; inside one (``mpiexec -n 8 datamotion demo``) it runs in place.

A mistake (a bad argument, a missing or malformed file, an unwritable output) is one
line on rank 0, ``datamotion: error: ...``, and a non-zero exit status on every rank;
``--debug`` (before the command) shows the traceback instead. An interrupt (Ctrl-C)
is one line and exit status 130.
"""

from __future__ import annotations

import sys
from typing import List, Optional

from . import launch
from ._cli import bench, calibrate, model, report
from ._cli.common import EXIT_ERROR, EXIT_INTERRUPTED, CommandError, fail as _fail, rank0_prints
from ._cli.parser import parser as _parser


def main(argv: Optional[List[str]] = None) -> int:
    """The command: returns its exit status; a mistake or an interrupt raises SystemExit
    (on rank 0 with the one line as its message, elsewhere with the status alone)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv[:next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))]
    if debug:  # an exception re-raised below shows its traceback (datamotion._uncaught)
        import os
        os.environ["DATAMOTION_DEBUG"] = "1"
    try:
        return _main(argv)
    except CommandError as exc:
        if debug:
            raise
        _fail(str(exc), exc.status)
    except KeyboardInterrupt:
        if debug:
            raise
        _fail("interrupted", EXIT_INTERRUPTED, prefix="datamotion: ")
    except Exception as exc:
        if debug:
            raise
        _unexpected(exc)


def _unexpected(exc: Exception) -> None:
    """A failure that is no CommandError. A datamotion Error is raised alike on every rank
    (one line from rank 0); anything else may be one rank's alone, so that rank says it and,
    in a job of several ranks, ends the job rather than leave the others waiting."""
    from ._errors import Error

    what = str(exc) or type(exc).__name__
    MPI = sys.modules.get("mpi4py.MPI")
    running = MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized()
    if isinstance(exc, Error) or not running:  # alike on every rank, or a process of its own
        _fail(what if isinstance(exc, (Error, ValueError, OSError)) else
              f"{type(exc).__name__}: {what} (--debug shows the traceback)")
    if MPI.COMM_WORLD.size > 1:
        from ._uncaught import end_job

        sys.stderr.write(f"datamotion: error on rank {MPI.COMM_WORLD.rank} of {MPI.COMM_WORLD.size}: "
                         f"{type(exc).__name__}: {what} (--debug shows the traceback)\n")
        end_job(MPI, EXIT_ERROR)
    _fail(f"{type(exc).__name__}: {what} (--debug shows the traceback)")


def _main(argv: List[str]) -> int:
    args = _parser().parse_args(argv)
    nprocs = getattr(args, "np", None)  # `report` has none, `model` only for a program's plan: they run offline
    if nprocs is not None and not launch.inside_mpi_job():
        forwarded = [a for i, a in enumerate(argv) if a != "--np" and (i == 0 or argv[i - 1] != "--np")
                     and not a.startswith("--np=")]
        return launch.relaunch(nprocs, forwarded)
    if args.command == "demo":
        from ._cli.demo import run_demo  # loads MPI
        return run_demo()
    if args.command == "bench":
        return bench.run(args)
    if args.command == "model":
        with rank0_prints():
            return model.run(args)
    if args.command == "report":
        with rank0_prints():
            return report.run(args)
    if args.command == "calibrate":
        return calibrate.run(args)
    from ._cli.info import run_info  # loads MPI
    return run_info(as_json=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
