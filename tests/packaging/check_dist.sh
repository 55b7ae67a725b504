#!/usr/bin/env bash
# Builds datamotion's sdist and, from it, a wheel (python -m build), checks what each
# contains, installs the wheel with the [mpich] extra into a fresh virtual environment
# and runs a smoke test there: import, the command line, a 2-rank scatter/gather, and
# the one-line error of `datamotion report` without the [plots] extra.
#   tests/packaging/check_dist.sh            (PYTHON= picks the interpreter; default .venv's)
# Needs the package index (build isolation fetches the build requirements).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
python=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_dist: FAIL: $*" >&2; exit 1; }

echo "== building the sdist and, from it, the wheel"
"$python" -m pip install -q --disable-pip-version-check build
"$python" -m build --outdir "$work/dist" . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "python -m build"; }
sdist=$(ls "$work"/dist/datamotion-*.tar.gz)
wheel=$(ls "$work"/dist/datamotion-*.whl)
echo "$(basename "$sdist"), $(basename "$wheel")"

echo "== sdist contents"
tar -tzf "$sdist" | sed 's|^[^/]*/||' | sort >"$work/sdist.txt"
for needed in pyproject.toml CMakeLists.txt LICENSE README.md CHANGELOG.md src/ include/datamotion/ cmake/ \
              python/bindings/CMakeLists.txt python/datamotion/__init__.py python/datamotion/py.typed; do
    grep -q "^$needed" "$work/sdist.txt" || fail "the sdist lacks $needed"
done
# Nothing generated: build trees, environments, bytecode, compiled objects, the stubs the build writes.
if grep -E '(^|/)(build|dist|\.venv|__pycache__)/|\.(so|o|a|pyc)$|_core\.pyi$' "$work/sdist.txt"; then
    fail "the sdist holds generated files (above)"
fi

echo "== wheel contents"
"$python" -m zipfile -l "$wheel" | awk 'NR > 1 {print $1}' >"$work/wheel.txt"
for needed in datamotion/__init__.py datamotion/py.typed datamotion/_core.pyi 'datamotion/_core\..*\.so' \
              datamotion/_built_with.py 'datamotion/measure/report/plots.py' 'datamotion-.*\.dist-info/entry_points.txt'; do
    grep -qE "^$needed$" "$work/wheel.txt" || fail "the wheel lacks $needed"
done

echo "== installing the wheel with [mpich] into a fresh virtual environment"
"$python" -m venv "$work/venv"
venv="$work/venv/bin"
"$venv/python" -m pip install -q --disable-pip-version-check "$wheel[mpich]"
# The [plots] extra was not asked for, so Matplotlib must not have come along.
"$venv/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('matplotlib') is not None)" \
    || fail "matplotlib was installed without the [plots] extra"

echo "== smoke test"
cd "$work"   # away from the source tree, so only the installed package can be imported
"$venv/python" -c "import datamotion; print('datamotion', datamotion.__version__, 'from', datamotion.__file__)"
"$venv/datamotion" --help >/dev/null || fail "datamotion --help"
"$venv/mpiexec" -n 2 "$venv/python" -c '
import numpy as np
from mpi4py import MPI
import datamotion as dm
grid = dm.ProcessGrid(MPI.COMM_WORLD, dims=1)
whole = np.arange(10.0) if grid.rank == 0 else None
a = dm.DistArray.from_global(grid, whole, dist=dm.Block(), root=0)
a.local[...] += 1.0
back = a.to_global(root=0)
if grid.rank == 0:
    assert np.array_equal(back, np.arange(10.0) + 1.0), back
    print("scatter/gather on", grid.size, "ranks: ok")
' || fail "scatter/gather on 2 ranks"
set +e
"$venv/datamotion" report results.json --out report >"$work/report.out" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] && [ "$(wc -l <"$work/report.out")" -eq 1 ] && grep -q "datamotion\[plots\]" "$work/report.out" \
    || { cat "$work/report.out"; fail "datamotion report without Matplotlib should fail in one line naming [plots]"; }
echo "report without Matplotlib: $(cat "$work/report.out")"
echo "check_dist: ok"
