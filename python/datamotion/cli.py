"""The ``datamotion`` command.

    datamotion demo [--np N]    show what the library does, on N local ranks (default 4)
    datamotion info [--np N]    print the provenance of this installation and MPI

Outside an MPI job a command starts itself on N local ranks with the MPI's own
launcher; inside one (``mpiexec -n 8 datamotion demo``) it runs in place.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import launch


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="datamotion", description="Data-parallel communication on MPI.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="show what the library does on local ranks")
    demo.add_argument("--np", type=int, default=4, help="ranks to launch when not inside an MPI job (default 4)")
    info = sub.add_parser("info", help="print provenance: library, MPI, ranks, threads, clocks, build")
    info.add_argument("--np", type=int, default=None, help="ranks to launch (default: run in this process)")
    info.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    nprocs = args.np
    if nprocs is not None and nprocs < 1:
        raise SystemExit("datamotion: --np must be at least 1")
    if nprocs is not None and not launch.inside_mpi_job():
        forwarded = [a for i, a in enumerate(argv) if a != "--np" and (i == 0 or argv[i - 1] != "--np")
                     and not a.startswith("--np=")]
        return launch.relaunch(nprocs, forwarded)
    if args.command == "demo":
        from .demo import run_demo
        return run_demo()
    from .info import run_info
    return run_info(as_json=args.json)


if __name__ == "__main__":
    raise SystemExit(main())
