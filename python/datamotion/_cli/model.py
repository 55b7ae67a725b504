"""``datamotion model``: fit models to results (``fit``), and predict a kernel's or a
program's time from them (``predict``)."""

from __future__ import annotations

from ..measure.constants import DEFAULT_THREAD_LEVEL
from .._files import atomic_write, require_writable_file
from .common import EXIT_USAGE, CommandError, current_rank, start_mpi


def run(args) -> int:
    """``datamotion model fit|predict ...``, offline (the job's rank 0 alone prints: datamotion.cli)."""
    import json

    from ..measure import fit as fitting
    from ..measure import predict as prediction
    from ..measure.results import load_model, load_results

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
    if current_rank() is None:
        raise CommandError(f"{args.kernel} builds its plan on ranks: give --np P", EXIT_USAGE)
    try:
        model = load_model(args.model)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    MPI = start_mpi(DEFAULT_THREAD_LEVEL)
    from ..measure import programs
    from ..measure.suites.programs import PROGRAMS as BUILD

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
