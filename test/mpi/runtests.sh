#!/bin/bash
# runtests.sh: build the MPI test programs of test/mpi with an installed
# Canal's mpicc and run them through its mpiexec, as the testlist files say.
# A program NAME with a test/mpi/java/NAME.java is a Java program (Open MPI's
# Java API) built with the installed mpijavac and run in a JVM (see
# compile_java below; a SKIP without a JDK).
#
# Usage: test/mpi/runtests.sh PREFIX [BUILDDIR] [FILTER-REGEX]
#
# A testlist line is:  program nprocs [key=value ...]
#   expect=N      exit code the job must end with (default 0)
#   output=TEXT   text the output must contain, ~ for a space (default "No Errors" when
#                 expect is 0; nothing otherwise)
#   timeout=S     the test's hang limit in seconds on an idle machine with a
#                 core per rank (default 120); see "Hang limits" below
#   env=K=V       environment for the job (may repeat)
#   launcher=X    start with X instead of PREFIX/bin/mpiexec ("none" runs the
#                 program directly: a singleton)
#   args=A        arguments of the program, ~ for a space
#   mpiexec_args=A  options of PREFIX/bin/mpiexec before -n, ~ for a space (e.g. -bind-to~core)
#   cpus=LIST     run the job under `taskset -c LIST` (the launcher and every rank may use
#                 only those CPUs); the test is a SKIP, with a message, where this runner
#                 cannot use them all (fewer CPUs, or a narrower affinity/cpuset)
# A test also fails when it leaves shm segments (canal-...-p<pid>) whose creator is gone,
# or processes of the program (started in BUILD) still running 2 s after the job ended.
# Run as root where mount namespaces are allowed, each job gets a /dev/shm of
# its own (unshare --mount, a fresh tmpfs): segments of other jobs on the
# machine are then neither blamed on it nor removed. Otherwise (or with
# CANAL_TEST_PRIVATE_SHM=0) /dev/shm is compared before and after the job.
# Lines starting with # are comments. Every testlist* file in test/mpi is read.
# A program is its source file in test/mpi: PROGRAM.c (built with PREFIX's mpicc),
# PROGRAM.cpp (PREFIX's mpicxx), or PROGRAM.f90 / PROGRAM.cxx, built with Debian's
# MPICH wrappers mpif90.mpich / mpicxx.mpich (MPICH's own Fortran and C++
# libraries) and run on Canal with LD_LIBRARY_PATH=PREFIX/lib; those are a SKIP
# where the wrapper or its compiler is missing. CANAL_TEST_MPIF90 and
# CANAL_TEST_MPICXX name other MPICH wrappers.
# Hang limits: no test depends on speed; a job is killed as hung only after
#   S x max(1, (nprocs + load average) / cores) x CANAL_TEST_TIMEOUT_SCALE
# seconds (cores from nproc, the 1-minute load average read as each test
# starts): the share of a core each rank gets when it competes with its own
# job and everything else running, so oversubscribed jobs and a busy machine
# get proportionally longer.
# A test that passes but prints a line starting "skipped:" or "SKIP" (a
# resource or tool it needs is missing) is reported as SKIP, not PASS, unless
# its output= expects that text.
# Prints one line per test (PASS, FAIL or SKIP) and ends with "N passed, M failed" (SKIPs are
# counted on the line before).
set -u
PREFIX=$(cd "${1:?usage: runtests.sh PREFIX [BUILDDIR] [FILTER]}" && pwd)
SRC=$(cd "$(dirname "$0")" && pwd)
BUILD=${2:-$(mktemp -d /tmp/canal-tests.XXXXXX)}
FILTER=${3:-}
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd -P)  # absolute: compared with /proc/<pid>/cwd below
MPICC="$PREFIX/bin/mpicc"
MPIEXEC="$PREFIX/bin/mpiexec"
pass=0
fail=0
skip=0
failed=()
NCORES=$(nproc 2>/dev/null || echo 1)
SCALE=${CANAL_TEST_TIMEOUT_SCALE:-1}
awk -v s="$SCALE" 'BEGIN { exit !(s > 0) }' || { echo "runtests.sh: CANAL_TEST_TIMEOUT_SCALE=$SCALE is not a positive number" >&2; exit 2; }
hang_limit() {  # base-seconds nprocs -> seconds
    local load
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
    awk -v b="$1" -v n="$2" -v c="$NCORES" -v l="$load" -v s="$SCALE" 'BEGIN {
        f = (n + l) / c
        if (f < 1) f = 1
        printf "%d\n", b * f * s + 0.5 }'
}
# The shm channel's segments: /canal-<hash>-n<node>-p<creator pid>
SHM_SEG_RE='^canal-[0-9a-f]+-n[0-9]+-p[0-9]+$'
SHM_SIZE=$(df -k --output=size /dev/shm 2>/dev/null | tail -1 | tr -d ' ')
SHM_SIZE=${SHM_SIZE:+${SHM_SIZE}k}
SHM_SIZE=${SHM_SIZE:-50%}
PRIVATE_SHM=()
if [ "${CANAL_TEST_PRIVATE_SHM:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v unshare > /dev/null &&
    unshare --mount --propagation private sh -c "mount -t tmpfs -o size=$SHM_SIZE tmpfs /dev/shm" 2> /dev/null; then
    # (inside the namespace) LEAKFILE COMMAND...: mount the private /dev/shm, run
    # the job, list the segments left whose creator is gone.
    cat > "$BUILD/.private-shm.sh" <<'EOS'
leak=$1 size=$2 re=$3
shift 3
mount -t tmpfs -o size="$size" tmpfs /dev/shm || { echo "runtests.sh: cannot mount a private /dev/shm" >&2; exit 125; }
"$@"
rc=$?
for f in $(ls /dev/shm | grep -E "$re"); do
    kill -0 "${f##*-p}" 2> /dev/null || echo "$f"
done > "$leak"
exit $rc
EOS
    PRIVATE_SHM=(unshare --mount --propagation private bash "$BUILD/.private-shm.sh")
fi

# Java programs (test/mpi/java/NAME.java, Open MPI's Java API) are compiled
# with PREFIX/bin/mpijavac; BUILD/NAME becomes a script that runs the JVM
# (options: CANAL_TEST_JAVA_OPTS). Without a JDK, without Canal's mpi.jar or
# with CANAL_TEST_JAVA=0 the script prints a SKIP line.
compile_java() {  # program -> 0 if built
    local p=$1
    if [ "${CANAL_TEST_JAVA:-1}" = 0 ]; then
        printf '#!/bin/sh\necho "SKIP %s: Java programs left out (CANAL_TEST_JAVA=0)"\necho \"No Errors\"\n' "$p" > "$BUILD/$p"
    elif ! command -v javac > /dev/null || ! command -v java > /dev/null; then
        printf '#!/bin/sh\necho "SKIP %s: no JDK (javac/java not found; Debian package default-jdk-headless)"\necho \"No Errors\"\n' "$p" > "$BUILD/$p"
    elif [ ! -f "$PREFIX/lib/mpi.jar" ] || [ ! -x "$PREFIX/bin/mpijavac" ]; then
        printf '#!/bin/sh\necho "SKIP %s: Canal was built without the Java binding (no mpi.jar)"\necho \"No Errors\"\n' "$p" > "$BUILD/$p"
    elif [ "$BUILD/java/$p.class" -nt "$SRC/java/$p.java" ] && [ "$BUILD/java/$p.class" -nt "$PREFIX/lib/mpi.jar" ] &&
        grep -q '^exec java' "$BUILD/$p" 2> /dev/null; then
        return 0
    else
        mkdir -p "$BUILD/java" &&
            "$PREFIX/bin/mpijavac" -Xlint:all -d "$BUILD/java" "$SRC/java/$p.java" > "$BUILD/$p.build.log" 2>&1 || return 1
        printf '#!/bin/sh\nexec java ${CANAL_TEST_JAVA_OPTS:--XX:TieredStopAtLevel=1 -Xshare:auto} -cp "%s:%s" %s "$@"\n' \
            "$PREFIX/lib/mpi.jar" "$BUILD/java" "$p" > "$BUILD/$p"
    fi
    chmod +x "$BUILD/$p"
}

# The source of a program and the command that builds it (see the top).
source_of() {  # program -> path
    local e
    for e in c cpp f90 cxx; do
        [ -f "$SRC/$1.$e" ] && { echo "$SRC/$1.$e"; return; }
    done
    echo "$SRC/$1.c"
}
mpich_wrapper() {  # source -> Debian's MPICH wrapper that builds it, or nothing
    case $1 in
        *.f90) echo "${CANAL_TEST_MPIF90:-mpif90.mpich}" ;;
        *.cxx) echo "${CANAL_TEST_MPICXX:-mpicxx.mpich}" ;;
    esac
}
missing_tool() {  # source -> what is missing to build it, or nothing
    local w c
    # MPICH's language libraries (the lang_* programs) cannot load a library
    # built with the sanitizers (ASan must come first); run-suite --sanitize.
    case "${CANAL_TEST_SANITIZED:-no}:$(basename "$1")" in
        yes:lang_*) echo "a library without sanitizers (MPICH's language libraries cannot load this build)"; return ;;
    esac
    case $1 in
        *.cpp) c=$("$PREFIX/bin/mpicxx" -show 2>/dev/null | awk '{print $1}')
               command -v "${c:-g++}" > /dev/null || echo "the C++ compiler ${c:-g++} of mpicxx (package g++)" ;;
        *.f90|*.cxx)
            w=$(mpich_wrapper "$1")
            if ! command -v "$w" > /dev/null; then echo "$w (package libmpich-dev)"; return; fi
            c=$("$w" -show 2>/dev/null | awk '{print $1}')
            command -v "$c" > /dev/null || echo "the compiler $c of $w (package $(case $1 in *.f90) echo gfortran ;; *) echo g++ ;; esac))" ;;
    esac
}
compile() {  # program -> 0 if built
    local p=$1 src
    if [ -f "$SRC/java/$p.java" ]; then compile_java "$p"; return; fi
    src=$(source_of "$p")
    [ -x "$BUILD/$p" ] && [ "$BUILD/$p" -nt "$src" ] && return 0
    case $src in
        *.c) "$MPICC" -O1 -g -Wall -o "$BUILD/$p" "$src" -lm ;;
        *.cpp) "$PREFIX/bin/mpicxx" -O1 -g -Wall -o "$BUILD/$p" "$src" ;;
        *.f90) "$(mpich_wrapper "$src")" -O1 -g -Wall -Wno-unused-dummy-argument -J "$BUILD" -o "$BUILD/$p" "$src" ;;
        *.cxx) "$(mpich_wrapper "$src")" -O1 -g -Wall -o "$BUILD/$p" "$src" ;;
    esac > "$BUILD/$p.build.log" 2>&1
}

for list in "$SRC"/testlist*; do
    [ -f "$list" ] || continue
    while read -r prog np rest; do
        case "$prog" in ''|'#'*) continue ;; esac
        if [ -n "$FILTER" ] && ! [[ "$prog" =~ $FILTER ]]; then continue; fi
        expect=0; output=; output_set=no; timeout=120; launcher=; envs=(); args=; xargs=; cpus=
        for kv in $rest; do
            case "$kv" in
                expect=*) expect=${kv#expect=} ;;
                output=*) output=${kv#output=}; output=${output//\~/ }; output_set=yes ;;
                timeout=*) timeout=${kv#timeout=} ;;
                env=*) envs+=("${kv#env=}") ;;
                launcher=*) launcher=${kv#launcher=} ;;
                args=*) args=${kv#args=}; args=${args//\~/ } ;;
                mpiexec_args=*) xargs=${kv#mpiexec_args=}; xargs=${xargs//\~/ } ;;
                cpus=*) cpus=${kv#cpus=} ;;
            esac
        done
        [ $output_set = no ] && [ "$expect" = 0 ] && output="No Errors"
        name="$prog -n $np"
        pin=()
        if [ -n "$cpus" ]; then
            want=$(echo "$cpus" | tr ',' '\n' | awk -F- '{ n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n }')
            have=$(taskset -c "$cpus" nproc 2>/dev/null)
            if [ "$have" != "$want" ]; then
                echo "SKIP $name: needs CPUs $cpus ($want); this runner may use $(nproc) CPU(s): $(taskset -pc $$ 2>/dev/null | sed 's/.*: //')"
                skip=$((skip + 1))
                continue
            fi
            pin=(taskset -c "$cpus")
        fi
        src=$(source_of "$prog")
        missing=$(missing_tool "$src")
        if [ -n "$missing" ]; then
            echo "SKIP $name: $(basename "$src") needs $missing"
            skip=$((skip + 1))
            continue
        fi
        # MPICH's Fortran/C++ library on Canal: libmpich.so.12 is Canal's. PREFIX/lib
        # also has Canal's libmpichfort.so.12 (its libmpifort): MPICH's own comes
        # first from BUILD/mpich-lang, so these programs keep testing the MPII hooks.
        if [ -n "$(mpich_wrapper "$src")" ]; then
            mkdir -p "$BUILD/mpich-lang"
            mpich_fort=$(ls /usr/lib/*/libmpichfort.so.12 2>/dev/null | head -1)
            [ -n "$mpich_fort" ] && ln -sf "$mpich_fort" "$BUILD/mpich-lang/libmpichfort.so.12"
            envs+=("LD_LIBRARY_PATH=$BUILD/mpich-lang:$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
        fi
        if ! compile "$prog"; then
            echo "FAIL $name (does not compile; see $BUILD/$prog.build.log)"
            sed 's/^/    /' "$BUILD/$prog.build.log" | head -20
            fail=$((fail + 1)); failed+=("$name"); continue
        fi
        log="$BUILD/$prog.n$np.log"
        timeout=$(hang_limit "$timeout" "$np")
        shm_before=$(ls /dev/shm 2>/dev/null | grep -E "$SHM_SEG_RE" | sort)
        leakfile="$BUILD/.leaked-shm"
        rm -f "$leakfile"
        wrap=()
        [ ${#PRIVATE_SHM[@]} -gt 0 ] && wrap=("${PRIVATE_SHM[@]}" "$leakfile" "$SHM_SIZE" "$SHM_SEG_RE")
        start=$(date +%s.%N)
        if [ "$launcher" = none ]; then
            (cd "$BUILD" && env "${envs[@]}" "${wrap[@]}" timeout -k 5 "$timeout" "${pin[@]}" "./$prog" $args) < /dev/null > "$log" 2>&1
        else
            (cd "$BUILD" && env "${envs[@]}" "${wrap[@]}" timeout -k 5 "$timeout" "${pin[@]}" ${launcher:-$MPIEXEC $xargs} -n "$np" "./$prog" $args) < /dev/null > "$log" 2>&1
        fi
        rc=$?
        secs=$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo "?")
        ok=yes
        why=
        hung=no
        if [ "$rc" = 124 ]; then hung=yes
        elif [ "$rc" = 137 ] && [ "$(echo "$secs >= $timeout" | bc 2>/dev/null)" = 1 ]; then hung=yes
        fi
        if [ $hung = yes ]; then ok=no; why="hung (killed after ${timeout}s)"
        elif [ "$rc" != "$expect" ]; then ok=no; why="exit code $rc, expected $expect"
        elif [ -n "$output" ] && ! grep -qF -- "$output" "$log"; then ok=no; why="output lacks \"$output\""
        fi
        # A segment counts as leaked when it is new and its creator (-p<pid>
        # in the name) is gone: other jobs on the machine may own live ones.
        leaked=
        if [ ${#wrap[@]} -gt 0 ]; then
            [ -s "$leakfile" ] && leaked=$(printf ' %s' $(cat "$leakfile"))
        else
            for f in $(comm -13 <(echo "$shm_before") <(ls /dev/shm 2>/dev/null | grep -E "$SHM_SEG_RE" | sort)); do
                pid=$(echo "$f" | sed -n 's/.*-p\([0-9][0-9]*\)$/\1/p')
                if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
                    leaked="$leaked $f"
                    rm -f "/dev/shm/$f"
                fi
            done
        fi
        if [ -n "$leaked" ]; then
            ok=no; why="${why:+$why; }left in /dev/shm:$leaked"
        fi
        # No rank may outlive the job: processes of this program started in
        # $BUILD (other jobs on the machine run from other directories) that
        # are still there after a grace period are reported and killed.
        left=
        for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
            left=
            for pid in $(pgrep -x "${prog:0:15}" 2>/dev/null); do
                # (zombies do not count: they are only waiting to be reaped)
                [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && continue
                [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$BUILD" ] && left="$left $pid"
            done
            [ -z "$left" ] && break
            sleep 0.1
        done
        if [ -n "$left" ]; then
            ok=no; why="${why:+$why; }processes left running:$left"
            kill -9 $left 2>/dev/null
        fi
        skipped=
        if [ $ok = yes ] && [[ "$output" != *skipped* ]] && [[ "$output" != *SKIP* ]]; then
            skipped=$(grep -m1 -E '^(skipped|SKIP)[: ]' "$log")
        fi
        if [ -n "$skipped" ]; then
            echo "SKIP $name: $skipped"
            skip=$((skip + 1))
        elif [ $ok = yes ]; then
            printf 'PASS %s (%.1fs)\n' "$name" "$secs" 2>/dev/null || echo "PASS $name"
            pass=$((pass + 1))
        else
            echo "FAIL $name: $why"
            sed 's/^/    /' "$log" | tail -20
            fail=$((fail + 1)); failed+=("$name")
        fi
    done < "$list"
done
if [ $fail -gt 0 ]; then
    echo "failed tests:"
    printf '  %s\n' "${failed[@]}"
fi
[ $skip -gt 0 ] && echo "$skip skipped (a resource or tool they need is missing)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
