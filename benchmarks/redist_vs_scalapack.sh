#!/usr/bin/env bash
# ScaLAPACK's pdgemr2d against datamotion's ScaLAPACK drop-in (libdatamotion_scalapack),
# COSTA's drop-in where its sources are given, and datamotion's own dm_redist_pgemr2d,
# side by side in one run, on Debian's ScaLAPACK and Open MPI (see
# docs/redist-benchmarks.md and docs/scalapack.md).
#
#   benchmarks/redist_vs_scalapack.sh [--np P] [--reps R] [--reps-large R] [N ...]
#
#   --np P          MPI ranks (default 4); the cases adapt to P (see the C file)
#   --reps R        timed repetitions for N <= 4000 (default 5)
#   --reps-large R  timed repetitions for N > 4000 (default 3)
#   N ...           matrix orders (default 1000 2000 4000 8000)
#
# On a fresh Debian 12 machine with only the repository, it installs what is
# missing with apt-get (libscalapack-openmpi-dev, openmpi-bin, libopenmpi-dev,
# and the compilers, CMake and Ninja), builds and installs datamotion's C
# library against /usr/bin/mpicc (Open MPI) into build/openmpi/install, builds
# the benchmark against that installed package and ScaLAPACK, and runs it with
# Open MPI's mpirun. Environment: DM_MPIRUN_FLAGS adds flags to mpirun;
# COSTA_SOURCE names a folder of COSTA's sources (git clone
# https://github.com/eth-cscs/COSTA), built here with Open MPI and Debian's ScaLAPACK
# (COSTA_SCALAPACK=CUSTOM) into build/openmpi/costa for its column; nothing is fetched.
set -euo pipefail

np=4
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --np) np="$2"; shift 2 ;;
    --np=*) np="${1#--np=}"; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build/openmpi"
prefix="$build/install"
logs="$build/logs"

# ---- packages: install only what is missing ----
packages=(libscalapack-openmpi-dev openmpi-bin libopenmpi-dev gcc g++ cmake ninja-build)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "== installing: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Open MPI's tools only: a virtual environment's MPICH (mpicc, mpiexec) must not
# be picked up by CMake's find_package(MPI) nor launch the program.
mpicc=/usr/bin/mpicc
mpicxx=/usr/bin/mpicxx
mpirun=/usr/bin/mpirun
for tool in "$mpicc" "$mpicxx" "$mpirun"; do
  [[ -x "$tool" ]] || { echo "missing $tool (Open MPI)" >&2; exit 1; }
done
scalapack_lib="$(ls /usr/lib/*/libscalapack-openmpi.so 2>/dev/null | head -n1 || true)"
[[ -n "$scalapack_lib" ]] || { echo "libscalapack-openmpi.so not found" >&2; exit 1; }

# ---- datamotion's C library against Open MPI ----
mkdir -p "$logs"
echo "== building datamotion against $("$mpirun" --version | head -n1)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER="$mpicc" -DMPI_CXX_COMPILER="$mpicxx" \
  -DDATAMOTION_BUILD_TESTS=OFF -DDATAMOTION_BUILD_EXAMPLES=OFF -DDATAMOTION_BUILD_PYTHON=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" > "$logs/configure.log" 2>&1 \
  || { cat "$logs/configure.log" >&2; exit 1; }
cmake --build "$build" > "$logs/build.log" 2>&1 || { cat "$logs/build.log" >&2; exit 1; }
cmake --install "$build" > /dev/null

# ---- the benchmark, against the installed package (find_package) and ScaLAPACK ----
bench_src="$build/bench-src"
bench_build="$build/bench"
mkdir -p "$bench_src"
cat > "$bench_src/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.21)
project(redist_vs_scalapack LANGUAGES C)
find_package(datamotion REQUIRED)
add_executable(redist_vs_scalapack "$root/benchmarks/redist_vs_scalapack.c")
set_target_properties(redist_vs_scalapack PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                      BUILD_RPATH "$prefix/lib")
target_link_libraries(redist_vs_scalapack PRIVATE datamotion::datamotion "$scalapack_lib" \${CMAKE_DL_LIBS})
EOF
cmake -S "$bench_src" -B "$bench_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER="$mpicc" -Ddatamotion_DIR="$prefix/lib/cmake/datamotion" > "$logs/bench-configure.log" 2>&1 \
  || { cat "$logs/bench-configure.log" >&2; exit 1; }
cmake --build "$bench_build" > "$logs/bench-build.log" 2>&1 || { cat "$logs/bench-build.log" >&2; exit 1; }

# One libmpi per process: the program must load Open MPI's, not another MPI's.
if ldd "$bench_build/redist_vs_scalapack" | grep -Ei 'libmpi' | grep -vq 'libmpi.so.40'; then
  echo "the benchmark links an MPI other than Open MPI:" >&2
  ldd "$bench_build/redist_vs_scalapack" | grep -i mpi >&2
  exit 1
fi

# ---- COSTA's drop-in, where its sources are given ----
drop_ins=(--drop-in "$prefix/lib/libdatamotion_scalapack.so")
if [[ -n "${COSTA_SOURCE:-}" ]]; then
  echo "== building COSTA from $COSTA_SOURCE against Open MPI and $scalapack_lib"
  cmake -S "$COSTA_SOURCE" -B "$build/costa" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
    -DCOSTA_SCALAPACK=CUSTOM -DCOSTA_SCALAPACK_LINK_LIBRARIES="$scalapack_lib" \
    -DMPI_C_COMPILER="$mpicc" -DMPI_CXX_COMPILER="$mpicxx" > "$logs/costa.log" 2>&1 \
    && cmake --build "$build/costa" >> "$logs/costa.log" 2>&1 || { tail -30 "$logs/costa.log" >&2; exit 1; }
  drop_ins+=(--costa "$(find "$build/costa" -name libcosta_scalapack.so | head -n1)")
  # COSTA runs OpenMP threads; one per rank, and none spinning after COSTA's call
  # (they would take the cores of whatever is timed next).
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
else
  echo "== no COSTA column: set COSTA_SOURCE to COSTA's sources (git clone https://github.com/eth-cscs/COSTA)"
fi

# ---- run ----
if command -v git > /dev/null && git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  echo "== datamotion checkout: $(git -C "$root" describe --always --dirty 2>/dev/null)"
fi
cores="$(getconf _NPROCESSORS_ONLN)"
flags=(--oversubscribe -n "$np")
[[ $(id -u) -eq 0 ]] && flags=(--allow-run-as-root "${flags[@]}")
# No rank binding when oversubscribed: Open MPI would pin several ranks to one core.
[[ "$np" -gt "$cores" ]] && flags+=(--bind-to none)
# shellcheck disable=SC2206
[[ -n "${DM_MPIRUN_FLAGS:-}" ]] && flags+=(${DM_MPIRUN_FLAGS})
[[ -n "${OMP_NUM_THREADS:-}" ]] && flags+=(-x OMP_NUM_THREADS -x OMP_WAIT_POLICY)
echo "== $mpirun ${flags[*]} redist_vs_scalapack ${drop_ins[*]} ${args[*]:-}"
[[ "$np" -gt "$cores" ]] && echo "== note: $np ranks on $cores cores is oversubscribed"
exec "$mpirun" "${flags[@]}" "$bench_build/redist_vs_scalapack" "${drop_ins[@]}" "${args[@]}"
