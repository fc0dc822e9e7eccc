#!/bin/sh
# run-tests.sh PREFIX: the Java binding's tests through Canal's mpiexec: the
# GC stress program on 2 and 4 ranks (a thread forces collections in a loop),
# also over the sock channel. Prints PASS/FAIL lines; exits nonzero on failure.
set -u
# libinfinipath (pulled in by libfabric) traps SIGSEGV, which the JVM uses
# in normal operation; other launchers than Canal's mpiexec need this too.
export IPATH_NO_BACKTRACE=1
PREFIX=${1:?usage: run-tests.sh PREFIX}
cd "$(dirname "$0")"
B=build
CP=$B/canal-mpi.jar:$B/test
JAVA=${JAVA:-java}
fail=0
run() { # name np env... -- args
    name=$1; np=$2; shift 2
    log=$B/$name.n$np.log
    if env "$@" timeout -k 5 300 "$PREFIX/bin/mpiexec" -n "$np" "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx256m \
            -Djava.library.path=$B -cp "$CP" GcStress 120 > "$log" 2>&1 &&
            grep -q "No Errors" "$log"; then
        echo "PASS $name -n $np"
    else
        echo "FAIL $name -n $np (see $log)"; tail -15 "$log" | sed 's/^/    /'
        fail=1
    fi
}
run gcstress 2 CANAL_JAVA_VERBOSE=1
run gcstress 4 CANAL_JAVA_VERBOSE=1
run gcstress-sock 2 CANAL_CHANNEL=sock
run gcstress-nocma 4 CANAL_SHM_CMA=no
run gcstress-copy 2 CANAL_JAVA_ZEROCOPY_MAX=0 CANAL_JAVA_SPIN_US=0
exit $fail
