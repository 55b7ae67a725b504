#!/usr/bin/env bash
# Rank (sort) speed of libcvl side by side with another CVL build: the serial CVL of the
# public NESL distribution (required) and, optionally, its 1995 MPI CVL. Nothing of
# NESL's is shipped here: pass the directories of your own builds.
#
#   benchmarks/cvl/rank_vs_serial.sh SERIAL_CVL_DIR [--mpi-cvl MPI_CVL_DIR] [--np "1 2 3 4"]
#                                    [--max-n N] [--reps R] [--rounds K] [--cpu]
#
# SERIAL_CVL_DIR holds libcvl.a (NESL: nesl/cvl/serial after `make`); cvl.h is looked for
# there and in ../../include (NESL's layout). MPI_CVL_DIR likewise (nesl/cvl/mpi, built
# with the same MPI as this project). benchmarks/cvl/rank_bench.c is compiled against
# each library; the runs alternate (serial, then each rank count of each MPI library)
# for K rounds (default 3), each run printing medians of R repetitions (default 5), and
# the table shows the median over rounds. Environment: BUILD_DIR (default
# build/cvl-bench), LIBCVL_BUILD (a build directory holding another libcvl.a to time
# instead of building this checkout's, e.g. an earlier commit's), CC (default cc), MPICC,
# MPIEXEC. --cpu times process CPU time instead
# of the wall clock (for --np 1 on a busy machine; waiting ranks spend CPU time too).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

usage() { sed -n '2,19p' "$0"; exit 2; }
[ $# -ge 1 ] || usage
serial_dir="$(cd "$1" && pwd)"; shift
mpi_dir=""
np_list="1 2 3 4"
max_n=10000000
reps=5
rounds=3
clock=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi-cvl) mpi_dir="$(cd "$2" && pwd)"; shift ;;
    --np) np_list="$2"; shift ;;
    --max-n) max_n="$2"; shift ;;
    --reps) reps="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --cpu) clock=(--cpu) ;;
    -h|--help) usage ;;
    *) echo "rank_vs_serial.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

include_of() {
  for d in "$1" "$1/../../include"; do
    if [ -f "$d/cvl.h" ]; then (cd "$d" && pwd); return; fi
  done
  echo "rank_vs_serial.sh: no cvl.h in $1 or $1/../../include" >&2; exit 2
}
for d in "$serial_dir" ${mpi_dir:+"$mpi_dir"}; do
  [ -f "$d/libcvl.a" ] || { echo "rank_vs_serial.sh: no libcvl.a in $d (build it first)" >&2; exit 2; }
done

. "$root/benchmarks/cvl/common.sh"
CC="${CC:-cc}"
BUILD_DIR="${BUILD_DIR:-build/cvl-bench}"

if [ -n "${LIBCVL_BUILD:-}" ]; then
  libcvl="$(cd "$LIBCVL_BUILD" && pwd)/libcvl.a"
  mkdir -p "$BUILD_DIR"
else
  build_libcvl "$BUILD_DIR" cvl_static
  libcvl="$BUILD_DIR/libcvl.a"
fi

src=benchmarks/cvl/rank_bench.c
flags=(-std=c99 -O2 -D_POSIX_C_SOURCE=199309L)
"$MPICC" "${flags[@]}" -I include "$src" "$libcvl" -lstdc++ -lm -o "$BUILD_DIR/rank_bench"
"$CC" "${flags[@]}" -I "$(include_of "$serial_dir")" "$src" "$serial_dir/libcvl.a" -lm -o "$BUILD_DIR/rank_bench_serial"
if [ -n "$mpi_dir" ]; then
  "$MPICC" "${flags[@]}" -DMPI -DRANK_BENCH_MPI_CVL -I "$(include_of "$mpi_dir")" "$src" "$mpi_dir/libcvl.a" -lm \
           -o "$BUILD_DIR/rank_bench_mpi1995"
fi

# MPICH: let waiting ranks yield the core (the machine may have as few cores as ranks).
export MPIR_CVAR_CH4_PROGRESS_THROTTLE=1
export MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
export OMPI_MCA_mpi_yield_when_idle=1
oversubscribe=()
if "$MPIEXEC" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then oversubscribe=(--oversubscribe); fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
args=(--reps "$reps" --max-n "$max_n" "${clock[@]}")
# One run into $out/NAME; its stderr is shown only if it fails (the 1995 MPI CVL leaves
# communicator references at exit that MPICH reports).
run() {
  local name="$1"; shift
  "$@" > "$out/$name" 2> "$out/$name.err" || { cat "$out/$name.err" >&2; echo "rank_vs_serial.sh: $* failed" >&2; exit 1; }
}
for round in $(seq 1 "$rounds"); do
  run "serial.$round" "$BUILD_DIR/rank_bench_serial" "${args[@]}"
  for np in $np_list; do
    run "libcvl.np$np.$round" "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$BUILD_DIR/rank_bench" "${args[@]}"
    if [ -n "$mpi_dir" ]; then
      run "mpi1995.np$np.$round" "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$BUILD_DIR/rank_bench_mpi1995" "${args[@]}"
    fi
  done
done

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
echo "rank_bench: keys: rku_luz random ints, rku_lud random doubles, rku_lez random ints in segments of 1000;"
echo "median over $rounds alternating rounds of per-run medians of $reps calls, ms per call ($([ ${#clock[@]} -gt 0 ] && echo "CPU time" || echo "wall clock"))."
echo "libcvl: $libcvl"
if [ -z "${LIBCVL_BUILD:-}" ]; then
  echo "libcvl path: 1 rank: one radix sort of all keys; 2+ ranks (n > 1024): sample sort, radix sorts locally,"
  echo "buckets merged (re-sorted above 8 ranks)."
fi
python3 - "$out" "$rounds" "$np_list" "${mpi_dir:+yes}" <<'EOF'
import statistics, sys
out, rounds, nps, with_mpi = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4] == "yes"
def load(name):
    rows, wrong = {}, set()
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{name}.{r}"):
            if line.startswith("#"): continue
            f = line.split()
            rows.setdefault((f[0], int(f[1])), []).append(float(f[2]))
            if len(f) > 3: wrong.add((f[0], int(f[1])))
    return {k: statistics.median(v) for k, v in rows.items()}, wrong
serial, serial_wrong = load("serial")
ours = {np: load(f"libcvl.np{np}") for np in nps}
mpi = {np: load(f"mpi1995.np{np}") for np in nps} if with_mpi else {}
head = ["function", "n", "serial ms"]
for np in nps:
    head += [f"libcvl {np}r ms", "/serial"]
    if with_mpi: head += [f"1995 MPI {np}r ms", "libcvl/1995"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
mark = lambda wrong, key: " (wrong)" if key in wrong else ""
for key in sorted(serial, key=lambda k: (k[1], k[0])):
    row = [key[0], f"{key[1]:,}", f"{serial[key]:.2f}{mark(serial_wrong, key)}"]
    for np in nps:
        t, w = ours[np]
        row += [f"{t[key]:.2f}{mark(w, key)}", f"{t[key] / serial[key]:.2f}"]
        if with_mpi:
            m, mw = mpi[np]
            row += [f"{m[key]:.2f}{mark(mw, key)}", f"{t[key] / m[key]:.2f}"]
    print("| " + " | ".join(row) + " |")
if serial_wrong:
    print("\n(wrong): that library's result did not sort the keys (NESL's serial CVL picks the double word order"
          " by CPU macros that x86-64 does not define; its time is still that of a full rank).")
EOF
