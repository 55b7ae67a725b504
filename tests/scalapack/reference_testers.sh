#!/usr/bin/env bash
# ScaLAPACK's own redistribution testers (REDIST/TESTING/p?gemrdrv.c with their data
# file GEMR2D.dat), unchanged, linked with libdatamotion_scalapack first on the link
# line, so that every p?gemr2d they call is datamotion's:
#
#   SCALAPACK_SOURCE=<folder> tests/scalapack/reference_testers.sh [--mpi openmpi|mpich] [--np N]
#
#   --mpi openmpi  (default) Debian's Open MPI and Debian's ScaLAPACK (libscalapack-openmpi-dev,
#                  installed with apt-get where missing and possible)
#   --mpi mpich    the MPICH of .venv (the PyPI wheel, ./dev install), with BLACS, TOOLS, PBLAS
#                  and REDIST of ScaLAPACK built from SCALAPACK_SOURCE with it and gfortran
#   --np N         ranks (default 4: the data file's largest grids have 4 processes)
#
# SCALAPACK_SOURCE names a folder of ScaLAPACK's reference sources; nothing is fetched.
# Each driver prints one line: its cases passed out of those in the data file, and the
# library its first p?gemr2d call was bound to (the dynamic linker's own record).
# Exits 0 only when every case of every driver passed through datamotion.
set -euo pipefail

mpi=openmpi np=4
while [[ $# -gt 0 ]]; do
  case "$1" in
    --mpi) mpi="$2"; shift 2 ;;
    --np) np="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "reference_testers.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
source_dir=${SCALAPACK_SOURCE:-}
if [[ -z "$source_dir" || ! -f "$source_dir/REDIST/TESTING/GEMR2D.dat" ]]; then
  echo "reference_testers.sh: set SCALAPACK_SOURCE to ScaLAPACK's sources" \
       "(git clone https://github.com/Reference-ScaLAPACK/scalapack)" >&2
  exit 2
fi
source_dir=$(cd "$source_dir" && pwd)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$root/build/scalapack-testers-$mpi"
mkdir -p "$work"

need_debian_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  echo "== installing ${missing[*]} (apt-get)"
  local sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# datamotion's C libraries built with the MPI whose C compiler is $1, into $work/datamotion.
build_datamotion() {
  echo "== datamotion with $1"
  cmake -S "$root" -B "$work/datamotion" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDATAMOTION_BUILD_TESTS=OFF \
    -DDATAMOTION_BUILD_EXAMPLES=OFF -DMPI_C_COMPILER="$1" -DMPIEXEC_EXECUTABLE="$2" >"$work/datamotion.log" 2>&1 ||
    { cat "$work/datamotion.log"; exit 1; }
  cmake --build "$work/datamotion" --target datamotion_scalapack -j 2 >>"$work/datamotion.log" 2>&1 ||
    { tail -30 "$work/datamotion.log"; exit 1; }
}

case "$mpi" in
  openmpi)
    need_debian_packages libscalapack-openmpi-dev libopenmpi-dev openmpi-bin gcc g++ cmake ninja-build
    mpicc=/usr/bin/mpicc.openmpi mpiexec=/usr/bin/mpiexec.openmpi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    launch=("$mpiexec" --oversubscribe -n "$np")
    scalapack=(-lscalapack-openmpi)
    ;;
  mpich)
    need_debian_packages gfortran gcc g++ cmake ninja-build
    mpicc="$root/.venv/bin/mpicc" mpiexec="$root/.venv/bin/mpiexec"
    [[ -x "$mpicc" ]] || { echo "reference_testers.sh: no $mpicc: run ./dev install first" >&2; exit 2; }
    export MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
    launch=("$mpiexec" -n "$np")
    # The parts of ScaLAPACK the testers and the drop-in use, built with this MPICH (its
    # own Makefile; the library routines need no MPI Fortran bindings).
    lib="$work/scalapack/libscalapack.a"
    if [[ ! -f "$lib" ]]; then
      echo "== BLACS, TOOLS, PBLAS and REDIST of $source_dir with $mpicc and gfortran (a few minutes)"
      rm -rf "$work/scalapack" && mkdir -p "$work/scalapack"
      (cd "$source_dir" && tar -cf - Makefile BLACS TOOLS PBLAS REDIST) | tar -xf - -C "$work/scalapack"
      cat >"$work/scalapack/SLmake.inc" <<EOF
CDEFS = -DAdd_
FC = gfortran
CC = $mpicc
NOOPT = -O0 -fallow-argument-mismatch
FCFLAGS = -O2 -fallow-argument-mismatch
CCFLAGS = -O2 -w
FCLOADER = \$(FC)
CCLOADER = \$(CC)
FCLOADFLAGS = \$(FCFLAGS)
CCLOADFLAGS = \$(CCFLAGS)
ARCH = ar
ARCHFLAGS = cr
RANLIB = ranlib
SCALAPACKLIB = libscalapack.a
BLASLIB = -lblas
LAPACKLIB = -llapack
LIBS = \$(LAPACKLIB) \$(BLASLIB)
EOF
      # One make at a time: the parts share one archive.
      (cd "$work/scalapack" && make blacslib toolslib pblaslib redistlib >"$work/scalapack.log" 2>&1) ||
        { tail -30 "$work/scalapack.log"; exit 1; }
    fi
    scalapack=("$lib" -lgfortran -lm)
    ;;
  *) echo "reference_testers.sh: --mpi is openmpi or mpich, not $mpi" >&2; exit 2 ;;
esac

build_datamotion "$mpicc" "$mpiexec"
lib_dir="$work/datamotion"
run_dir="$work/run"
mkdir -p "$run_dir"
cp "$source_dir/REDIST/TESTING/GEMR2D.dat" "$run_dir/"
cases=$(head -n1 "$run_dir/GEMR2D.dat" | tr -d '[:space:]')
status=0
for t in s d c z i; do
  exe="$run_dir/x${t}gemr"
  "$mpicc" -O2 -w -DUsingMpiBlacs "$source_dir/REDIST/TESTING/p${t}gemrdrv.c" -o "$exe" \
    -L"$lib_dir" -Wl,-rpath,"$lib_dir" -ldatamotion_scalapack -ldatamotion "${scalapack[@]}"
  log="$run_dir/x${t}gemr.log"
  # The dynamic linker's record of where the driver's Cp?gemr2d went (rank 0's file).
  (cd "$run_dir" && LD_DEBUG=bindings LD_DEBUG_OUTPUT="$run_dir/bindings.$t" "${launch[@]}" "$exe" >"$log" 2>&1) ||
    echo "x${t}gemr exited with status $?"
  passed=$(grep -c "TEST PASSED OK" "$log" || true)
  bound=$(cat "$run_dir"/bindings.$t.* 2>/dev/null | grep -o "to [^ ]* \[[0-9]*\]: normal symbol \`Cp${t}gemr2d'" |
          head -n1 | sed 's/^to \([^ ]*\) .*/\1/' || true)
  rm -f "$run_dir"/bindings.$t.*
  echo "x${t}gemr ($mpi, $np ranks): $passed of $cases cases passed; Cp${t}gemr2d bound to ${bound:-?}"
  [[ "$passed" == "$cases" && "$bound" == *libdatamotion_scalapack* ]] || status=1
done
exit $status
