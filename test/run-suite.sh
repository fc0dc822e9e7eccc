#!/bin/bash
# run-suite.sh: Canal's whole test suite, from a fresh clone on Debian.
#   1. installs the Debian packages Canal needs (when run as root and missing),
#   2. builds Canal in _build and installs it into _install,
#   3. runs the unit tests (make check: Check tests per layer, doc checks),
#   4. checks the installed tools (test/tools.sh) and runs the MPI test programs through the installed mpiexec (test/mpi),
#   5. runs a valgrind subset (test/valgrind.sh), the fuzzers (test/fuzz/run.sh: clang builds in _build-fuzz, skipped without clang),
#      the Java binding's tests when a JDK is present, and the launch tests (Hydra, Open MPI, Slurm; skipped where absent),
#   6. compares the ABI with Debian's MPICH when the checker is available.
# The last line is "N passed, M failed"; the exit code is 0 only if M is 0.
# Options: --sanitize (build with ASan+UBSan in _build-sanitize/_install-sanitize),
#          --quick (skip the fuzzers, launch tests and the ABI check),
#          --tsan (also build with ThreadSanitizer in _build-tsan and run the
#          multithreaded MPI programs under it: test/tsan.sh, a few minutes).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
SANITIZE=no
QUICK=no
TSAN=no
for a in "$@"; do
    case "$a" in
        --sanitize) SANITIZE=yes ;;
        --quick) QUICK=yes ;;
        --tsan) TSAN=yes ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-suite.sh: unknown option $a" >&2; exit 2 ;;
    esac
done
BUILD=$TOP/_build
PREFIX=$TOP/_install
CONF_EXTRA=()
if [ $SANITIZE = yes ]; then
    BUILD=$TOP/_build-sanitize
    PREFIX=$TOP/_install-sanitize
    CONF_EXTRA=(--enable-sanitize)
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
JOBS=$(nproc 2>/dev/null || echo 2)

total_pass=0
total_fail=0
note() { printf '\n=== %s\n' "$*"; }
count() {  # name status
    if [ "$2" = 0 ]; then total_pass=$((total_pass + 1)); echo "PASS $1"
    else total_fail=$((total_fail + 1)); echo "FAIL $1"; fi
}

note "dependencies"
bash "$TOP/test/install-deps.sh" || { echo "FAIL installing dependencies"; echo "0 passed, 1 failed"; exit 1; }

note "build and install ($BUILD -> $PREFIX)"
if [ ! -x "$TOP/configure" ] || [ "$TOP/configure.ac" -nt "$TOP/configure" ]; then
    ./autogen.sh > /tmp/canal-autogen.log 2>&1 || { cat /tmp/canal-autogen.log; echo "0 passed, 1 failed"; exit 1; }
fi
mkdir -p "$BUILD"
( cd "$BUILD" && { [ -f Makefile ] || "$TOP/configure" --prefix="$PREFIX" "${CONF_EXTRA[@]}" > configure.out 2>&1 || { cat configure.out; exit 1; }; } \
    && make -j"$JOBS" > make.out 2>&1 && make install > install.out 2>&1 )
rc=$?
if [ $rc != 0 ]; then
    tail -40 "$BUILD"/make.out "$BUILD"/install.out 2>/dev/null
    count "build and install" 1
    echo "$total_pass passed, $total_fail failed"
    exit 1
fi
count "build and install" 0
grep -E "warning:" "$BUILD/make.out" | sort -u | head -20

note "unit tests (make check)"
( cd "$BUILD" && make -j"$JOBS" check > check.out 2>&1 )
grep -E "^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):" "$BUILD/check.out"
up=$(grep -c "^PASS:" "$BUILD/check.out")
uf=$(grep -cE "^(FAIL|ERROR|XPASS):" "$BUILD/check.out")
if [ "$uf" != 0 ]; then
    for f in $(grep -lE "^(FAIL|ERROR)" "$BUILD"/test/*.log "$BUILD"/test/unit/*.log 2>/dev/null); do
        echo "--- $f"; tail -30 "$f"
    done
fi
if [ "$up" = 0 ] && [ "$uf" = 0 ] && ! grep -q "^PASS\|^SKIP" "$BUILD/check.out"; then
    tail -30 "$BUILD/check.out"; uf=1
fi
total_pass=$((total_pass + up)); total_fail=$((total_fail + uf))

note "installed tools (mpicc, mpiexec, canal-info, files)"
out=$(mktemp)
bash "$TOP/test/tools.sh" "$PREFIX" | tee "$out"
tp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
tf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
rm -f "$out"
total_pass=$((total_pass + ${tp:-0})); total_fail=$((total_fail + ${tf:-1}))

note "MPI programs through mpiexec"
out=$(mktemp)
bash "$TOP/test/mpi/runtests.sh" "$PREFIX" "$BUILD/test-mpi" | tee "$out"
mp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
mf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
rm -f "$out"
total_pass=$((total_pass + ${mp:-0})); total_fail=$((total_fail + ${mf:-1}))

if [ $SANITIZE = no ]; then
    note "valgrind memcheck of point-to-point and collective programs"
    out=$(mktemp)
    bash "$TOP/test/valgrind.sh" "$PREFIX" "$BUILD/test-valgrind" | tee "$out"
    vp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    vf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    rm -f "$out"
    total_pass=$((total_pass + ${vp:-0})); total_fail=$((total_fail + ${vf:-1}))
fi

if [ $QUICK = yes ]; then
    note "fuzzers: skipped (--quick)"
else
    note "fuzzers (libFuzzer, a fixed number of iterations per target; test/fuzz/run.sh)"
    out=$(mktemp)
    bash "$TOP/test/fuzz/run.sh" | tee "$out"
    rc=${PIPESTATUS[0]}
    if [ "$rc" = 77 ]; then
        echo "SKIP fuzzers (clang or libclang-rt-14-dev missing)"
    else
        fp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
        ff=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
        total_pass=$((total_pass + ${fp:-0})); total_fail=$((total_fail + ${ff:-1}))
    fi
    rm -f "$out"
fi

if [ $SANITIZE = no ] && command -v javac > /dev/null && [ -f "$TOP/bindings/java/Makefile" ]; then
    note "Java binding (managed-runtime extension under a real JVM)"
    timeout -k 10 600 make -C "$TOP/bindings/java" PREFIX="$PREFIX" check > "$BUILD/java.log" 2>&1
    rc=$?
    grep -E "^(PASS|FAIL)" "$BUILD/java.log"
    [ $rc != 0 ] && tail -20 "$BUILD/java.log"
    count "Java binding" $rc
fi

if [ $QUICK = no ] && [ -d "$TOP/test/launch" ]; then
    note "launch by other process managers"
    for t in "$TOP"/test/launch/*.sh; do
        [ -f "$t" ] || continue
        [ "$(basename "$t")" = common.sh ] && continue
        timeout -k 10 600 bash "$t" "$PREFIX" "$BUILD/test-mpi/hello" > "$BUILD/launch-$(basename "$t").log" 2>&1
        rc=$?
        tail -3 "$BUILD/launch-$(basename "$t").log"
        case $rc in
            0) count "launch $(basename "$t")" 0 ;;
            77) echo "SKIP launch $(basename "$t")" ;;
            *) count "launch $(basename "$t")" 1; tail -20 "$BUILD/launch-$(basename "$t").log" ;;
        esac
    done
fi

ABI_CHECK=${CANAL_ABI_CHECK:-$TOP/../shared/tools/abi-check.sh}
if [ $QUICK = no ] && [ $SANITIZE = no ] && [ -f "$ABI_CHECK" ] && [ -e /usr/lib/x86_64-linux-gnu/libmpich.so.12 ]; then
    note "ABI against Debian's MPICH"
    bash "$ABI_CHECK" "$PREFIX" > "$BUILD/abi.out" 2>&1
    rc=$?
    tail -3 "$BUILD/abi.out"
    count "ABI check" $rc
fi

if [ $TSAN = yes ]; then
    note "multithreaded programs under ThreadSanitizer (test/tsan.sh)"
    bash "$TOP/test/tsan.sh" > "$BUILD/tsan.out" 2>&1
    rc=$?
    grep -E '^(FAIL|[0-9]+ passed)' "$BUILD/tsan.out"
    count "ThreadSanitizer runs" $rc
fi

echo
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ]
