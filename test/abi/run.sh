#!/bin/bash
# test/abi/run.sh -- the MPI 5.0 standard ABI (libmpi_abi.so.1) of an installed Canal.
#
# Usage: test/abi/run.sh PREFIX [BUILDDIR]
#   1. builds the programs of test/abi with PREFIX/bin/mpicc_abi (against
#      PREFIX/include/abi/mpi.h) and runs each at 1, 2, 3 and 4 ranks with
#      PREFIX/bin/mpiexec; a program passes when it prints "No Errors";
#   2. with CANAL_ABI_STUBS=/path/to/mpi-abi-stubs (the MPI Forum's reference
#      header and stub library, a checkout the user provides: nothing of it is
#      part of Canal): compares every constant and prototype of
#      include/abi/mpi.h with the reference mpi.h (mpi/api/gen_abi.py check),
#      then builds the stub library from that path into BUILDDIR, compiles the
#      same programs against the reference header and links them with the
#      stub library only, and runs them at 1 to 4 ranks on Canal's
#      libmpi_abi.so.1 by putting PREFIX/lib first in LD_LIBRARY_PATH (the
#      promise of the standard ABI: build once, swap the library);
#      without it those two parts are a reported SKIP.
# A hang becomes a failure (timeout). Exit 0 when nothing failed, 1 otherwise.
set -u
PREFIX=$(cd "${1:?usage: run.sh PREFIX [BUILDDIR]}" && pwd)
SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/../.." && pwd)
BUILD=${2:-$(mktemp -d /tmp/canal-abi.XXXXXX)}
mkdir -p "$BUILD" && BUILD=$(cd "$BUILD" && pwd)
TIMEOUT=${CANAL_ABI_TIMEOUT:-240}
PROGS="abi_pt2pt abi_coll abi_comm abi_rma abi_errors abi_session abi_reqarrays abi_reqsmall abi_tools abi_values abi_types abi_finalize"
pass=0 fail=0 skip=0

result() { # NAME STATUS [DETAIL]
    echo "$2 $1${3:+ ($3)}"
    case $2 in PASS) pass=$((pass + 1)) ;; SKIP) skip=$((skip + 1)) ;; *) fail=$((fail + 1)) ;; esac
}

run_prog() { # LABEL BINARY NPROCS [env...]
    local label=$1 bin=$2 n=$3 out
    shift 3
    out=$(env "$@" timeout -k 10 "$TIMEOUT" "$PREFIX/bin/mpiexec" -n "$n" "$bin" 2>&1)
    local rc=$?
    if [ $rc -eq 0 ] && grep -q "No Errors" <<<"$out"; then
        result "$label -n $n" PASS
    else
        result "$label -n $n" FAIL "exit $rc"
        echo "$out" | tail -15 | sed 's/^/    /'
    fi
}

# 1. Canal's header and wrapper
for p in $PROGS; do
    if ! "$PREFIX/bin/mpicc_abi" -Wall -Werror -o "$BUILD/$p" "$SRC/$p.c" > "$BUILD/$p.cc.log" 2>&1; then
        result "$p (mpicc_abi)" FAIL "does not compile"
        sed 's/^/    /' "$BUILD/$p.cc.log" | head -20
        continue
    fi
    if ! readelf -d "$BUILD/$p" | grep -q 'NEEDED.*\[libmpi_abi\.so\.1\]'; then
        result "$p (mpicc_abi)" FAIL "not linked with libmpi_abi.so.1"
        continue
    fi
    for n in 1 2 3 4; do
        run_prog "$p" "$BUILD/$p" "$n"
    done
done

# 2. the MPI Forum's reference header and stub library
STUBS=${CANAL_ABI_STUBS:-}
if [ -z "$STUBS" ]; then
    result "constants and prototypes against the reference mpi.h" SKIP "set CANAL_ABI_STUBS=/path/to/mpi-abi-stubs"
    result "programs built on the reference stubs, run on libmpi_abi.so.1" SKIP "set CANAL_ABI_STUBS"
elif [ ! -f "$STUBS/mpi.h" ] || [ ! -f "$STUBS/mpilib.c" ]; then
    result "reference stubs" FAIL "$STUBS has no mpi.h and mpilib.c"
else
    if python3 "$TOP/mpi/api/gen_abi.py" check "$TOP" "$STUBS/mpi.h" "$PREFIX/include/abi/mpi.h" > "$BUILD/check.out" 2>&1; then
        result "constants and prototypes against the reference mpi.h" PASS "$(tail -1 "$BUILD/check.out")"
    else
        result "constants and prototypes against the reference mpi.h" FAIL
        head -40 "$BUILD/check.out" | sed 's/^/    /'
    fi
    mkdir -p "$BUILD/stubs/lib"
    if ! cc -shared -fPIC -O1 -I"$STUBS" -Wl,-soname,libmpi_abi.so.1 \
            -o "$BUILD/stubs/lib/libmpi_abi.so.1" "$STUBS/mpilib.c" > "$BUILD/stubs.log" 2>&1; then
        result "stub library" FAIL "does not build"
        head -20 "$BUILD/stubs.log" | sed 's/^/    /'
    else
        ln -sf libmpi_abi.so.1 "$BUILD/stubs/lib/libmpi_abi.so"
        for p in $PROGS; do
            # the stubs header and library only: no path of Canal's in the binary
            if ! cc -Wall -I"$STUBS" -o "$BUILD/stubs/$p" "$SRC/$p.c" -L"$BUILD/stubs/lib" -lmpi_abi \
                    > "$BUILD/stubs/$p.log" 2>&1; then
                result "$p (reference stubs)" FAIL "does not compile"
                head -20 "$BUILD/stubs/$p.log" | sed 's/^/    /'
                continue
            fi
            for n in 1 2 3 4; do
                run_prog "$p (built on the stubs)" "$BUILD/stubs/$p" "$n" \
                    LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
            done
        done
    fi
fi
echo "abi: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
