#!/bin/bash
# run-suite.sh: Canal's whole test suite, from a fresh clone on Debian.
#   1. installs the Debian packages Canal needs (when run as root and missing),
#   2. builds Canal in _build and installs it into _install,
#   3. runs the unit tests (make check: Check tests per layer, doc checks),
#   4. checks the installed tools (test/tools.sh) and the test machinery (test/selftest.sh), runs the MPI test programs through the installed mpiexec (test/mpi)
#      and the Fortran library's tests (test/fortran/run.sh),
#   5. runs a valgrind subset (test/valgrind.sh), the fuzzers (test/fuzz/run.sh: clang builds in _build-fuzz),
#      and the launch tests (Hydra, Open MPI, Slurm); the Java binding's programs
#      run with the MPI programs of step 4 (test/mpi/testlist.java),
#   6. compares the ABI with Debian's MPICH (test/abi-check.sh), and runs the
#      MPI 5.0 standard ABI's programs on libmpi_abi.so.1 (test/abi/run.sh; with
#      CANAL_ABI_STUBS=/path/to/mpi-abi-stubs also against the MPI Forum's
#      reference header and stub library).
# A part that cannot run (a tool missing, an option leaving it out) prints a
# SKIP line saying why. The last line is "N passed, M failed"; the exit code is
# 0 only if M is 0. A _build configured for another prefix is reconfigured.
# Options: --sanitize (build with ASan+UBSan in _build-sanitize/_install-sanitize),
#          --quick (leave out valgrind, the fuzzers, the Java binding and the
#          launch tests; the unit tests and MPI programs, most of the time, stay),
#          --no-tsan (leave out the ThreadSanitizer build in _build-tsan and
#          its runs of the multithreaded MPI programs, test/tsan.sh: they are
#          part of the whole suite, not of --quick or --sanitize; --tsan adds
#          them to those).
# Timeouts: CANAL_TEST_TIMEOUT_SCALE=F multiplies every hang limit (unit tests
# and MPI programs); they already grow with the load and the rank count.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
SANITIZE=no
QUICK=no
TSAN=auto
for a in "$@"; do
    case "$a" in
        --sanitize) SANITIZE=yes ;;
        --quick) QUICK=yes ;;
        --tsan) TSAN=yes ;;
        --no-tsan) TSAN=no ;;
        -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run-suite.sh: unknown option $a" >&2; exit 2 ;;
    esac
done
if [ $TSAN = auto ]; then
    TSAN=yes
    [ $QUICK = yes ] || [ $SANITIZE = yes ] && TSAN=no
fi
BUILD=$TOP/_build
PREFIX=$TOP/_install
CONF_EXTRA=()
if [ $SANITIZE = yes ]; then
    BUILD=$TOP/_build-sanitize
    PREFIX=$TOP/_install-sanitize
    CONF_EXTRA=(--enable-sanitize --disable-java) # the JVM cannot load an ASan-built libmpi
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
JOBS=$(nproc 2>/dev/null || echo 2)
# Hang limits of the parts run here (seconds): generous, times CANAL_TEST_TIMEOUT_SCALE.
SCALE=${CANAL_TEST_TIMEOUT_SCALE:-1}
scaled() { awk -v s="$1" -v f="$SCALE" 'BEGIN { v = s * f; printf "%d\n", v < 1 ? 1 : v }'; }

total_pass=0
total_fail=0
SUITE_START=$(date +%s)
elapsed() { local t=$(($(date +%s) - SUITE_START)); printf '%dm%02ds' $((t / 60)) $((t % 60)); }
note() { printf '\n=== %s (at %s)\n' "$*" "$(elapsed)"; }
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
# A build tree left by another configure (the README's first command, or a
# person's own --prefix) is reused when its prefix is ours, compared as
# canonical paths (_build/../_install is _install); otherwise reconfigured.
if [ -f "$BUILD/Makefile" ]; then
    built_prefix=$(sed -n 's/^prefix = //p' "$BUILD/Makefile")
    if [ "$(readlink -m "$built_prefix")" != "$(readlink -m "$PREFIX")" ]; then
        echo "$BUILD was configured for $built_prefix: reconfiguring for $PREFIX"
        rm -f "$BUILD/Makefile"
    fi
fi
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
# What configure did not find is left out of the build and of "make check": say so.
for c in "CHECK:the Check unit tests (Debian package check)" \
         "OFI:the ofi channel and its unit test (libfabric-dev)" "PMIX:the PMIx client (libpmix-dev)"; do
    grep -q "^S\[\"HAVE_${c%%:*}_TRUE\"\]=\"#\"" "$BUILD/config.status" 2>/dev/null &&
        echo "SKIP ${c#*:}: configure did not find it"
done
grep -E "warning:" "$BUILD/make.out" | sort -u | head -20

note "unit tests (make check)"
( cd "$BUILD" && make -j"$JOBS" check > check.out 2>&1 )
grep -E "^(PASS|FAIL|XFAIL|XPASS|ERROR|SKIP):" "$BUILD/check.out"
# A skipped unit test says why in its log.
for t in $(sed -n 's/^SKIP: //p' "$BUILD/check.out"); do
    echo "    $(grep 'SKIP' "$BUILD/$t.log" 2>/dev/null | grep -v 'exit status: 77' | tail -1 | grep . || echo "(no reason in $t.log)")"
done
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

note "the test machinery (test/selftest.sh: install-deps.sh, runtests.sh)"
out=$(mktemp)
bash "$TOP/test/selftest.sh" "$PREFIX" | tee "$out"
sp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
sf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
rm -f "$out"
total_pass=$((total_pass + ${sp:-0})); total_fail=$((total_fail + ${sf:-1}))

note "MPI programs through mpiexec"
export CANAL_TEST_SANITIZED=$SANITIZE  # (runtests.sh: the lang_* programs need an unsanitized library)
out=$(mktemp)
# the Java programs (testlist.java) print SKIP with --quick (CANAL_TEST_JAVA=0)
# and --sanitize (built --disable-java)
[ $QUICK = yes ] && export CANAL_TEST_JAVA=0
bash "$TOP/test/mpi/runtests.sh" "$PREFIX" "$BUILD/test-mpi" | tee "$out"
mp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
mf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
rm -f "$out"
total_pass=$((total_pass + ${mp:-0})); total_fail=$((total_fail + ${mf:-1}))

note "Fortran: mpif.h, libmpifort, programs built with mpifort and with MPICH's mpif90 (test/fortran/run.sh)"
out=$(mktemp)
CANAL_TEST_SANITIZED=$SANITIZE bash "$TOP/test/fortran/run.sh" "$PREFIX" "$BUILD/test-fortran" | tee "$out"
fp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
ff=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
rm -f "$out"
total_pass=$((total_pass + ${fp:-0})); total_fail=$((total_fail + ${ff:-1}))

if [ $SANITIZE = yes ]; then
    echo "SKIP valgrind memcheck (a sanitizer build cannot run under valgrind)"
elif [ $QUICK = yes ]; then
    echo "SKIP valgrind memcheck (--quick)"
else
    note "valgrind memcheck of point-to-point and collective programs"
    out=$(mktemp)
    bash "$TOP/test/valgrind.sh" "$PREFIX" "$BUILD/test-valgrind" | tee "$out"
    vp=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    vf=$(tail -1 "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    rm -f "$out"
    total_pass=$((total_pass + ${vp:-0})); total_fail=$((total_fail + ${vf:-1}))
fi

if [ $QUICK = yes ]; then
    echo "SKIP fuzzers (--quick)"
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

# The Java binding's programs (test/mpi/java, testlist.java) run with the MPI
# tests above; they SKIP without a JDK or a Canal built without it.

if [ $QUICK = yes ]; then
    echo "SKIP launch tests (--quick)"
else
    note "launch by other process managers"
    for t in "$TOP"/test/launch/*.sh; do
        [ -f "$t" ] || continue
        [ "$(basename "$t")" = common.sh ] && continue
        timeout -k 10 "$(scaled 1200)" bash "$t" "$PREFIX" "$BUILD/test-mpi/hello" > "$BUILD/launch-$(basename "$t").log" 2>&1
        rc=$?
        tail -3 "$BUILD/launch-$(basename "$t").log"
        case $rc in
            0) count "launch $(basename "$t")" 0 ;;
            77) echo "SKIP launch $(basename "$t"): $(grep -m1 '^SKIP' "$BUILD/launch-$(basename "$t").log" | sed 's/^SKIP:* *//')" ;;
            # Each failed run's FAIL line and the lines under it (its
            # command and output), wherever it is in the log.
            *) count "launch $(basename "$t")" 1
               awk '/^FAIL/ { p = 1 } /^(PASS|SKIP)/ { p = 0 } p' "$BUILD/launch-$(basename "$t").log" | head -80 ;;
        esac
    done
fi

note "ABI against Debian's MPICH (test/abi-check.sh)"
if [ $SANITIZE = yes ]; then
    # The probe programs would load a library built with ASan without its
    # runtime first; the ABI does not depend on the sanitizers anyway.
    echo "SKIP ABI check (a sanitizer build; the normal run checks the ABI)"
else
    bash "$TOP/test/abi-check.sh" "$PREFIX" > "$BUILD/abi.out" 2>&1
    rc=$?
    case $rc in
        77) cat "$BUILD/abi.out" ;;
        0) tail -1 "$BUILD/abi.out"; count "ABI check" 0 ;;
        *) head -40 "$BUILD/abi.out"; tail -1 "$BUILD/abi.out"; count "ABI check" 1 ;;
    esac
fi

note "the MPI 5.0 standard ABI, libmpi_abi.so.1 (test/abi/run.sh)"
abi_stubs=${CANAL_ABI_STUBS:-}
if [ $SANITIZE = yes ] && [ -n "$abi_stubs" ]; then
    # programs built on the reference stubs have no sanitizer runtime to load
    # the sanitized library with; the normal run swaps the libraries
    echo "SKIP standard ABI programs built on the reference stubs (a sanitizer build)"
    abi_stubs=
fi
CANAL_ABI_STUBS=$abi_stubs bash "$TOP/test/abi/run.sh" "$PREFIX" "$BUILD/test-abi" > "$BUILD/abi-std.out" 2>&1
rc=$?
grep -E '^(FAIL|SKIP)' "$BUILD/abi-std.out"
grep -A15 '^FAIL' "$BUILD/abi-std.out" | grep '^    ' | head -40
tail -1 "$BUILD/abi-std.out"
count "standard ABI (test/abi)" $rc

if [ $TSAN = no ]; then
    echo "SKIP ThreadSanitizer runs (--quick, --sanitize and --no-tsan leave them out)"
else
    note "multithreaded programs under ThreadSanitizer (test/tsan.sh)"
    bash "$TOP/test/tsan.sh" > "$BUILD/tsan.out" 2>&1
    rc=$?
    grep -E '^(FAIL|[0-9]+ passed)' "$BUILD/tsan.out"
    count "ThreadSanitizer runs" $rc
fi

echo
echo "suite took $(elapsed) (load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), $(nproc) cores)"
echo "$total_pass passed, $total_fail failed"
[ $total_fail = 0 ]
