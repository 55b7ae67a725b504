"""The ``datamotion`` command.

    datamotion demo [--np N]    show what the library does, on N local ranks (default 4)
    datamotion info [--np N]    print the provenance of this installation and MPI
    datamotion bench SUITE... [--np N] [--quick] [--validate] [--thread-level L] --out results.json
                                measure the machine (suites: pt2pt, collectives, local, patterns,
                                cm5, paragon, pshift, redist, cvl, or all)
    datamotion model fit results.json --out model.json
    datamotion model predict model.json KERNEL [--bytes B] [--ranks P]
    datamotion report results.json [--model model.json] --out DIR
                                an offline HTML report: plots, tables, CSV
    datamotion calibrate [--np N] [--quick] [--output PATH]
                                measure the exchange cost model of this MPI and write
                                the model file the library reads (docs/exchange.md)

Outside an MPI job a command starts itself on N local ranks with the MPI's own
launcher; inside one (``mpiexec -n 8 datamotion demo``) it runs in place.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from . import launch
from ._files import atomic_write, require_writable_file, require_writable_folder
from .measure.constants import DEFAULT_THREAD_LEVEL, SUITE_NAMES, THREAD_LEVELS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="datamotion", description="Data-parallel communication on MPI.")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="show what the library does on local ranks")
    demo.add_argument("--np", type=int, default=4, help="ranks to launch when not inside an MPI job (default 4)")
    info = sub.add_parser("info", help="print provenance: library, MPI, ranks, threads, clocks, build")
    info.add_argument("--np", type=int, default=None, help="ranks to launch (default: run in this process)")
    info.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench = sub.add_parser("bench", help="measure the machine and write a results JSON")
    bench.add_argument("suites", nargs="+", metavar="SUITE", choices=SUITE_NAMES + ("all",),
                       help=f"one or more of {', '.join(SUITE_NAMES)}, or all")
    bench.add_argument("--np", type=int, default=2, help="ranks to launch when not inside an MPI job (default 2)")
    bench.add_argument("--quick", action="store_true", help="fewer sizes and repetitions (about a minute)")
    bench.add_argument("--validate", action="store_true", help="check every received byte")
    bench.add_argument("--thread-level", choices=THREAD_LEVELS, default=None,
                       help="the MPI thread level to initialise MPI at (default: $MPI4PY_RC_THREAD_LEVEL if set, "
                            f"else {DEFAULT_THREAD_LEVEL}, what a C program calling MPI_Init gets)")
    bench.add_argument("--out", required=True, help="the results JSON to write")
    model = sub.add_parser("model", help="fit models to benchmark results, and predict from them")
    verbs = model.add_subparsers(dest="verb", required=True)
    fit = verbs.add_parser("fit", help="fit every kernel of a results JSON")
    fit.add_argument("results")
    fit.add_argument("--out", required=True, help="the model JSON to write")
    predict = verbs.add_parser("predict", help="a kernel's predicted time from a model JSON",
                               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_kernels_epilog())
    predict.add_argument("model", help="the model JSON that `datamotion model fit` wrote")
    predict.add_argument("kernel", help="a kernel fitted in the model (or its model key, e.g. pingpong[peer=1])")
    predict.add_argument("--bytes", type=int, default=None, help="message size in bytes")
    predict.add_argument("--ranks", type=int, default=None, help="number of ranks")
    report = sub.add_parser("report", help="write an offline HTML report (plots, tables, CSV) of a results JSON")
    report.add_argument("results", help="the results JSON that `datamotion bench` wrote")
    report.add_argument("--model", default=None, help="a model JSON to draw (default: fit the results)")
    report.add_argument("--out", required=True, help="the folder for index.html, the plots, results.csv, model.json")
    calibrate = sub.add_parser("calibrate", help="measure the exchange cost model of this MPI and write its file")
    calibrate.add_argument("--np", type=int, default=2, help="ranks to launch when not inside an MPI job (default 2)")
    calibrate.add_argument("--quick", action="store_true", help="a small grid of messages (seconds)")
    calibrate.add_argument("--reps", type=int, default=None, help="repetitions per timing (default 11, quick 7)")
    calibrate.add_argument("--output", default=None,
                           help="the model file to write (default: where the library looks, see docs/exchange.md)")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    nprocs = getattr(args, "np", None)  # `model` has none: it runs offline
    if nprocs is not None and nprocs < 1:
        raise SystemExit("datamotion: --np must be at least 1")
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
        return _model(args)
    if args.command == "report":
        return _report(args)
    if args.command == "calibrate":
        return _calibrate(args)
    from .info import run_info
    return run_info(as_json=args.json)


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
    from .measure.results import load_model

    def _r2_text(value) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    if args.verb == "fit":
        try:
            require_writable_file(args.out)
            with open(args.results) as f:
                fitted = fitting.fit_results(json.load(f))
            with atomic_write(args.out) as f:
                json.dump(fitted, f, indent=1)
        except (ValueError, OSError) as exc:
            raise SystemExit(f"datamotion model fit: {exc}") from None
        for key, entry in sorted(fitted["models"].items()):
            fits = [("", entry["fit"])] if "fit" in entry else [
                (f" at P={rank}", fit) for rank, fit in sorted(entry["fits"].items(), key=lambda kv: int(kv[0]))]
            for where, fit in fits:
                line = f"{key}{where}: {fit.get('formula', entry['model'])}, r2 {_r2_text(fit.get('r2'))}"
                for seg in fit.get("segments", []):
                    bandwidth = seg.get("bandwidth_MBps")
                    line += (f"\n    {seg['start_bytes']}-{seg['end_bytes']} B: t0 {seg['t0_us']:.2f} us, "
                             + (f"{bandwidth:.0f} MB/s" if bandwidth is not None else "no time per byte")
                             + f", r2 {_r2_text(seg.get('r2'))}")
                print(line)
        for key, why in sorted(fitted["skipped"].items()):
            print(f"{key}: skipped ({why})")
        for name, flags in fitting.flagged_fits(fitted):
            print(f"warning: {name}: below the quality threshold: {'; '.join(flags)}")
        print(f"wrote {args.out}")
        return 0
    try:
        if args.bytes is not None and args.bytes < 0:
            raise ValueError(f"--bytes must be non-negative, got {args.bytes}")
        if args.ranks is not None and args.ranks < 1:
            raise ValueError(f"--ranks must be at least 1, got {args.ranks}")
        result = prediction.prediction(load_model(args.model), args.kernel, size_bytes=args.bytes,
                                       ranks=args.ranks)
    except ValueError as exc:
        raise SystemExit(f"datamotion model: error: {exc}") from None
    note = f" {result.note()}" if result.extrapolated else ""
    print(f"{args.kernel}: {result.value_us:.3f} us{note}")
    if result.flags:
        print(f"warning: the model of {result.kernel} is below the quality threshold: {'; '.join(result.flags)}")
    return 0


def _report(args) -> int:
    from ._extras import MissingExtra

    try:
        from .measure import report, results
    except MissingExtra as exc:
        raise SystemExit(f"datamotion report: error: {exc}") from None
    try:
        require_writable_folder(args.out)
        merged = report.load_folder(args.results)
        fitted = results.load_model(args.model) if args.model else None
        index, plots = report.write_report_counted(merged, args.out, fitted)
    except (ValueError, OSError) as exc:
        raise SystemExit(f"datamotion report: {exc}") from None
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
        raise SystemExit(f"datamotion bench: MPI4PY_RC_THREAD_LEVEL={requested!r} is not one of {THREAD_LEVELS}")
    MPI = _start_mpi(requested)
    provided = {getattr(MPI, f"THREAD_{level.upper()}"): level for level in THREAD_LEVELS}[MPI.Query_thread()]

    from .measure.results import write_results
    from .measure.suites import run_suites

    comm = MPI.COMM_WORLD
    if comm.size < 2:
        raise SystemExit("datamotion bench: needs at least 2 ranks (use --np 2 or more)")
    # Before measuring: a path that cannot be written fails now, on every rank alike.
    problem = None
    if comm.rank == 0:
        try:
            require_writable_file(args.out)
        except OSError as exc:
            problem = str(exc)
    problem = comm.bcast(problem, root=0)
    if problem:
        raise SystemExit(f"datamotion bench: {problem}" if comm.rank == 0 else 1)
    if comm.rank == 0:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(SpinnerColumn(), TextColumn("{task.description} {task.completed} points"),
                      TimeElapsedColumn()) as bar:
            task = bar.add_task(f"measuring {' '.join(args.suites)} on {comm.size} ranks", total=None)
            doc = run_suites(args.suites, comm, quick=args.quick, validate=args.validate,
                             progress=lambda: bar.advance(task))
        doc["thread_level_requested"] = requested  # provenance.thread_level is what MPI provides
        if provided != requested:
            doc["warnings"].append(f"thread level {requested} was requested, but MPI provides {provided} (MPI was "
                                   "initialised before datamotion bench started, or offers no other level)")
        write_results(doc, args.out)
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
        print("\n".join(summary + [f"wrote {args.out}"] + [f"warning: {w}" for w in doc["warnings"]]))
    else:
        run_suites(args.suites, comm, quick=args.quick, validate=args.validate)
    return 0


def _calibrate(args) -> int:
    import os

    MPI = _start_mpi("single")  # measured at MPI_THREAD_SINGLE, as programs run

    from . import _core, calibrate

    comm = MPI.COMM_WORLD
    if comm.size < 2:
        raise SystemExit("datamotion calibrate: needs 2 ranks that exchange messages "
                         "(run it as `datamotion calibrate --np 2` or under mpiexec -n 2)")
    if args.reps is not None and args.reps < 1:
        raise SystemExit("datamotion calibrate: --reps must be at least 1" if comm.rank == 0 else 1)
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
        raise SystemExit(f"datamotion calibrate: {problem}" if comm.rank == 0 else 1)
    # Ranks 0 and 1 exchange; any others wait.
    pair = comm.Split(0 if comm.rank < 2 else MPI.UNDEFINED, comm.rank)
    if pair == MPI.COMM_NULL:
        comm.Barrier()
        return 0
    points = calibrate.grid_points(args.quick)
    say = (lambda line: print(line, flush=True)) if comm.rank == 0 else None
    if say:
        say(f"calibrating the exchange on ranks 0 and 1 of {comm.size}: {len(points)} messages "
            f"of {points[0][0] * points[0][1]} B to {max(b * r for b, r in points) >> 10} KiB, every way")
    base, measurements = calibrate.measure(pair, quick=args.quick, reps=args.reps, progress=say)
    pair.Free()
    if comm.rank == 0:
        fitted = calibrate.fit(base, measurements)
        model = calibrate.refine(fitted, measurements)
        text = model.text()
        if not _core.exchange_model_accepts(text):  # the library would ignore it: say so, write nothing
            comm.Barrier()
            raise SystemExit(f"datamotion calibrate: the fitted model is not one the library reads:\n{text}")
        rows = calibrate.evaluate(model, measurements)
        print(calibrate.table(rows, {"model": model, "lsq": fitted, "built-in": base}))
        share = {name: calibrate.within(calibrate.evaluate(m, measurements))
                 for name, m in (("model", model), ("least squares alone", fitted), ("built-in", base))}
        print(f"chosen ways within {calibrate.TARGET_RATIO}x of the best measured, of {len(rows)} messages: "
              + ", ".join(f"{name} {value:.0%}" for name, value in share.items()))
        print(text, end="")
        with atomic_write(path) as f:
            f.write(text)
        print(f"wrote {path}")
    comm.Barrier()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
