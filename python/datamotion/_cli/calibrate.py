"""``datamotion calibrate``: measure the exchange cost model of this MPI and write the
model file the library reads (the measuring and fitting: :mod:`datamotion.measure.calibrate`)."""

from __future__ import annotations

import sys

from .._files import atomic_write, require_writable_file
from .common import CommandError, start_mpi, written


def run(args) -> int:
    """``datamotion calibrate``, on every rank of the job: rank 0 measures with its partners,
    fits and writes."""
    import os

    MPI = start_mpi("single")  # measured at MPI_THREAD_SINGLE, as programs run

    from .. import _core
    from ..measure import calibrate

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
            problem = written(lambda: _write_text(path, text), path)
            if not problem:
                print(f"wrote {path}")
    problem = comm.bcast(problem, root=0)  # every rank ends alike
    if problem:
        raise CommandError(problem)
    return 0


def _write_text(path: str, text: str) -> None:
    with atomic_write(path) as f:
        f.write(text)
