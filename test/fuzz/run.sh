#!/bin/bash
# run.sh: build Canal's libFuzzer targets with clang and run each a fixed
# number of iterations. Usage:
#   test/fuzz/run.sh [--runs N | --seconds S] [--jobs J] [target...]
# Targets are the test/fuzz/fuzz_<target>.c files (default: all). Prints one
# line per target (PASS/FAIL, iterations, seconds), then "N passed, M failed",
# and exits nonzero if any
# target crashed, leaked, hung or hit a sanitizer report; exits 77 when clang
# or its fuzzer runtime (libclang-rt-14-dev) is missing.
#
# How it builds: the library is configured once more, with CC=clang and
# -fsanitize=fuzzer-no-link,address,undefined, in _build-fuzz (static
# libraries only; nothing is installed), and `make libmpi.la` produces
# _build-fuzz/.libs/libmpi.a. Each target is one C file linked against that
# archive with -fsanitize=fuzzer. Why the whole library rather than a few
# sources: the adi, unpack and info targets need a running MPI (singleton
# MPI_Init), and the static archive lets every target also call the hidden
# internal functions (pmi_wire_*, ch_sock_*, adi_on_packet) directly, with all
# of Canal instrumented for coverage. clang 14 has no _Float16 on x86-64, so
# the fuzz build maps it to __fp16 (same size, a storage-only type whose
# arithmetic is done in float, with conversions from clang's builtins
# library) -- MPIX_C_FLOAT16 is not what is fuzzed here.
#
# Each target's corpus: test/fuzz/corpus/<target>/ (seeds, and inputs that
# once crashed, replayed on every run) plus _build-fuzz/fuzz/corpus-<target>/
# where libFuzzer keeps what it finds. Crash inputs go to
# _build-fuzz/fuzz/crashes/; see doc/fuzzing.md for longer runs and minimising.
set -u
cd "$(dirname "$0")/../.."
TOP=$(pwd)
BUILD=${CANAL_FUZZ_BUILD:-$TOP/_build-fuzz}
RUNS=
SECONDS_EACH=
JOBS=2
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --seconds) SECONDS_EACH=$2; shift 2 ;;
        --jobs) JOBS=$2; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
if [ ${#TARGETS[@]} = 0 ]; then
    for f in "$TOP"/test/fuzz/fuzz_*.c; do
        t=$(basename "$f" .c)
        TARGETS+=("${t#fuzz_}")
    done
fi

# Default iterations per target, chosen so that all of them together take
# well under 3 minutes on 2 busy cores (the parsers run ~10^5 inputs/s, the
# targets that go through MPI calls ~10^3-10^4).
default_runs() {
    case "$1" in
        pmi_wire | sock_wire) echo 200000 ;;
        pmi_client) echo 20000 ;;
        pmi_server) echo 3000 ;;
        adi_packet) echo 30000 ;;
        unpack_external) echo 30000 ;;
        info) echo 2000 ;;
        *) echo 20000 ;;
    esac
}

CC=${CLANG:-clang}
if ! command -v "$CC" > /dev/null; then
    echo "SKIP fuzzers: clang not found (install clang and libclang-rt-14-dev)"
    exit 77
fi
mkdir -p "$BUILD/fuzz/crashes"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    > "$BUILD/fuzz/probe.c"
if ! "$CC" -fsanitize=fuzzer,address,undefined -o "$BUILD/fuzz/probe" "$BUILD/fuzz/probe.c" \
    > "$BUILD/fuzz/probe.log" 2>&1; then
    echo "SKIP fuzzers: $CC cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)"
    exit 77
fi

FLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
-fno-sanitize-recover=undefined -D_Float16=__fp16"
if [ ! -f "$BUILD/Makefile" ]; then
    [ -x "$TOP/configure" ] || ./autogen.sh > "$BUILD/fuzz/autogen.log" 2>&1
    (cd "$BUILD" && CC="$CC" CFLAGS="$FLAGS" "$TOP/configure" --enable-static --disable-shared \
        > configure.out 2>&1) || { tail -20 "$BUILD/configure.out"; echo "FAIL fuzz build (configure)"; exit 1; }
fi
if ! make -C "$BUILD" -j"$JOBS" libmpi.la > "$BUILD/fuzz/make.log" 2>&1; then
    tail -30 "$BUILD/fuzz/make.log"
    echo "FAIL fuzz build (libmpi)"
    exit 1
fi
# the library's own warning flags (-Wall -Wextra ...), since pmi_server compiles mpiexec sources
warn=$(sed -n 's/^CANAL_WARN_CFLAGS = //p' "$BUILD/Makefile")
libs=$(sed -n 's/^\(OFI_LIBS\|PMIX_LIBS\|HWLOC_LIBS\|LIBS\) = //p' "$BUILD/Makefile" | tr '\n' ' ')
# __fp16 arithmetic calls __gnu_h2f_ieee/__gnu_f2h_ieee, which only clang's builtins library has
rtlib=$("$CC" -rtlib=compiler-rt -print-libgcc-file-name 2>/dev/null)
[ -f "$rtlib" ] && libs="$libs $rtlib"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The MPI-level targets start a singleton: keep it from looking for a launcher.
unset PMI_FD PMI_PORT PMI_RANK PMI_SIZE PMIX_NAMESPACE PMIX_RANK OMPI_COMM_WORLD_SIZE

fail=0
npass=0
nfail=0
for t in "${TARGETS[@]}"; do
    src=$TOP/test/fuzz/fuzz_$t.c
    bin=$BUILD/fuzz/fuzz_$t
    if [ ! -f "$src" ]; then
        echo "FAIL fuzz $t: no $src"
        fail=1
        nfail=$((nfail + 1))
        continue
    fi
    # sources a target compiles in itself (#include "x.c") are dependencies too
    stale=no
    for dep in "$src" "$BUILD/.libs/libmpi.a" \
        $(sed -n 's/^#include "\(.*\.c\)"$/\1/p' "$src" | sed "s|^|$TOP/|"); do
        { [ ! -e "$dep" ] || [ "$dep" -nt "$bin" ]; } && stale=yes
    done
    if [ ! -x "$bin" ] || [ $stale = yes ]; then
        # shellcheck disable=SC2086
        if ! "$CC" -std=gnu11 $warn $FLAGS -fsanitize=fuzzer -I"$TOP" -I"$TOP/mpi" \
            -I"$BUILD" -D_GNU_SOURCE -DCANAL_BUILDING -o "$bin" "$src" "$BUILD/.libs/libmpi.a" \
            $libs -lpthread -lm -ldl > "$BUILD/fuzz/build-$t.log" 2>&1; then
            cat "$BUILD/fuzz/build-$t.log"
            echo "FAIL fuzz $t (build)"
            fail=1
            nfail=$((nfail + 1))
            continue
        fi
        grep -q "warning:" "$BUILD/fuzz/build-$t.log" && cat "$BUILD/fuzz/build-$t.log"
    fi
    work=$BUILD/fuzz/corpus-$t
    seeds=$TOP/test/fuzz/corpus/$t
    mkdir -p "$work" "$seeds"
    limit=(-runs="${RUNS:-$(default_runs "$t")}")
    [ -n "$SECONDS_EACH" ] && limit=(-max_total_time="$SECONDS_EACH")
    log=$BUILD/fuzz/run-$t.log
    start=$(date +%s)
    # from the build dir: a crashing rank's helper libraries may drop files in the cwd
    (cd "$BUILD/fuzz" && exec "$bin" "${limit[@]}" -max_len=16384 -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$BUILD/fuzz/crashes/$t-" "$work" "$seeds") > "$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc = 0 ]; then
        echo "PASS fuzz $t (${runs:-?} runs, ${secs}s, $cov)"
        npass=$((npass + 1))
    else
        fail=1
        nfail=$((nfail + 1))
        echo "FAIL fuzz $t (exit $rc after ${runs:-?} runs, ${secs}s; log $log)"
        grep -E "ERROR:|runtime error|SUMMARY|Test unit written" "$log" | head -8 | sed 's/^/    /'
    fi
done
echo "$npass passed, $nfail failed"
exit $fail
