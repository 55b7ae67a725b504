#!/usr/bin/env bash
# CVL benchmarks (benchmarks/cvl/cvl_bench.c): builds the static libcvl with CMake if
# needed, compiles the benchmark with the MPI C compiler, and runs it at 2 ranks (and
# at 4 with --np4). Markdown tables go to stdout.
#
#   benchmarks/cvl/run.sh [--quick | --smoke] [--np4] [-- extra cvl_bench arguments]
#
# Environment: BUILD_DIR (default build/cvl-bench), MPICC, MPIEXEC (default: the
# project's .venv/bin/mpicc and .venv/bin/mpiexec, else the ones on PATH).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

mode=()
np_list=(2)
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=(--quick) ;;
    --smoke) mode=(--smoke) ;;
    --np4) np_list=(2 4) ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

. "$root/benchmarks/cvl/common.sh"
BUILD_DIR="${BUILD_DIR:-build/cvl-bench}"

build_libcvl "$BUILD_DIR" cvl_static

exe="$BUILD_DIR/cvl_bench"
"$MPICC" -std=c99 -O2 -I include benchmarks/cvl/cvl_bench.c "$BUILD_DIR/libcvl.a" -lstdc++ -lm -o "$exe"

# MPICH: let waiting ranks yield the core (the machine may have as few cores as ranks).
export MPIR_CVAR_CH4_PROGRESS_THROTTLE=1
export MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
export OMPI_MCA_mpi_yield_when_idle=1

oversubscribe=()
if "$MPIEXEC" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then oversubscribe=(--oversubscribe); fi

mpi_version="$("$MPIEXEC" --version 2>&1 | grep -m1 -iE 'version' | sed 's/^ *//; s/  */ /g')"
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); MPI: $mpi_version"
for np in "${np_list[@]}"; do
  echo
  echo "\$ mpiexec -n $np cvl_bench ${mode[*]:-} ${extra[*]:-}"
  "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$exe" "${mode[@]}" "${extra[@]}"
done
