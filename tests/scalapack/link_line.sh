#!/usr/bin/env bash
# The link line of docs/scalapack.md, as written there, builds a ScaLAPACK program
# (tests/scalapack/drop_in.c) that then takes datamotion's p?gemr2d: the line's
# $PREFIX/lib becomes the build's library folder, prog.c the test's source (plus the
# include folder it needs for its declarations), and Debian's -lscalapack-openmpi
# the ScaLAPACK this build is tested against.
#   link_line.sh DOC MPICC LIBDIR INCLUDEDIR SCALAPACK WORKDIR LAUNCH...
set -euo pipefail
doc=$1 mpicc=$2 libdir=$3 includedir=$4 scalapack=$5 work=$6
shift 6
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
line=$(awk '/doc-test: link-line/ {want = 1; next} want && /^mpicc / {print; exit}' "$doc")
[[ -n "$line" ]] || { echo "no link line after 'doc-test: link-line' in $doc" >&2; exit 1; }
echo "link line: $line"
mkdir -p "$work"
read -r -a words <<<"$line"
command=()
for w in "${words[@]:1}"; do
  w=${w//\$PREFIX\/lib/$libdir}
  case "$w" in
    prog.c) command+=("$here/drop_in.c" "-I$includedir") ;;
    prog) command+=("$work/prog") ;;
    -lscalapack-openmpi) command+=("$scalapack") ;;
    *) command+=("$w") ;;
  esac
done
"$mpicc" "${command[@]}"
"$@" "$work/prog"
