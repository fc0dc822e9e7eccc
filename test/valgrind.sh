#!/bin/bash
# valgrind.sh PREFIX [BUILDDIR]: run point-to-point and collective programs of
# test/mpi under valgrind's memcheck through mpiexec; a program passes when
# every rank reports no errors and no definitely lost memory at exit.
# Prints PASS/FAIL per program and "N passed, M failed" last.
set -u
PREFIX=$(cd "${1:?usage: valgrind.sh PREFIX [BUILDDIR]}" && pwd)
SRC=$(cd "$(dirname "$0")/mpi" && pwd)
W=${2:-$(mktemp -d /tmp/canal-vg.XXXXXX)}
mkdir -p "$W"
command -v valgrind > /dev/null || { echo "SKIP valgrind (not installed)"; echo "0 passed, 0 failed"; exit 0; }
pass=0
fail=0
for spec in "pt2pt_basic 2" "pt2pt_order 3" "pt2pt_packed 3" "type_send 2" "coll_basic 3" "coll_nonblocking 2" "comm_dup 2"; do
    set -- $spec
    prog=$1 np=$2
    "$PREFIX/bin/mpicc" -g -O1 -o "$W/$prog" "$SRC/$prog.c" -lm > "$W/$prog.build" 2>&1 || {
        echo "FAIL $prog (does not build)"; fail=$((fail + 1)); continue; }
    rm -f "$W/vg.$prog".*
    # A hang limit, not a speed test: 300 s grown with the load and CANAL_TEST_TIMEOUT_SCALE.
    limit=$(awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v c="$(nproc)" -v s="${CANAL_TEST_TIMEOUT_SCALE:-1}" \
        'BEGIN { f = l / c > 1 ? l / c : 1; printf "%d\n", 300 * f * (s > 0 ? s : 1) + 0.5 }')
    (cd "$W" && timeout -k 5 "$limit" "$PREFIX/bin/mpiexec" -n "$np" valgrind --leak-check=full \
        --log-file="$W/vg.$prog.%p" "./$prog") < /dev/null > "$W/$prog.out" 2>&1
    rc=$?
    bad=$(cat "$W/vg.$prog".* 2>/dev/null | grep -E "ERROR SUMMARY: [1-9]|definitely lost: [1-9]" | head -3)
    n=$(ls "$W/vg.$prog".* 2>/dev/null | wc -l)
    if [ $rc = 0 ] && [ -z "$bad" ] && [ "$n" = "$np" ]; then
        echo "PASS valgrind $prog -n $np"
        pass=$((pass + 1))
    else
        echo "FAIL valgrind $prog -n $np (exit $rc, $n logs) $bad"
        tail -5 "$W/$prog.out"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
