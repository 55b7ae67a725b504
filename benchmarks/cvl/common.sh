# Shared by the CVL benchmark scripts (sourced, with $root set to the repository root):
# the MPI compiler and launcher, and libcvl built with CMake.

# The venv's MPI tool (the mpich wheel's), else the first on PATH.
pick() { if [ -x "$root/.venv/bin/$1" ]; then echo "$root/.venv/bin/$1"; else command -v "$1"; fi; }
MPICC="${MPICC:-$(pick mpicc)}"
MPIEXEC="${MPIEXEC:-$(pick mpiexec)}"

# build_libcvl BUILD_DIR TARGET: configures BUILD_DIR (Release, this MPI) once and builds
# TARGET (cvl: libcvl.so; cvl_static: libcvl.a) in it.
build_libcvl() {
  local build=$1 target=$2 generator=()
  if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
    if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
    cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
          -DMPI_C_COMPILER="$MPICC" -DMPIEXEC_EXECUTABLE="$MPIEXEC" >/dev/null
  fi
  cmake --build "$build" --target "$target" -j 2 >/dev/null
}
