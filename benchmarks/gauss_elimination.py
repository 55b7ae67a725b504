"""Gaussian elimination predicted from the fitted machine model, against the real program.

    python benchmarks/gauss_elimination.py --np 2 [--sizes 64 128 256 512 1024] [--reps 5] [--rounds R]
                                           [--quick] [--no-bind] [--binary PATH] [--out results.json]

The CM-5 paper's section 8 (its Figure 16, Tables 6 and 7), on this machine:

1. compiles examples/c/gauss_elimination.c with the mpicc beside this Python,
   at the optimisation level of the Release build of the kernels
   (-O3 -DNDEBUG), into build/gauss_elimination/ (a temporary folder where the
   checkout cannot be written; --binary takes one built elsewhere);
2. measures the primitives the program uses on --np ranks
   (datamotion.measure.gauss.measure_primitives, in an mpiexec job of this script,
   with mpi4py initialising MPI_THREAD_SINGLE like the program's MPI_Init);
3. runs the program on the same ranks (--reps timed runs per size), each rank
   bound to the same core as in 2;
4. repeats 2 and 3 --rounds times (10, with --quick 30), alternating, so both
   see the same machine, printing each round's own estimate against its own
   runs; then pools the samples of all rounds, fits the primitives
   (datamotion.measure.gauss.primitive_model) and prints the paper's Table 7
   (estimated against measured, medians; the error judged against the
   paper's 10 % is the median over the rounds of each round's own error) and
   Table 6 (cost per iteration).

With --out it writes a datamotion.bench/1 results document: an entry
{"kernel": "gauss_elimination", "params": {"ranks": P}, "rows": [...]}
followed by the pooled primitive entries (allreduce, bcast per root, vector).
Run it from outside MPI: it starts its own mpiexec jobs. On a machine shared
with other jobs, run it under `chrt -r 1` (see docs/predict.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np

from datamotion._files import atomic_write, require_writable_file
from datamotion.launch import MPICH_THROTTLE as QUIET  # ranks may outnumber cores: no busy-polling
from datamotion.launch import find_mpiexec, inside_mpi_job, launcher_flags
from datamotion.measure import gauss as predict
from datamotion.measure.cores import cpu_snapshot, others_share
from datamotion.measure.memory import machine_caches
from datamotion.measure.results import noisy_warnings

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "examples" / "c" / "gauss_elimination.c"
CFLAGS = ["-std=c99", "-O3", "-DNDEBUG"]  # CMake's Release flags for GCC and Clang
ROUNDS, QUICK_ROUNDS = 10, 30
"""Rounds of measuring and running. Table 7's error is the median over the rounds of each
round's error: on a shared host a round's primitives and runs sometimes see different
speeds of the same core, and the median needs enough rounds to set those aside (a
quick round takes about 2 s on 2 ranks)."""


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--np", type=int, default=2, help="ranks (default 2)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 128, 256, 512, 1024], help="matrix orders N")
    parser.add_argument("--reps", type=int, default=5, help="timed runs of the program per size and round")
    parser.add_argument("--rounds", type=int, help=f"alternations of measuring and running (default {ROUNDS}, "
                        f"with --quick {QUICK_ROUNDS})")
    parser.add_argument("--quick", action="store_true",
                        help=f"fewer repetitions of each primitive, and {QUICK_ROUNDS} shorter rounds")
    parser.add_argument("--binary", help="an already built gauss_elimination (default: compile it)")
    parser.add_argument("--no-bind", action="store_true",
                        help="do not bind rank r to a core (binding keeps each rank on the same core in the "
                             "measurement and in the program)")
    parser.add_argument("--out", help="write the results document (datamotion.bench/1) here")
    parser.add_argument("--measure-to", help=argparse.SUPPRESS)  # inside the mpiexec job: measure, write here
    args = parser.parse_args(argv)
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else ROUNDS
    if args.np < 1 or args.reps < 1 or args.rounds < 1 or min(args.sizes) < 1:
        parser.error("--np, --reps, --rounds and every size must be at least 1")
    return args


# ---------------------------------------------------------------------------
# Inside the mpiexec job: measure the primitives
# ---------------------------------------------------------------------------


def measure_job(args) -> int:
    from mpi4py import MPI

    doc = predict.measure_primitives(MPI.COMM_WORLD, args.sizes, quick=args.quick)
    if MPI.COMM_WORLD.rank == 0:
        with atomic_write(args.measure_to) as f:
            json.dump(doc, f)
    return 0


# ---------------------------------------------------------------------------
# Outside MPI: compile, alternate measuring and running, report
# ---------------------------------------------------------------------------


def find_mpicc() -> str:
    explicit = os.environ.get("MPICC")
    found = explicit or shutil.which("mpicc", path=os.path.dirname(sys.executable)) or shutil.which("mpicc")
    if not found:
        raise SystemExit("no mpicc found beside this Python or on PATH; set MPICC")
    return found


def program_folder(root: Path = ROOT) -> Path:
    """Where the program is compiled: the checkout's build/gauss_elimination/, or,
    where the checkout cannot be written (a read-only tree), a fresh temporary folder."""
    folder = root / "build" / "gauss_elimination"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".writable"
        probe.touch()
        probe.unlink()
        return folder
    except OSError:
        return Path(tempfile.mkdtemp(prefix="datamotion-gauss-"))


def compile_program() -> dict:
    mpicc = find_mpicc()
    out = program_folder() / "gauss_elimination"
    command = [mpicc, *CFLAGS, str(SOURCE), "-o", str(out), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"compiling {SOURCE.name} failed:\n{' '.join(command)}\n{done.stderr}")
    return {"binary": str(out), "compile": command[1:], "compiler": os.path.basename(mpicc)}


def bind_flags(mpiexec: str) -> list:
    """The launcher's flags that bind each rank to one core, in rank order."""
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    if "Open MPI" in text or "OpenRTE" in text:
        return ["--bind-to", "core"]
    if "HYDRA" in text.upper():
        return ["-bind-to", "core"]
    print("warning: unknown launcher, ranks are not bound to cores", file=sys.stderr)
    return []


def job(mpiexec: str, nprocs: int, command, env, bind=()) -> str:
    full = [mpiexec, "-n", str(nprocs), *launcher_flags(mpiexec, nprocs), *bind, *command]
    done = subprocess.run(full, capture_output=True, text=True, env=env, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(full)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def pooled(rows_by_round):
    """One row from the same row of every round: the samples of all of them."""
    first = dict(rows_by_round[0])
    us = np.sort(np.concatenate([np.asarray(r["samples_us"], dtype=float) for r in rows_by_round]))
    first.update({"median_us": float(np.median(us)), "min_us": float(us[0]), "mean_us": float(us.mean()),
                  "p05_us": float(np.percentile(us, 5)), "p95_us": float(np.percentile(us, 95)),
                  "reps": int(us.size), "samples_us": [float(x) for x in us],
                  "median_by_round_us": [float(r["median_us"]) for r in rows_by_round]})
    for key in ("ci95_us", "rank", "median_by_rank_us", "python_median_us", "python_root0_median_us"):
        first.pop(key, None)
    return first


def pool_documents(docs):
    """The measured primitives of every round as one results document."""
    out = dict(docs[0])
    entries = []
    for index, entry in enumerate(docs[0]["results"]):
        rows = [pooled([d["results"][index]["rows"][i] for d in docs]) for i in range(len(entry["rows"]))]
        entries.append({**entry, "rows": rows})
    out["results"] = entries
    # Each round's noisy-row warnings are about its own rows: judge the pooled rows once instead.
    per_round = {w for d in docs for w in d.get("warnings", []) if " rows noisy, " not in w}
    out["warnings"] = sorted(per_round) + noisy_warnings(entries)
    return out


def round_errors(by_round, n):
    """100 (estimated - measured) / measured of every round alone (its own primitives and runs)."""
    return [100.0 * (r[n][0] - r[n][1]) / r[n][1] for r in by_round if n in r and r[n][1] > 0]


TOLERANCE_PCT = 10.0  # the paper's "within 10 %"


LOADED_SHARE = 0.05  # other work's share of the cores' time above which a run is loaded


def loaded(load_before: float, load_after: float, cores: int, others: Optional[float] = None) -> bool:
    """Other jobs shared the machine: other work (processes not this run's, or the
    hypervisor's steal) took over LOADED_SHARE of the cores' time during the run
    (``others``, from measure.cores.others_share); where that is unknown, a load
    average above half the cores, before or after (which this run's own ranks raise)."""
    if others is not None:
        return others > LOADED_SHARE
    return max(load_before, load_after) > 0.5 * cores


def verdict(rows, by_round, load, cores: int, others: Optional[float] = None) -> str:
    """One line: whether every size is within TOLERANCE_PCT, how far the worst one is
    off, and, on a loaded machine, that the load is why the numbers cannot be trusted."""
    worst = max(rows, key=lambda r: abs(r["error_pct"]))
    spread = [e for r in rows for e in round_errors(by_round, r["n"])]
    within = all(abs(r["error_pct"]) <= TOLERANCE_PCT for r in rows)
    text = (f"{'within' if within else 'NOT within'} +-{TOLERANCE_PCT:.0f} % at every size: the worst is "
            f"N={worst['n']} at {worst['error_pct']:+.1f} %")
    if spread:
        text += f"; rounds one by one span {min(spread):+.1f} .. {max(spread):+.1f} %"
    if others is not None:
        text += f"; other work took {100 * others:.1f} % of the {cores} cores' time during the run"
    text += f"; load average {load[0]:.2f} before, {load[1]:.2f} after, on {cores} cores"
    if loaded(load[0], load[1], cores, others):
        text += (" -- LOADED: other jobs shared the cores, so the measured times include their time slices "
                 "and the errors say how far off a loaded machine is, not how good the model is")
    return text


def by_rounds(rows, by_round):
    """Table 7's rows: the pooled estimate and measured median (every round's samples
    together, which Table 6 breaks down, and their error as pooled_error_pct), judged by
    error_pct, the median over the rounds of each round's own error. A round's
    primitives and its runs are seconds apart, so they see the same machine; the median
    over rounds sets aside the rounds in which the machine changed between the two (on
    a shared host the speed of a core changes in bursts of milliseconds to seconds),
    which pooling mixes in."""
    out = []
    for r in rows:
        errors = round_errors(by_round, r["n"])
        out.append({**r, "pooled_error_pct": r["error_pct"], "error_pct": float(np.median(errors)),
                    "round_errors_pct": errors})
    return out


def table7(rows, reps_total):
    print(f"\nGaussian elimination, elimination phase, {rows[0]['ranks']} rank(s): estimated against measured "
          f"(medians over all rounds; measured over {reps_total} runs per size); error: the median over the "
          f"{len(rows[0]['round_errors_pct'])} rounds of each round's own error")
    print(f"{'matrix':>12} {'estimated ms':>13} {'measured ms':>12} {'error %':>8}   "
          f"{'rounds: [min, max] %':<24}{'error of the pooled medians %'}")
    for r in rows:
        e = r["round_errors_pct"]
        print(f"{r['n']:>5} x {r['n'] + 1:<5} {r['predicted_ms']:>13.3f} {r['measured_ms']:>12.3f} "
              f"{r['error_pct']:>+8.1f}   {f'[{min(e):+.1f}, {max(e):+.1f}]':<24}{r['pooled_error_pct']:+.1f}")
    print("(a round's error: its estimate from its own primitives against its own runs' median)")


def table6(rows, predictions):
    print("\nCost per iteration (microseconds), summed over the N iterations and divided by N")
    head = "".join(f"{'%d x %d' % (r['n'], r['n'] + 1):>14}" for r in rows)
    print(f"{'operation':<44}{head}")
    lines = [
        ("double reduction, MPI_Allreduce MAX (8 B)", "reduce_double_us"),
        ("integer reduction, MPI_Allreduce MAX (as 8 B)", "reduce_int_us"),
        ("broadcast of the pivot row, (N+1)*8 B", "bcast_us"),
        ("computation (slowest rank)", "compute_us"),
    ]
    for label, key in lines:
        print(f"{label:<44}" + "".join(f"{r[key]:>14.2f}" for r in rows))
    for label, key in (("  of which pivot search", "search"), ("  of which multipliers", "multipliers"),
                       ("  of which row updates (axpy)", "update")):
        print(f"{label:<44}" + "".join(f"{p['per_iteration_us'][key]:>14.2f}" for p in predictions))
    print(f"{'time per iteration':<44}" + "".join(f"{r['iteration_us']:>14.2f}" for r in rows))
    print(f"{'estimated time (ms) = iterations x above':<44}" + "".join(f"{r['predicted_ms']:>14.3f}" for r in rows))


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.measure_to:
        return measure_job(args)
    if inside_mpi_job():
        raise SystemExit("run this script without mpiexec: it starts its own jobs (--np ranks)")
    if args.out:
        try:
            require_writable_file(args.out)  # before minutes of measuring
        except OSError as exc:
            raise SystemExit(f"gauss_elimination: {exc}") from None
    program = {"binary": args.binary} if args.binary else compile_program()
    mpiexec = find_mpiexec()
    bind = [] if args.no_bind else bind_flags(mpiexec)
    env = dict(os.environ)
    for key, value in QUIET.items():
        env.setdefault(key, value)
    measure_env = dict(env)
    measure_env.setdefault("MPI4PY_RC_THREAD_LEVEL", "single")  # the program calls MPI_Init
    sizes = list(dict.fromkeys(args.sizes))
    load = [os.getloadavg()[0]]
    started = cpu_snapshot()
    docs, runs, by_round = [], {n: [] for n in sizes}, []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            path = os.path.join(tmp, f"primitives{round_}.json")
            job(mpiexec, args.np, [sys.executable, os.path.abspath(__file__), "--measure-to", path, "--sizes",
                                   *map(str, sizes), *(["--quick"] if args.quick else [])], measure_env, bind)
            with open(path) as f:
                docs.append(json.load(f))
            out = job(mpiexec, args.np, [program["binary"], *map(str, sizes), "--reps", str(args.reps)], env, bind)
            records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            for record in records:
                runs[record["n"]].extend(record["samples_ms"])
            # This round alone, side by side: its primitives' prediction and its runs' median.
            alone = predict.gauss_rows(predict.primitive_model(docs[-1]), records)
            by_round.append({r["n"]: (r["predicted_ms"], r["measured_ms"]) for r in alone})
            print(f"round {round_ + 1}/{args.rounds}: " + ", ".join(
                f"N={r['n']} {r['predicted_ms']:.3f}/{r['measured_ms']:.3f} ms" for r in alone)
                + " (estimated/measured)", file=sys.stderr)
    load.append(os.getloadavg()[0])
    others = others_share(started, cpu_snapshot(), os.cpu_count() or 1)
    primitives = pool_documents(docs)
    model = predict.primitive_model(primitives)
    measured = [{"n": n, "ranks": args.np, "median_ms": float(np.median(runs[n]))} for n in sizes]
    rows = by_rounds(predict.gauss_rows(model, measured), by_round)
    predictions = [predict.gauss_elimination(model, n, args.np) for n in sizes]

    line = predictions[0]["primitives"]
    print(f"primitives at {args.np} rank(s), medians over {args.rounds} round(s): allreduce 8 B "
          f"{line['reduce_double_us']:.2f} us; vector a=s*b+c float64: t0 {line['vector_t0_us'] * 1e3:.1f} ns, "
          f"R_inf {line['vector_rinf_mflops']:.0f} Mflop/s, N_1/2 {line['vector_nhalf']:.1f}; bcast "
          + ", ".join(f"{p['primitives']['bcast_bytes']} B {p['primitives']['bcast_us']:.2f} us" for p in predictions))
    sched = primitives["provenance"].get("scheduling", {})
    if loaded(load[0], load[1], os.cpu_count() or 1, others) and sched.get("policy") not in ("SCHED_FIFO", "SCHED_RR"):
        primitives["warnings"].append(
            ("load average {:.1f}".format(max(load)) if others is None else
             f"other work took {100 * others:.1f} % of the cores' time")
            + f" on {os.cpu_count()} cores around the run: other jobs share the machine "
            "(run under `chrt -r 1` to shield the run, see docs/predict.md)")
    for warning in primitives.get("warnings", []):
        print(f"warning: {warning}")
    table7(rows, args.reps * args.rounds)
    print(verdict(rows, by_round, load, os.cpu_count() or 1, others))
    table6(rows, predictions)
    for kernel, unit in predict.GEOMETRY_KERNELS.items():
        key = f"{kernel}_ns_per_{unit}_by_iteration"
        if key in line:
            print(f"{kernel.replace('_', ' ')} at the program's geometry, ns per {unit} over the iterations: "
                  + ", ".join(f"N={p['n']}: {min(e):.3f} .. {max(e):.3f}" for p in predictions
                              for e in [p["primitives"].get(key, [math.nan])]))
    if "row_update_levels_bytes" in line:
        print(f"row update: {line['row_update_ns_per_element_in_cache']:.3f} ns per element in cache, "
              + ", ".join(f"N={p['n']}: {p['primitives']['row_update_ns_per_element_at_block']:.3f} ns at its block"
                          for p in predictions)
              + f"; rate changes at {', '.join(f'{b / 1024:.0f} KiB' for b in line['row_update_levels_bytes']) or 'none found'} "
              + "(machine: " + ", ".join(f"L{c['level']} {c['bytes'] // 1024} KiB" for c in machine_caches()) + ")")

    if args.out:
        program["command"] = ["mpiexec", "-n", str(args.np), *bind, os.path.basename(program["binary"]),
                              *map(str, sizes), "--reps", str(args.reps)]
        # The verdict travels with the entry: the report's Table 7 says when the run was loaded.
        gauss = {"kernel": "gauss_elimination", "rows": rows, "params": {
            "ranks": args.np, "others_share": others,
            "loaded": loaded(load[0], load[1], os.cpu_count() or 1, others),
            "verdict": verdict(rows, by_round, load, os.cpu_count() or 1, others)}}
        doc = {"schema": primitives["schema"], "provenance": primitives["provenance"], "quick": args.quick,
               "validated": primitives.get("validated", False), "warnings": primitives.get("warnings", []),
               "results": [gauss, *primitives["results"]], "program": program, "rounds": args.rounds,
               "load_average": {"before": load[0], "after": load[1]}, "others_share": others,
               "measured_samples_ms": {str(n): runs[n] for n in sizes},
               "by_round": [{str(n): {"predicted_ms": p, "measured_ms": m} for n, (p, m) in r.items()}
                            for r in by_round]}
        with atomic_write(args.out) as f:
            json.dump(doc, f, indent=1)
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
