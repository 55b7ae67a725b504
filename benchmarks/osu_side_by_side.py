"""datamotion's kernels beside OSU 7.4's benchmarks, in one run.

    python benchmarks/osu_side_by_side.py [--osu-bin DIR] [--rounds 3] [--quick]

On 2 ranks at MPI_THREAD_SINGLE, round by round (each round: ours, then the
reference), it measures

  latency    8 B, 1 KiB, 64 KiB, 1 MiB   our ping-pong / osu_latency
  bandwidth  8 B, 64 KiB, 1 MiB, 4 MiB   our stream (window 64) / osu_bw
  barrier                                our barrier / osu_barrier
  allreduce  8 B, 1 KiB                  our allreduce / osu_allreduce

and prints the median over rounds of each side beside the other, and ours / OSU
(for bandwidth > 1 means we read higher; for times < 1 means we read faster).
Ours: the kernels and rules of ``datamotion bench`` (measure.stats.osu_rules:
OSU's warm-up, a sample the mean over a tenth of OSU's iterations, samples
repeated until the median's CI is within 5%), a round's value the median of the
samples. The reference is, with ``--osu-bin DIR``, the binaries osu_latency,
osu_bw, osu_barrier and osu_allreduce in DIR (or its OSU build tree), built by
you from OSU 7.4's release with this MPI's mpicc; this repository neither ships
nor builds OSU. Without it, the reference is benchmarks/osu_definitions.c, our
own writing of OSU's definitions, built with this MPI's mpicc into build/osu/;
the output says which reference was used.

Differences that remain by design, and what they do to the ratio:
- none for bandwidth: our stream, like osu_bw, receives a window into one buffer
  (with --validate each message would get its own, to be checked);
- our allreduce sums bytes / 8 doubles, osu_allreduce sums bytes chars: at 1 KiB
  OSU reduces 8x as many elements (osu_definitions.c does as OSU);
- OSU times each iteration separately and adds the times; we time a batch.

Ranks share the cores here, so MPICH's progress throttle
(MPIR_CVAR_CH4_PROGRESS_THROTTLE) is set for both sides alike unless set already.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LATENCY_BYTES = (8, 1024, 65536, 1 << 20)
BANDWIDTH_BYTES = (8, 65536, 1 << 20, 4 << 20)
ALLREDUCE_BYTES = (8, 1024)
NPROCS = 2
OSU_PROGRAMS = {"latency": "osu_latency", "bw": "osu_bw", "barrier": "osu_barrier", "allreduce": "osu_allreduce"}


NAMES = {"latency": "latency", "bw": "bandwidth", "barrier": "barrier", "allreduce": "allreduce"}


def _label(kind: str, nbytes: int) -> str:
    if kind == "barrier":
        return "barrier"
    size = f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB" if nbytes >= 1024 else f"{nbytes} B"
    return f"{NAMES[kind]} {size}"


METRICS = ([("latency", b) for b in LATENCY_BYTES] + [("bw", b) for b in BANDWIDTH_BYTES] + [("barrier", 0)]
           + [("allreduce", b) for b in ALLREDUCE_BYTES])


# ---------------------------------------------------------------------------
# Ours: runs inside the MPI job (this file with --measure-ours)
# ---------------------------------------------------------------------------

def measure_ours(out_path: str, quick: bool) -> None:
    import mpi4py

    mpi4py.rc.thread_level = "single"  # as OSU's MPI_Init
    from mpi4py import MPI

    from datamotion import _core
    from datamotion.measure.stats import OSU_WINDOW, adaptive, osu_rules, summarize

    comm = MPI.COMM_WORLD

    def median(measure) -> float:  # meaningful on rank 0, which writes the values
        samples = adaptive(comm, measure, quick)
        return summarize(samples)["median_us"] if comm.rank == 0 else 1.0

    values = {}
    for kind, nbytes in METRICS:
        if kind in ("latency", "bw"):
            kernel, window = ("pingpong", 1) if kind == "latency" else ("stream", OSU_WINDOW)
            r = osu_rules("latency" if kind == "latency" else "bandwidth", nbytes)
            us = median(lambda reps: _core.bench_pair(kernel, comm, 0, 1, nbytes, reps, r["warmup"], r["iterations"],
                                                      window, False))
            values[f"{kind} {nbytes}"] = us if kind == "latency" else nbytes / us  # MB/s per message time
        elif kind == "barrier":
            r = osu_rules("collective", 0)
            values["barrier 0"] = median(lambda reps: _core.bench_barrier(comm, reps, r["warmup"], r["iterations"]))
        else:
            r = osu_rules("collective", nbytes)
            values[f"allreduce {nbytes}"] = median(
                lambda reps: _core.bench_collective("allreduce", comm, nbytes, reps, r["warmup"], False,
                                                    r["iterations"]))
    if comm.rank == 0:
        level = {MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized",
                 MPI.THREAD_MULTIPLE: "multiple"}[MPI.Query_thread()]
        with open(out_path, "w") as f:
            json.dump({"values": values, "thread_level": level}, f)


# ---------------------------------------------------------------------------
# The reference: OSU's binaries, or our writing of their definitions
# ---------------------------------------------------------------------------

def find_osu(folder: str) -> dict:
    """The four OSU programs under ``folder`` (flat, or an OSU build tree)."""
    found = {}
    for kind, name in OSU_PROGRAMS.items():
        for where in ("", "c/mpi/pt2pt/standard", "c/mpi/collective/blocking", "mpi/pt2pt", "mpi/collective"):
            path = os.path.join(folder, where, name)
            if os.access(path, os.X_OK):
                found[kind] = path
                break
        else:
            raise SystemExit(f"osu_side_by_side: no executable {name} under {folder}")
    return found


def build_definitions(mpiexec: str) -> str:
    """Compiles benchmarks/osu_definitions.c with the mpicc beside mpiexec into build/osu/."""
    mpicc = shutil.which("mpicc", path=os.path.dirname(mpiexec)) or shutil.which("mpicc")
    if not mpicc:
        raise SystemExit("osu_side_by_side: no mpicc found beside mpiexec or on PATH")
    out = os.path.join(ROOT, "build", "osu", "osu_definitions")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    subprocess.run([mpicc, "-O2", "-std=c99", "-Wall", "-Wextra", "-o", out,
                    os.path.join(ROOT, "benchmarks", "osu_definitions.c")], check=True)
    return out


def _numbers(text: str):
    for line in text.splitlines():
        fields = line.split()
        if line.startswith("#") or not fields:
            continue
        try:
            yield [float(x) for x in fields]
        except ValueError:
            continue


def run_reference(mpiexec: str, env: dict, osu: dict | None, definitions: str | None) -> dict:
    """One round of the reference: {"latency 8": us, "bw 65536": MB/s, ...}."""
    values = {}

    def job(args):
        done = subprocess.run([mpiexec, "-n", str(NPROCS), *args], env=env, capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            raise SystemExit(f"osu_side_by_side: {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    for kind, sizes in (("latency", LATENCY_BYTES), ("bw", BANDWIDTH_BYTES), ("barrier", (0,)),
                        ("allreduce", ALLREDUCE_BYTES)):
        if osu:
            args = [osu[kind]] + ([] if kind == "barrier" else ["-m", f"{min(sizes)}:{max(sizes)}"])
            rows = list(_numbers(job(args)))
            if kind == "barrier":
                values["barrier 0"] = rows[-1][0]
                continue
            table = {int(r[0]): r[1] for r in rows if len(r) >= 2}
        else:
            text = job([definitions, kind] + ([] if kind == "barrier" else [str(b) for b in sizes]))
            table = {int(b): float(v) for k, b, v in (line.split() for line in text.splitlines() if line.strip())
                     if k == kind}
        for b in sizes:
            values[f"{kind} {b}"] = table[b]
    return values


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--osu-bin", default=None, help="folder with OSU 7.4's osu_latency, osu_bw, osu_barrier, "
                                                        "osu_allreduce (or its build tree)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="ours with quick-mode sample counts (same rules)")
    parser.add_argument("--measure-ours", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_ours:
        measure_ours(args.measure_ours, args.quick)
        return 0

    from datamotion.launch import MPICH_THROTTLE, find_mpiexec

    mpiexec = find_mpiexec()
    env = dict(os.environ)
    for key, value in MPICH_THROTTLE.items():
        env.setdefault(key, value)
    env["MPI4PY_RC_THREAD_LEVEL"] = "single"
    osu = find_osu(args.osu_bin) if args.osu_bin else None
    definitions = None if osu else build_definitions(mpiexec)
    reference = "OSU 7.4 binaries" if osu else "benchmarks/osu_definitions.c (OSU 7.4's definitions re-written)"
    print(f"reference: {reference}; {NPROCS} ranks, MPI_THREAD_SINGLE, {args.rounds} rounds", flush=True)

    ours_rounds, ref_rounds, levels = [], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            path = os.path.join(tmp, f"ours{r}.json")
            cmd = [mpiexec, "-n", str(NPROCS), sys.executable, os.path.abspath(__file__), "--measure-ours", path]
            subprocess.run(cmd + (["--quick"] if args.quick else []), env=env, check=True, timeout=1200)
            with open(path) as f:
                got = json.load(f)
            ours_rounds.append(got["values"])
            levels.add(got["thread_level"])
            ref_rounds.append(run_reference(mpiexec, env, osu, definitions))
            print(f"round {r + 1} of {args.rounds} done", flush=True)

    ref_name = "OSU 7.4" if osu else "OSU defs"
    print(f"\nours at MPI_THREAD_{'/'.join(sorted(levels)).upper()}; medians over {args.rounds} rounds "
          f"(min-max over rounds in brackets)\n")
    header = f"{'quantity':<18} {'unit':<5} {'ours':>30} {ref_name:>30} {'ours/' + ref_name:>16}"
    print(header)
    print("-" * len(header))
    for kind, nbytes in METRICS:
        key = f"{kind} {nbytes}"
        ours = [r[key] for r in ours_rounds]
        ref = [r[key] for r in ref_rounds]
        mo, mr = statistics.median(ours), statistics.median(ref)
        span = lambda xs: f"{statistics.median(xs):8.2f} [{min(xs):.2f}-{max(xs):.2f}]"  # noqa: E731
        unit = "MB/s" if kind == "bw" else "us"
        print(f"{_label(kind, nbytes):<18} {unit:<5} {span(ours):>30} {span(ref):>30} {mo / mr:>16.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
