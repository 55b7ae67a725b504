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

import argparse
import contextlib
import io
import sys
from typing import List, Optional

from . import launch
from ._files import atomic_write, require_writable_file, require_writable_folder
from .measure.constants import DEFAULT_THREAD_LEVEL, SUITE_NAMES, THREAD_LEVELS

EXIT_ERROR = 1  # a mistake in a file, a path, or a run
EXIT_USAGE = 2  # a mistake on the command line (as argparse)
EXIT_INTERRUPTED = launch.INTERRUPTED  # 128 + SIGINT, as a shell reports it


class CommandError(Exception):
    """A mistake the user can fix, raised alike on every rank that runs the command:
    rank 0 says it in one line, every rank exits with ``status``."""

    def __init__(self, message: str, status: int = EXIT_ERROR):
        super().__init__(message)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake raised as one CommandError line instead of usage text."""

    def error(self, message):
        raise CommandError(f"{message} (see '{self.prog} --help')", EXIT_USAGE)


def _at_least(minimum: int):
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


def _version_text() -> str:
    """datamotion's version and, when it can be read without initialising MPI, the MPI library's."""
    from . import __version__

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


class _VersionAction(argparse.Action):
    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="print the version and the MPI library, then exit")

    def __call__(self, parser, namespace, values, option_string=None):
        if launch.job_rank() in (None, 0):
            print(_version_text())
        raise SystemExit(0)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="datamotion", description="Data-parallel communication on MPI.")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error instead of one line")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                                title="commands (datamotion COMMAND --help for each)")
    ranks = _at_least(1)
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
    verbs = model.add_subparsers(dest="verb", required=True, metavar="VERB", parser_class=_Parser,
                                 title="verbs")
    fit = verbs.add_parser("fit", help="fit every kernel of a results JSON")
    fit.add_argument("results", help="the results JSON that `datamotion bench` wrote")
    fit.add_argument("--out", required=True, help="the model JSON to write")
    predict = verbs.add_parser("predict", help="a kernel's predicted time from a model JSON",
                               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_kernels_epilog())
    predict.add_argument("model", help="the model JSON that `datamotion model fit` wrote")
    predict.add_argument("kernel", help="a kernel fitted in the model (or its model key, e.g. pingpong[peer=1])")
    predict.add_argument("--bytes", type=_at_least(0), default=None, help="message size in bytes")
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


def _rank() -> Optional[int]:
    """This process's rank in COMM_WORLD if MPI runs, else the launcher's, else None (no job)."""
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        return MPI.COMM_WORLD.rank
    return launch.job_rank()


def _fail(message: str, status: int = EXIT_ERROR, prefix: str = "datamotion: error: ") -> None:
    """Ends the command with ``status``: rank 0 (or a process outside any job) says
    ``message`` in one line on stderr, the other ranks say nothing. Status 1 is a
    SystemExit carrying the line, as the interpreter prints it."""
    line = prefix + " ".join(message.split("\n")[:1])
    if _rank() not in (None, 0):
        raise SystemExit(status)
    if status == EXIT_ERROR:
        raise SystemExit(line)
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    raise SystemExit(status)


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
        from .demo import run_demo
        return run_demo()
    if args.command == "bench":
        return _bench(args)
    if args.command == "model":
        with _rank0_prints():
            return _model(args)
    if args.command == "report":
        with _rank0_prints():
            return _report(args)
    if args.command == "calibrate":
        return _calibrate(args)
    from .info import run_info
    return run_info(as_json=args.json)


@contextlib.contextmanager
def _rank0_prints():
    """An offline command run by every rank of a job: only rank 0's output is shown."""
    if _rank() in (None, 0):
        yield
    else:
        with contextlib.redirect_stdout(io.StringIO()):
            yield


def _kernels_epilog() -> str:
    """The kernels `model predict` knows, by model family, for its --help."""
    from .measure.fit import KERNEL_MODELS

    formulas = {"piecewise": "T(l) = t0 + l/B per segment (--bytes; --ranks when fitted per rank count)",
                "log2": "T(P) = a log2 P + b (--ranks)",
                "collective": "T(l, P) = (a + b l) log2 P + c + d l (--bytes, --ranks)",
                "allgather": "T(l, P) = c + d P l, l = bytes per rank (--bytes, --ranks)"}
    lines = ["kernels, by model family:"]
    for family, formula in formulas.items():
        names = sorted(k for k, f in KERNEL_MODELS.items() if f == family)
        lines.append(f"  {formula}:\n      {', '.join(names)}")
    return "\n".join(lines)


def _model(args) -> int:
    import json

    from .measure import fit as fitting
    from .measure import predict as prediction
    from .measure.results import load_model, load_results

    def _r2_text(value) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    if args.verb == "fit":
        try:
            require_writable_file(args.out)
            fitted = fitting.fit_results(load_results(args.results))
            with atomic_write(args.out) as f:
                json.dump(fitted, f, indent=1)
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from None
        for key, entry in sorted(fitted["models"].items()):
            fits = [("", entry["fit"])] if "fit" in entry else [
                (f" at P={rank}", fit) for rank, fit in sorted(entry["fits"].items(), key=lambda kv: int(kv[0]))]
            for where, fit in fits:
                line = f"{key}{where}: {fit.get('formula', entry['model'])}, r2 {_r2_text(fit.get('r2'))}"
                for seg in fit.get("segments", []):
                    bandwidth = seg.get("bandwidth_MBps")
                    line += (f"\n    {seg['start_bytes']}-{seg['end_bytes']} B: t0 {seg['t0_us']:.2f} us, "
                             + (f"{bandwidth:.0f} MB/s" if bandwidth is not None else "no time per byte")
                             + f", r2 {_r2_text(seg.get('r2'))}"
                             + (f" (constrained: {seg['constraint']})" if seg.get("constraint") else ""))
                print(line)
        for key, why in sorted(fitted["skipped"].items()):
            print(f"{key}: skipped ({why})")
        noisy = [name for name, _ in fitting.noise_notes(fitted)]
        if noisy:
            print(f"noise: {len(noisy)} fit(s) with notes on disturbed or noisy times, judged against their "
                  f"measured spread ('noise' in {args.out}): {', '.join(noisy)}")
        for name, flags in fitting.flagged_fits(fitted):
            print(f"warning: {name}: below the quality threshold: {'; '.join(flags)}")
        print(f"wrote {args.out}")
        return 0
    if args.kernel in PROGRAMS:
        return _predict_program(args, load_model)
    if args.np is not None or args.order is not None:
        raise CommandError(f"--np and --order are for the programs ({', '.join(PROGRAMS)}), not {args.kernel}",
                           EXIT_USAGE)
    try:
        result = prediction.prediction(load_model(args.model), args.kernel, size_bytes=args.bytes,
                                       ranks=args.ranks)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    note = f" {result.note()}" if result.note() else ""
    print(f"{args.kernel}: {result.value_us:.3f} us{note}")
    if result.gaps:
        print(f"warning: {args.bytes} B lies inside the unmeasured gap {' and '.join(result.gaps)}: measure sizes "
              "there (a full run) before trusting this")
    if result.flags:
        print(f"warning: the model of {result.kernel} is below the quality threshold: {'; '.join(result.flags)}")
    return 0


PROGRAMS = ("stencil_step", "redistribution")
"""The programs `model predict` prices from their plans (datamotion.measure.suites.programs)."""


def _predict_program(args, load_model) -> int:
    """Every rank of the job builds the program's plan; its messages, gathered on every
    rank, are priced alike (so a mistake is the same on every rank)."""
    if args.order is None:
        raise CommandError(f"{args.kernel} needs --order N (the N x N array)", EXIT_USAGE)
    if _rank() is None:
        raise CommandError(f"{args.kernel} builds its plan on ranks: give --np P", EXIT_USAGE)
    try:
        model = load_model(args.model)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    MPI = _start_mpi(DEFAULT_THREAD_LEVEL)
    from .measure import programs
    from .measure.suites.programs import PROGRAMS as BUILD

    comm = MPI.COMM_WORLD
    program = BUILD[args.kernel](comm, args.order)  # kept until the end: its plan is freed collectively
    everyone = comm.allgather(program[1])
    try:
        if args.kernel == "stencil_step":
            p = programs.stencil_step(model, everyone, comm.allgather(program[2]))
            parts = f"halo {p['halo_us']:.1f} us + compute {p['compute_us']:.1f} us"
        else:
            p = programs.redistribution(model, everyone)
            slow = p["by_rank"][p["slowest_rank"]]
            parts = (f"exchange {slow['exchange_us']:.1f} us + on-node copies {slow['on_node_us']:.1f} us "
                     f"+ pack/unpack {slow['pack_us']:.1f} us + local copies {slow['copy_us']:.1f} us")
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    print(f"{args.kernel} of {args.order} x {args.order} on {comm.size} ranks: {p['total_us']:.1f} us "
          f"(slowest rank {p['slowest_rank']}: {parts})")
    for kernel, notes in sorted(p["warnings"].items()):
        print(f"warning: {kernel}: {'; '.join(notes)}")
    return 0


def _report(args) -> int:
    from ._extras import MissingExtra

    try:
        from .measure import report, results
    except MissingExtra as exc:
        raise CommandError(str(exc)) from None
    try:
        require_writable_folder(args.out)
        merged = report.load_folder(args.results)
        fitted = results.load_model(args.model) if args.model else None
        index, plots = report.write_report_counted(merged, args.out, fitted)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {index} ({plots} plots)")
    return 0


def _start_mpi(thread_level: str):
    """Initialises MPI at ``thread_level`` (one of THREAD_LEVELS) unless this
    process already runs MPI (a program that imported mpi4py.MPI before calling
    main()); returns mpi4py's MPI module. MPI4PY_RC_THREAD_LEVEL overrides
    mpi4py.rc, so the level is put in both."""
    import os

    if "mpi4py.MPI" not in sys.modules:
        import mpi4py
        mpi4py.rc.thread_level = thread_level
        os.environ["MPI4PY_RC_THREAD_LEVEL"] = thread_level
    from mpi4py import MPI
    return MPI


def _bench(args) -> int:
    import os

    requested = args.thread_level or os.environ.get("MPI4PY_RC_THREAD_LEVEL") or DEFAULT_THREAD_LEVEL
    if requested not in THREAD_LEVELS:
        raise CommandError(f"MPI4PY_RC_THREAD_LEVEL={requested!r} is not one of {', '.join(THREAD_LEVELS)}")
    MPI = _start_mpi(requested)
    provided = {getattr(MPI, f"THREAD_{level.upper()}"): level for level in THREAD_LEVELS}[MPI.Query_thread()]

    from .measure.results import write_results
    from .measure.suites import run_suites

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
        problem = _written(lambda: write_results(doc, args.out), args.out)
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


def _written(write, path: str) -> Optional[str]:
    """Runs ``write()``; returns None, or the one line saying why ``path`` was not written."""
    try:
        write()
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    return None


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


def _calibrate(args) -> int:
    import os

    MPI = _start_mpi("single")  # measured at MPI_THREAD_SINGLE, as programs run

    from . import _core, calibrate

    comm = MPI.COMM_WORLD
    if comm.size < 2:
        raise CommandError("calibrate needs 2 ranks that exchange messages "
                           "(run it as `datamotion calibrate --np 2` or under mpiexec -n 2)")
    # Before measuring: a path that cannot be written fails now, on every rank alike.
    problem, path = None, None
    if comm.rank == 0:
        path = args.output or _core.exchange_model_path()
        try:
            if not path:
                raise OSError("no model path: set DM_EXCHANGE_MODEL, XDG_CACHE_HOME or HOME, or give --output")
            if not args.output:  # the cache folder is ours to make
                os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            require_writable_file(path)
        except OSError as exc:
            problem = str(exc)
    problem = comm.bcast(problem, root=0)
    if problem:
        raise CommandError(problem)
    # The pairs that exchange: rank 0 with the next rank of its node, and with the
    # first rank of another node, where the job has them; the other ranks wait.
    pairs = calibrate.pairs_by_locality(comm)
    points = calibrate.grid_points(args.quick)
    say = (lambda line: print(line, flush=True)) if comm.rank == 0 else None
    measured = []  # (across, peer, built-in model, measurements), on rank 0
    for across, peer in pairs:
        pair = comm.Split(0 if comm.rank in (0, peer) else MPI.UNDEFINED, comm.rank)
        if pair == MPI.COMM_NULL:
            continue
        if say:
            say(f"calibrating the exchange {calibrate.locality(across)} on ranks 0 and {peer} of {comm.size}: "
                f"{len(points)} messages of {points[0][0] * points[0][1]} B to "
                f"{max(b * r for b, r in points) >> 10} KiB, every way")
        base, measurements = calibrate.measure(pair, quick=args.quick, reps=args.reps, progress=say)
        pair.Free()
        measured.append((across, peer, base, measurements))
    if comm.rank == 0:
        # Lines of a locality this job does not have keep the model in use.
        model = calibrate.Model.parse(_core.exchange_model())
        for across, peer, base, measurements in measured:
            fitted = calibrate.fit(model, measurements, across)
            model = calibrate.refine(fitted, measurements, across=across)
            rows = calibrate.evaluate(model, measurements, across)
            print(f"{calibrate.locality(across)} (ranks 0 and {peer}):")
            print(calibrate.table(rows, {"model": model, "lsq": fitted, "built-in": base}, across))
            share = {name: calibrate.within(calibrate.evaluate(m, measurements, across))
                     for name, m in (("model", model), ("least squares alone", fitted), ("built-in", base))}
            print(f"chosen ways within {calibrate.TARGET_RATIO}x of the best measured, of {len(rows)} messages: "
                  + ", ".join(f"{name} {value:.0%}" for name, value in share.items()))
        if len(measured) < 2:
            missing = calibrate.locality(not measured[0][0])
            print(f"the lines {missing} are kept from the model in use ({_core.exchange_model_source()}): "
                  f"this job has no such pair of ranks")
        text = model.text()
        if not _core.exchange_model_accepts(text):  # the library would ignore it: show it, write nothing
            sys.stderr.write(text)
            problem = "the fitted model (above) is not one the library reads; nothing written"
        else:
            print(text, end="")
            problem = _written(lambda: _write_text(path, text), path)
            if not problem:
                print(f"wrote {path}")
    problem = comm.bcast(problem, root=0)  # every rank ends alike
    if problem:
        raise CommandError(problem)
    return 0


def _write_text(path: str, text: str) -> None:
    with atomic_write(path) as f:
        f.write(text)


if __name__ == "__main__":
    raise SystemExit(main())
