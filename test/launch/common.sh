# Shared helpers of the launch tests in test/launch/ (sourced, not run).
# Each test takes PREFIX (an installed Canal) and a program (plus its
# arguments), prints PASS, SKIP or FAIL lines and exits 0, 77 or 1.

launch_usage() {
    echo "usage: $0 PREFIX PROGRAM [ARGS...]" >&2
    echo "  PREFIX: an installed Canal (its lib/ holds libmpi.so.12)" >&2
    echo "  PROGRAM: a Canal MPI program that exits 0 on success" >&2
    exit 2
}

launch_setup() {
    [ $# -ge 2 ] || launch_usage
    PREFIX=$(cd "$1" 2>/dev/null && pwd) || { echo "FAIL: PREFIX '$1' is not a directory"; exit 1; }
    shift
    PROG=$1
    shift
    PROG_ARGS=("$@")
    case $PROG in /*) ;; */*) PROG=$(cd "$(dirname "$PROG")" && pwd)/$(basename "$PROG") ;; esac
    if [ ! -x "$PROG" ] && ! command -v "$PROG" >/dev/null 2>&1; then
        echo "FAIL: program '$PROG' is not executable"
        exit 1
    fi
    # The program must load Canal's libmpi.so.12, not MPICH's (same soname).
    export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # pmi_init logs "PMI: <kind>, rank R of N" at this level: proof of the PMI in use.
    export CANAL_DEBUG=2
    # An outer launcher's variables would mislead the program under test.
    unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE PMI_JOBID PMIX_NAMESPACE PMIX_RANK CANAL_PMI
    LAUNCH_FAILED=0
    LAUNCH_RAN=0
    LAUNCH_OUT=$(mktemp)
    LAUNCH_TMP=$(mktemp -d)
    trap 'rm -f "$LAUNCH_OUT"; rm -rf "$LAUNCH_TMP"' EXIT
}

launch_skip() { echo "SKIP: $*"; exit 77; }

# launch_hang_limit SECONDS: how long a launch may take before it counts as
# hung. No launch test depends on speed: the base grows with the load average
# per core and CANAL_TEST_TIMEOUT_SCALE, as in test/mpi/runtests.sh.
launch_hang_limit() {
    local load
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
    awk -v b="$1" -v l="$load" -v c="$(nproc 2>/dev/null || echo 1)" \
        -v s="${CANAL_TEST_TIMEOUT_SCALE:-1}" 'BEGIN {
        f = l / c > 1 ? l / c : 1
        printf "%d\n", b * f * (s > 0 ? s : 1) + 0.5 }'
}

# check_run NAME NPROCS PMI-REGEX COMMAND...: run, expect exit 0 and one
# "PMI: <kind>, rank R of N" line per rank with kind matching PMI-REGEX.
check_run() {
    local name=$1 n=$2 kind=$3 rc r missing="" limit
    shift 3
    limit=$(launch_hang_limit 120)
    timeout "$limit" "$@" >"$LAUNCH_OUT" 2>&1
    rc=$?
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    for ((r = 0; r < n; r++)); do
        grep -Eq "PMI: ${kind}.*rank $r of $n\b" "$LAUNCH_OUT" || missing="$missing $r"
    done
    if [ $rc -eq 0 ] && [ -z "$missing" ]; then
        echo "PASS: $name"
        return 0
    fi
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    if [ $rc -eq 124 ]; then
        echo "FAIL: $name: hung (killed after $limit s)"
    elif [ $rc -ne 0 ]; then
        echo "FAIL: $name: exit code $rc"
    else
        echo "FAIL: $name: no 'PMI: $kind ... rank R of $n' line for rank(s)$missing"
    fi
    echo "--- command: $*"
    tail -n 30 "$LAUNCH_OUT" | sed 's/^/    /'
    return 1
}

# launch_build DIR/NAME: compile test/DIR/NAME.c with PREFIX's mpicc into
# the test's temporary directory and print the program's path (empty if it
# fails).
launch_build() {
    local src name=${1##*/}
    src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/$1.c"
    if "$PREFIX/bin/mpicc" -O1 -o "$LAUNCH_TMP/$name" "$src" > "$LAUNCH_TMP/$name.log" 2>&1; then
        echo "$LAUNCH_TMP/$name"
    else
        sed 's/^/    /' "$LAUNCH_TMP/$name.log" >&2
    fi
}

# check_spawn NAME NPROCS PMI-REGEX COMMAND...: check_run, and the output
# must also say "No Errors" (the verdict of a test/mpi program).
check_spawn() {
    local name=$1
    check_run "$@" || return 1
    grep -q "No Errors" "$LAUNCH_OUT" && return 0
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: $name: the program did not print \"No Errors\""
    tail -n 30 "$LAUNCH_OUT" | sed 's/^/    /'
    return 1
}

launch_finish() {
    if [ "$LAUNCH_FAILED" -gt 0 ]; then
        echo "FAIL: $LAUNCH_FAILED of $LAUNCH_RAN runs failed"
        exit 1
    fi
    exit 0
}
