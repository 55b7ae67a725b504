"""The command line: every command, its arguments and their help."""

from __future__ import annotations

import argparse
import sys

from .. import launch
from ..measure.constants import DEFAULT_THREAD_LEVEL, SUITE_NAMES, THREAD_LEVELS
from .common import EXIT_USAGE, CommandError


class Parser(argparse.ArgumentParser):
    """argparse, with a mistake raised as one CommandError line instead of usage text."""

    def error(self, message):
        raise CommandError(f"{message} (see '{self.prog} --help')", EXIT_USAGE)


def at_least(minimum: int):
    """An argparse type: an integer >= minimum."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def version_text() -> str:
    """datamotion's version and, when it can be read without initialising MPI, the MPI library's."""
    from .. import __version__

    lines = [f"datamotion {__version__}"]
    try:
        import mpi4py
        if "mpi4py.MPI" not in sys.modules:
            mpi4py.rc.initialize = False  # MPI_Get_library_version may be called before MPI_Init
            mpi4py.rc.finalize = False
        from mpi4py import MPI
        library = " ".join(MPI.Get_library_version().strip().splitlines()[0].split())
        lines.append(f"MPI: {library} (mpi4py {mpi4py.__version__})")
    except Exception:  # the version alone still answers the question
        pass
    return "\n".join(lines)


class VersionAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print the version and the MPI library, then exit")

    def __call__(self, parser, namespace, values, option_string=None):
        if launch.job_rank() in (None, 0):
            print(version_text())
        raise SystemExit(0)


def parser() -> argparse.ArgumentParser:
    parser = Parser(prog="datamotion", description="Data-parallel communication on MPI.")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser,
                                title="commands (datamotion COMMAND --help for each)")
    ranks = at_least(1)
    demo = sub.add_parser("demo", help="show what the library does on local ranks")
    demo.add_argument("--np", type=ranks, default=4, help="ranks to launch when not inside an MPI job (default 4)")
    info = sub.add_parser("info", help="print provenance: library, MPI, ranks, threads, clocks, build")
    info.add_argument("--np", type=ranks, default=None, help="ranks to launch (default: run in this process)")
    info.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench = sub.add_parser("bench", help="measure the machine and write a results JSON")
    bench.add_argument("suites", nargs="+", metavar="SUITE", choices=SUITE_NAMES + ("all",),
                       help=f"one or more of {', '.join(SUITE_NAMES)}, or all")
    bench.add_argument("--np", type=ranks, default=2, help="ranks to launch when not inside an MPI job (default 2)")
    bench.add_argument("--quick", action="store_true", help="fewer sizes and repetitions: at 2 ranks under half a "
                       "minute for most suites, 0.5-3 minutes for cm5, paragon and all (docs/bench.md)")
    bench.add_argument("--validate", action="store_true", help="check every received byte")
    bench.add_argument("--thread-level", choices=THREAD_LEVELS, default=None,
                       help=f"the MPI thread level to initialise MPI at, one of {', '.join(THREAD_LEVELS)} "
                            "(default: $MPI4PY_RC_THREAD_LEVEL if set, "
                            f"else {DEFAULT_THREAD_LEVEL}, what a C program calling MPI_Init gets)")
    bench.add_argument("--out", required=True, help="the results JSON to write")
    model = sub.add_parser("model", help="fit models to benchmark results, and predict from them")
    verbs = model.add_subparsers(dest="verb", required=True, metavar="VERB", parser_class=Parser,
                                 title="verbs")
    fit = verbs.add_parser("fit", help="fit every kernel of a results JSON")
    fit.add_argument("results", help="the results JSON that `datamotion bench` wrote")
    fit.add_argument("--out", required=True, help="the model JSON to write")
    predict = verbs.add_parser("predict", help="a kernel's predicted time from a model JSON",
                               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=kernels_epilog())
    predict.add_argument("model", help="the model JSON that `datamotion model fit` wrote")
    predict.add_argument("kernel", help="a kernel fitted in the model (or its model key, e.g. pingpong[peer=1])")
    predict.add_argument("--bytes", type=at_least(0), default=None, help="message size in bytes")
    predict.add_argument("--ranks", type=ranks, default=None, help="number of ranks")
    predict.add_argument("--order", type=ranks, default=None,
                         help="stencil_step and redistribution: the order N of the N x N array")
    predict.add_argument("--np", type=ranks, default=None,
                         help="stencil_step and redistribution: the ranks to build the program's plan on")
    report = sub.add_parser("report", help="write an offline HTML report (plots, tables, CSV) of a results JSON")
    report.add_argument("results", help="the results JSON that `datamotion bench` wrote, or a folder of them")
    report.add_argument("--model", default=None, help="a model JSON to draw (default: fit the results)")
    report.add_argument("--out", required=True, help="the folder for index.html, the plots, results.csv, model.json")
    calibrate = sub.add_parser("calibrate", help="measure the exchange cost model of this MPI and write its file")
    calibrate.add_argument("--np", type=ranks, default=2,
                           help="ranks to launch when not inside an MPI job (default 2)")
    calibrate.add_argument("--quick", action="store_true", help="a small grid of messages (seconds)")
    calibrate.add_argument("--reps", type=ranks, default=None, help="repetitions per timing (default 11, quick 7)")
    calibrate.add_argument("--output", default=None,
                           help="the model file to write (default: where the library looks, see docs/exchange.md)")
    return parser


def kernels_epilog() -> str:
    """The kernels `model predict` knows, by model family, for its --help."""
    from ..measure.fit import KERNEL_MODELS

    formulas = {"piecewise": "T(l) = t0 + l/B per segment (--bytes; --ranks when fitted per rank count)",
                "log2": "T(P) = a log2 P + b (--ranks)",
                "collective": "T(l, P) = (a + b l) log2 P + c + d l (--bytes, --ranks)",
                "allgather": "T(l, P) = c + d P l, l = bytes per rank (--bytes, --ranks)"}
    lines = ["kernels, by model family:"]
    for family, formula in formulas.items():
        names = sorted(k for k, f in KERNEL_MODELS.items() if f == family)
        lines.append(f"  {formula}:\n      {', '.join(names)}")
    return "\n".join(lines)
