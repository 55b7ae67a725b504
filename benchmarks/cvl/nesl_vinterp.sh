#!/usr/bin/env bash
# NESL's own programs on libcvl. Builds, in a temporary directory outside the repository,
# NESL's serial CVL and VCODE interpreter (vinterp) from a NESL distribution (the
# reference) and vinterp with -DMPI against an installed libcvl; runs NESL's test program
# (vcode/nesltest.vcode) and NESL example programs (compiled to VCODE by NESL's own
# compiler when clisp is installed) serially and at 1-4 ranks; compares each run's stdout
# and stderr with the serial run's, byte for byte; prints a table (same, different, oom,
# crash, timeout; wall times); then times a large sort, serial CVL against libcvl.
# NESL's code is neither copied into the repository nor patched: only compiler flags and
# make variables (and one libc shim, below) are used.
#
#   benchmarks/cvl/nesl_vinterp.sh NESL_SOURCE_DIR [PREFIX]
#
# NESL_SOURCE_DIR: the distribution's nesl/ directory (cvl/, vcode/, include/, examples/),
# or the directory that holds it. PREFIX: where libcvl is installed (include/cvl.h,
# lib/libcvl.so); by default the script builds it with CMake in BUILD_DIR (default
# build/cvl-nesl) and uses it from there with the repository's include/cvl.h.
#
# Environment: MPICC, MPIEXEC (default: the project's .venv ones, else those on PATH);
# CC (serial build, default gcc); NPS (rank counts, default "1 2 3 4"); MEM (vinterp -m,
# default 500000, the setting of NESL's own `make test`); MEM_BIG (a second, larger -m for
# libcvl's runs, default 2000000, empty for none); SORT_N (default 1000000), SORT_MEM
# (default 20000000), SORT_REPS (default 3); TIMEOUT (seconds per run, default 300);
# CLISP (default clisp); KEEP=1 keeps the temporary directory; MIN_MEM (programs, e.g.
# "quicksort bigsort": the smallest -m each completes with, serially and at NPS ranks,
# by bisection to 1 % between MIN_MEM_LO and MIN_MEM_HI, default 100000 and 8000000).
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then sed -n '2,26p' "$0"; exit 2; fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$(cd "$1" && pwd)"
if [ ! -d "$src/vcode" ] && [ -d "$src/nesl/vcode" ]; then src="$src/nesl"; fi
for d in cvl/serial vcode include; do
  [ -d "$src/$d" ] || { echo "nesl_vinterp.sh: $src has no $d/: not a NESL distribution" >&2; exit 2; }
done

. "$root/benchmarks/cvl/common.sh"
CC="${CC:-gcc}"
NPS="${NPS:-1 2 3 4}"
MEM="${MEM:-500000}"
MEM_BIG="${MEM_BIG-2000000}"
SORT_N="${SORT_N:-1000000}"
SORT_MEM="${SORT_MEM:-20000000}"
SORT_REPS="${SORT_REPS:-3}"
TIMEOUT="${TIMEOUT:-300}"
CLISP="${CLISP:-clisp}"
MIN_MEM="${MIN_MEM:-}"
MIN_MEM_LO="${MIN_MEM_LO:-100000}"
MIN_MEM_HI="${MIN_MEM_HI:-8000000}"

if [ $# -ge 2 ]; then
  prefix="$(cd "$2" && pwd)"
  incdir="$prefix/include" libdir="$prefix/lib"
  [ -f "$libdir/libcvl.so" ] || libdir="$prefix/lib64"
else
  build="${BUILD_DIR:-build/cvl-nesl}"
  cd "$root"
  build_libcvl "$build" cvl
  incdir="$root/include" libdir="$(cd "$build" && pwd)"
fi
[ -f "$incdir/cvl.h" ] && [ -f "$libdir/libcvl.so" ] ||
  { echo "nesl_vinterp.sh: no $incdir/cvl.h or $libdir/libcvl.so" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/nesl-vinterp.XXXXXX")"
if [ "${KEEP:-0}" = 1 ]; then echo "working in $work"; else trap 'rm -rf "$work"' EXIT; fi

# ---- building NESL's 1995 C on a current system: flags only ---------------------------
# -Di386=1    vcode/config.h and cvl/serial/rank.c know the byte order of a double only
#             for mips, alpha, i860 and i386; without it, on a little-endian 64-bit
#             machine the serial CVL ranks doubles wrongly and vinterp sizes its memory
#             buckets wrongly. (Set only where the machine is little-endian.)
# -fcommon    tentative definitions in headers (GCC 10 and later default to -fno-common).
# -DNOSPAWN   io.c's child reaping needs BSD `union wait`, which glibc dropped; NESL's
#             spawn then reports failure (nesltest's last test, in every build).
# YY_SKIP_YYWRAP, yywrap()=1   the shipped lex.yy.c wants libfl's yywrap.
# make -o ...  use the shipped lex.yy.c and y.tab.[ch] (no flex or bison needed).
# -w          the code predates prototypes; its warnings say nothing here.
flags="-O2 -w -fcommon -DNOSPAWN"
if [ "$(printf '\1\0' | od -An -tu2 | tr -d ' ')" = 1 ]; then flags="$flags -Di386=1"; fi
parser_flags="-DSPEEDHACKS -DYY_SKIP_YYWRAP '-Dyywrap()=1'"
# glibc 2.32 and later no longer link sys_errlist, which vinterp indexes by errno when a
# file cannot be opened: a few lines of ours provide it from strerror.
cat > "$work/errlist.c" <<'EOF'
#include <string.h>
const char *sys_errlist[256];
__attribute__((constructor)) static void fill_sys_errlist(void) {
    for (int i = 0; i < 256; ++i) sys_errlist[i] = strerror(i);
}
EOF
"$CC" -O2 -c "$work/errlist.c" -o "$work/errlist.o"

echo "building NESL's serial CVL and vinterp, and vinterp -DMPI against $libdir/libcvl.so"
mkdir -p "$work/serial/lib" "$work/mpi"
cp -r "$src/cvl" "$src/vcode" "$src/include" "$work/serial/"
cp -r "$src/vcode" "$work/mpi/"
(cd "$work/serial/cvl/serial" && make TOPCC="$CC $flags" >"$work/build-cvl-serial.log" 2>&1 &&
   cp libcvl.a ../../lib/libcvl-serial.a) || { tail -20 "$work/build-cvl-serial.log"; exit 1; }
(cd "$work/serial/vcode" && make -f Makefile.linux -o lex.yy.c -o y.tab.c -o y.tab.h \
   TOPCC="$CC $flags" CFLAGS="$parser_flags -I../include" LIBDIR=../lib \
   LIBS="-lcvl-serial -lm $work/errlist.o" >"$work/build-vinterp-serial.log" 2>&1) ||
  { tail -20 "$work/build-vinterp-serial.log"; exit 1; }
link="-L$libdir -Wl,-rpath,$libdir"
(cd "$work/mpi/vcode" && make -f Makefile.linux -o lex.yy.c -o y.tab.c -o y.tab.h \
   TOPCC="$MPICC $flags -DMPI" CFLAGS="$parser_flags -I$incdir" LFLAGS="$link" \
   LIBS="-lcvl -lm $work/errlist.o" >"$work/build-vinterp-mpi.log" 2>&1) ||
  { tail -20 "$work/build-vinterp-mpi.log"; exit 1; }
serial="$work/serial/vcode/vinterp"
parallel="$work/mpi/vcode/vinterp"
echo "link line: $MPICC $flags -DMPI -I$incdir ... $link -lcvl -lm"

# ---- the programs: NESL's test program, and examples compiled by NESL's compiler --------
mkdir -p "$work/vcode"
cp "$src/vcode/nesltest.vcode" "$work/vcode/"
programs=(nesltest)
# name | example file | definitions | expression. Inputs are computed, not drawn with
# rand, since the serial CVL and libcvl draw different random numbers.
cat > "$work/examples.txt" <<'EOF'
primes|primes||primes(50000)
quicksort|quicksort||qsort({rem(i*7919+13, 100003): i in index(50000)})
median|median||order({rem(i*7919+13, 100003): i in index(100000)}, 50000)
string-search|string-search||string_search("foo", flatten(dist("foo", 5000)))
string-sort|string-sort||string_rank({"w" ++ @rem(i*37, 101) ++ "x" ++ @rem(i*11, 7): i in index(600)})
parentheses-match|parentheses-match||paren_match(flatten(dist("(()(()))()", 400)))
line-fit|line-fit||line_fit({float(i): i in index(10000)}, {2.0*float(i) + float(rem(i*7, 13)): i in index(10000)})
listrank|listrank||list_rank({min(i+1, 9999): i in index(10000)}, dist(1, 10000))
sort|sort||let a = {rem(i*7919+13, 1009): i in index(1024)} in (bitonic_sort(a), odd_even_merge_sort(a))
awerbuch-shiloach|awerbuch-shiloach||ConCompFull([1, 5, 1, 6, 4, 13, 2, 2, 9, 12, 8, 3], [5, 6, 6, 10, 5, 4, 13, 11, 2, 9, 9, 7])
adaptive-integration|adaptive-integration|function f1(x) = 3. * x + expt(x, 2.);|(integrate1(f1, (3.0, 5.0)), integrate2(f1, (3.0, 5.0)))
bfs|bfs||breadth_first_search([0], dist(-1, 400) <- [(0, 0)], {{j: j in [i-20, i-1, i+1, i+20] | j >= 0 and j < 400 and (rem(j, 20) == rem(i, 20) or j/20 == i/20)}: i in index(400)})
sparse-matrix|sparse-matrix||matvec(pack_matrix({{(j, float(i+j)): j in [rem(i*7, 300), rem(i*13+1, 300), i]}: i in index(300)}), {float(i)/3.0: i in index(300)})
tree|tree||depth(example_tree)
convex-hull|convex-hull||convex_hull({(float(rem(i*7919, 1009)) - 504.0, float(rem(i*104729, 997)) - 498.0): i in index(5000) | (float(rem(i*7919, 1009)) - 504.0)^2 + (float(rem(i*104729, 997)) - 498.0)^2 < 250000.0})
jacobi|jacobi||test(16, 20)
nquicksort|nquicksort||qsort({rem(i*7919+13, 100003): i in index(20000)})
EOF
# The large sort: NESL's sort (rank, then permute) of SORT_N ints, timed inside the
# program by NESL's time(); the first output line is that time.
sort_exp="let a = {trunc(1.0e9 * abs(sin(float(i)))): i in index($SORT_N)}; (s, secs) = time(sort(a)) in (secs, s[0], s[#s/2], s[#s-1], all({x <= y: x in s->[0:#s-1]; y in s->[1:#s]}))"

nesl_compile() {  # name, example file (or ""), definitions, expression
  local load=""
  [ -n "$2" ] && load="load \"examples/$2.nesl\";"
  printf '(nesl-lisp::nesl)\n%s\n%s\ndump vcode "%s" %s;\nexit;\n' "$load" "$3" "$work/vcode/$1.vcode" "$4" |
    (cd "$work/nesl" && USER="${USER:-nesl}" timeout 300 "$CLISP" -q -i make.lisp) >"$work/vcode/$1.compile.log" 2>&1 || true
  [ -s "$work/vcode/$1.vcode" ]
}
have_sort=0
if command -v "$CLISP" >/dev/null 2>&1 && [ -f "$src/make.lisp" ] && [ -d "$src/examples" ]; then
  echo "compiling NESL examples with NESL's compiler ($CLISP)"
  mkdir -p "$work/nesl"
  cp -r "$src/make.lisp" "$src/config.nesl" "$src/src" "$src/examples" "$work/nesl/"
  mkdir -p "$work/nesl/neslbin"
  while IFS='|' read -r name file defs exp; do
    if nesl_compile "$name" "$file" "$defs" "$exp"; then programs+=("$name")
    else echo "  $name: NESL compile failed (see $work/vcode/$name.compile.log)"; fi
  done < "$work/examples.txt"
  nesl_compile bigsort "" "" "$sort_exp" && have_sort=1
else
  echo "no $CLISP (or no NESL compiler sources): running nesltest only"
fi

# ---- running and comparing ----------------------------------------------------------------
export MPIR_CVAR_CH4_PROGRESS_THROTTLE=1 MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=16
export OMPI_MCA_mpi_yield_when_idle=1
oversubscribe=()
if "$MPIEXEC" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then oversubscribe=(--oversubscribe); fi

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
run() {  # out-prefix, -m, vcode file, then the command
  local out="$1" mem="$2" file="$3"; shift 3
  local t0 rc=0; t0="$(now)"
  (cd "$work/vcode" && timeout "$TIMEOUT" "$@" -m "$mem" "$file" >"$out.stdout" 2>"$out.stderr") || rc=$?
  echo "$rc $(elapsed "$t0" "$(now)")" > "$out.status"
}
verdict() {  # reference prefix, run prefix, lines of stdout to skip (timing)
  local rc; rc="$(cut -d' ' -f1 "$2.status")"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo timeout; return; fi
  if cmp -s <(tail -n +"$(($3 + 1))" "$1.stdout") <(tail -n +"$(($3 + 1))" "$2.stdout") &&
     cmp -s "$1.stderr" "$2.stderr" && [ "$rc" = "$(cut -d' ' -f1 "$1.status")" ]; then echo same; return; fi
  if grep -q "ran out of vector memory" "$2.stderr"; then echo oom; return; fi
  if [ "$rc" != 0 ] || grep -q "CVL error\|CVL fatal\|Segmentation\|BAD TERMINATION\|Abort" "$2.stderr"; then echo crash; return; fi
  echo different
}

mems=("$MEM")
[ -n "$MEM_BIG" ] && mems+=("$MEM_BIG")
header="| program | serial -m $MEM |"
rule="|---|---|"
for mem in "${mems[@]}"; do for np in $NPS; do header="$header np$np -m $mem |"; rule="$rule---|"; done; done
echo
echo "vinterp with libcvl against NESL's serial CVL (stdout and stderr compared byte for byte; wall seconds)"
echo
echo "$header"
echo "$rule"
declare -A tally
for prog in "${programs[@]}"; do
  ref="$work/vcode/$prog.serial"
  run "$ref" "$MEM" "$prog.vcode" "$serial"
  row="| $prog | $(cut -d' ' -f2 "$ref.status") s |"
  for mem in "${mems[@]}"; do
    for np in $NPS; do
      out="$work/vcode/$prog.np$np.m$mem"
      run "$out" "$mem" "$prog.vcode" "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$parallel"
      v="$(verdict "$ref" "$out" 0)"
      # A difference from the serial CVL that libcvl gives alike at every rank count
      # (random numbers, last digits of a float sum) is marked "= np<first>".
      first="${NPS%% *}"
      if [ "$v" = different ] && [ "$np" != "$first" ] &&
         [ "$(verdict "$work/vcode/$prog.np$first.m$mem" "$out" 0)" = same ]; then v="different (= np$first)"; fi
      tally["np$np -m $mem: ${v%% *}"]=$(( ${tally["np$np -m $mem: ${v%% *}"]:-0} + 1 ))
      row="$row $v $(cut -d' ' -f2 "$out.status") s |"
      if [ "$v" != same ] && [ "${KEEP:-0}" = 1 ]; then
        echo "  ($prog np$np -m $mem: $v; diff $ref.stdout $out.stdout)" >&2
      fi
    done
  done
  echo "$row"
done
echo
for key in "${!tally[@]}"; do echo "$key ${tally[$key]} of ${#programs[@]}"; done | sort

# ---- a large sort, serial CVL against libcvl --------------------------------------------
if [ "$have_sort" = 1 ]; then
  echo
  echo "NESL sort (rank + permute) of $SORT_N ints, -m $SORT_MEM, time inside the program"
  echo "(NESL's time()), median of $SORT_REPS repetitions, serial and libcvl runs interleaved"
  echo
  echo "| ranks | serial CVL (s) | libcvl (s) | libcvl / serial | result |"
  echo "|---:|---:|---:|---:|---|"
  for np in $NPS; do
    st=() pt=() same=same
    for ((r = 0; r < SORT_REPS; ++r)); do
      run "$work/vcode/bigsort.serial" "$SORT_MEM" bigsort.vcode "$serial"
      run "$work/vcode/bigsort.np$np" "$SORT_MEM" bigsort.vcode "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$parallel"
      v="$(verdict "$work/vcode/bigsort.serial" "$work/vcode/bigsort.np$np" 1)"
      [ "$v" = same ] || same="$v"
      st+=("$(head -1 "$work/vcode/bigsort.serial.stdout" | tr -d '() ')")
      pt+=("$(head -1 "$work/vcode/bigsort.np$np.stdout" | tr -d '() ')")
    done
    median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.4f", v[int((NR + 1) / 2)] }'; }
    ms="$(median "${st[@]}")" mp="$(median "${pt[@]}")"
    echo "| $np | $ms | $mp | $(awk -v a="$mp" -v b="$ms" 'BEGIN { printf "%.1f", a / b }') | $same |"
  done
fi

# ---- the least vector memory each program needs -------------------------------------------
if [ -n "$MIN_MEM" ]; then
  fits() {  # -m, program, then the command: it ran to the end without running out
    local mem="$1" prog="$2"; shift 2
    run "$work/vcode/$prog.minmem" "$mem" "$prog.vcode" "$@"
    [ "$(cut -d' ' -f1 "$work/vcode/$prog.minmem.status")" = 0 ] &&
      ! grep -q "ran out of" "$work/vcode/$prog.minmem.stderr"
  }
  least() {  # program, then the command: the smallest -m that fits, within 1 %
    local prog="$1" lo="$MIN_MEM_LO" hi="$MIN_MEM_HI" mid; shift
    fits "$hi" "$prog" "$@" || { echo "> $hi"; return; }
    while [ $((hi - lo)) -gt $((hi / 100)) ]; do
      mid=$(((lo + hi) / 2))
      if fits "$mid" "$prog" "$@"; then hi="$mid"; else lo="$mid"; fi
    done
    echo "$hi"
  }
  echo
  echo "The smallest vinterp -m that completes (bisection to 1 % in [$MIN_MEM_LO, $MIN_MEM_HI])"
  echo
  header="| program | serial CVL |" rule="|---|---:|"
  for np in $NPS; do header="$header libcvl np$np |"; rule="$rule---:|"; done
  echo "$header"
  echo "$rule"
  for prog in $MIN_MEM; do
    [ -f "$work/vcode/$prog.vcode" ] || { echo "| $prog | not compiled |"; continue; }
    row="| $prog | $(least "$prog" "$serial") |"
    for np in $NPS; do row="$row $(least "$prog" "$MPIEXEC" -n "$np" "${oversubscribe[@]}" "$parallel") |"; done
    echo "$row"
  done
fi
