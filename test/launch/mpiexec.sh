#!/bin/bash
# Canal's own mpiexec: start, PMI, exit codes, signals, aborts, timeouts,
# output labels, stdin and bad options. Some ranks are bash scripts that speak
# PMI-1 on PMI_FD themselves, so this needs no more than the launcher and one
# MPI program. Usage: mpiexec.sh PREFIX PROGRAM [ARGS...]
. "$(dirname "$0")/common.sh"
launch_setup "$@"

MPX=$PREFIX/bin/mpiexec
[ -x "$MPX" ] || { echo "FAIL: $MPX is missing"; exit 1; }

# expect NAME WANT-RC MAX-SECONDS OUTPUT-REGEX COMMAND...
# MAX-SECONDS is what the command takes at most on an idle machine: the hang
# limit is six times that, grown with the load (launch_hang_limit); how fast
# it ran is reported, never judged.
expect() {
    local name=$1 want=$2 maxs=$3 regex=$4 rc t0 t1 limit
    shift 4
    limit=$(launch_hang_limit $((maxs * 6)))
    t0=$(date +%s%N)
    timeout "$limit" "$@" >"$LAUNCH_OUT" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s%N)
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    if [ "$rc" -eq "$want" ] && grep -Eq -- "$regex" "$LAUNCH_OUT"; then
        echo "PASS: $name"
        return 0
    fi
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: $name: exit code $rc (want $want$([ "$rc" = 124 ] && echo ", hung: killed after $limit s")), $(((t1 - t0) / 1000000)) ms, output must match '$regex'"
    tail -n 15 "$LAUNCH_OUT" | sed 's/^/    /'
}

check_run "mpiexec -n 4 program" 4 "PMI-[12] over PMI_FD" "$MPX" -n 4 "$PROG" "${PROG_ARGS[@]}"
check_run "mpiexec -n 2 program, CANAL_PMI=pmi1" 2 "PMI-1 over PMI_FD" \
    "$MPX" -genv CANAL_PMI pmi1 -n 2 "$PROG" "${PROG_ARGS[@]}"
check_run "mpiexec -n 2 program, CANAL_PMI=pmi2" 2 "PMI-2 over PMI_FD" \
    "$MPX" -genv CANAL_PMI pmi2 -n 2 "$PROG" "${PROG_ARGS[@]}"
check_run "mpiexec MPMD 1 : 2" 3 "PMI-[12] over PMI_FD" \
    "$MPX" -n 1 "$PROG" "${PROG_ARGS[@]}" : -n 2 "$PROG" "${PROG_ARGS[@]}"
expect "mpirun is a link to mpiexec" 0 10 "." "$PREFIX/bin/mpirun" -n 1 echo mpirun-ok
expect "mpiexec -n 2 hostname" 0 10 "^$(hostname)" "$MPX" -n 2 hostname
expect "-l labels every line" 0 10 "^\[1\] b$" "$MPX" -l -n 2 sh -c 'echo a; echo b'
expect "exit code of the failing rank" 5 10 "rank 1 .*exited with code 5" \
    "$MPX" -n 3 sh -c 'if [ "$PMI_RANK" = 1 ]; then exit 5; fi; sleep 30'
expect "rank killed by a signal: 128+9" 137 10 "rank 1 .*signal 9" \
    "$MPX" -n 2 sh -c 'if [ "$PMI_RANK" = 1 ]; then kill -9 $$; fi; sleep 30'
expect "MPIEXEC_TIMEOUT=1 gives 255" 255 10 "MPIEXEC_TIMEOUT" \
    env MPIEXEC_TIMEOUT=1 "$MPX" -n 2 sleep 30
expect "unknown option gives 2" 2 10 "unrecognized option" "$MPX" -no-such-option -n 1 true
expect "missing program is reported" 1 10 "cannot find" "$MPX" -n 1 ./no/such/program
# PMI-1 spoken by bash on PMI_FD: abort, exit without finalize, garbage.
expect "PMI abort with code 7 gives 7 and names the rank" 7 10 "rank 1 .*[Aa]bort.*7" \
    "$MPX" -n 2 bash -c 'if [ "$PMI_RANK" = 1 ]; then
        printf "cmd=init pmi_version=1 pmi_subversion=1\ncmd=abort exitcode=7\n" >&"$PMI_FD"; fi
        sleep 30'
expect "exit before finalize tears the job down" 1 10 "rank 0 .*without calling MPI_Finalize" \
    "$MPX" -n 2 bash -c 'printf "cmd=init pmi_version=1 pmi_subversion=1\n" >&"$PMI_FD"
        if [ "$PMI_RANK" = 0 ]; then sleep 0.3; exit 0; fi; sleep 30'
expect "garbage on PMI_FD is refused, mpiexec survives" 0 10 "malformed|bad PMI" \
    "$MPX" -n 1 bash -c 'printf "%s\n" "x=1 garbage" >&"$PMI_FD"; head -c 20000 /dev/zero | tr "\0" a >&"$PMI_FD"; sleep 0.3'
expect "PMI-1 spawn starts a new job, a bad spawn is refused" 0 10 \
    "parent got: cmd=spawn_result rc=-1.*cannot_find" \
    "$MPX" -l -n 1 bash -c 'printf "cmd=init pmi_version=1 pmi_subversion=1\n" >&"$PMI_FD"
        read -r -u "$PMI_FD" l
        printf "mcmd=spawn\nnprocs=2\nexecname=/bin/echo\ntotspawns=1\nspawnssofar=1\nargcnt=1\narg1=spawned-hello\npreput_num=0\ninfo_num=0\nendcmd\n" >&"$PMI_FD"
        read -r -u "$PMI_FD" l; echo "parent got: $l"
        printf "mcmd=spawn\nnprocs=1\nexecname=/no/such\ntotspawns=1\nspawnssofar=1\nargcnt=0\npreput_num=0\ninfo_num=0\nendcmd\n" >&"$PMI_FD"
        read -r -u "$PMI_FD" l; echo "parent got: $l"
        printf "cmd=finalize\n" >&"$PMI_FD"; read -r -u "$PMI_FD" l'
if [ "$(grep -c '^\[1:[01]\] spawned-hello' "$LAUNCH_OUT")" != 2 ]; then
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: the two spawned processes did not both print"
fi
expect "stdin goes to rank 0 only" 0 10 "^count=1$" \
    sh -c "echo line | '$MPX' -n 2 sh -c 'cat' | grep -c line | sed 's/^/count=/'"

# kill -9 of mpiexec: every rank must end (the PMI watch in a Canal rank,
# PR_SET_PDEATHSIG for any program). kill_test NAME NPROCS COMMAND...: each
# rank prints "ready <pid>" and then waits; output goes to files, since the
# pipes die with mpiexec.
kill_test() {
    local name=$1 n=$2 dir pids="" left mpx i
    shift 2
    dir=$(mktemp -d "$LAUNCH_TMP/kill.XXXXXX")
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    "$MPX" -outfile-pattern "$dir/out.%r" -errfile-pattern "$dir/err.%r" -n "$n" "$@" \
        </dev/null >"$dir/mpiexec.out" 2>&1 &
    mpx=$!
    for ((i = 0; i < 600; i++)); do
        [ "$(cat "$dir"/out.* 2>/dev/null | grep -c '^ready ')" -ge "$n" ] && break
        sleep 0.1
    done
    pids=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$dir"/out.* 2>/dev/null | tr '\n' ' ')
    kill -9 "$mpx" 2>/dev/null
    wait "$mpx" 2>/dev/null
    if [ "$(echo $pids | wc -w)" -ne "$n" ]; then
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: $name: the ranks did not all get ready within 60 s (pids: $pids)"
        tail -n 5 "$dir"/* | sed 's/^/    /'
        kill -9 $pids 2>/dev/null
        return 1
    fi
    # a generous timeout turns a hang into a failure; zombies count as gone
    for ((i = 0; i < 600; i++)); do
        left=""
        for p in $pids; do
            [ -e "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] &&
                left="$left $p"
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    if [ -n "$left" ]; then
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: $name: ranks still running 60 s after kill -9 of mpiexec:$left"
        kill -9 $left 2>/dev/null
        return 1
    fi
    if [ -n "${KILL_MSG:-}" ] && [ "$(cat "$dir"/err.* | grep -c -- "$KILL_MSG")" -lt "$n" ]; then
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: $name: not every rank said '$KILL_MSG'"
        tail -n 5 "$dir"/err.* | sed 's/^/    /'
        return 1
    fi
    echo "PASS: $name"
}
BLOCK=$(launch_build launch/pm_block)
KILL_MSG="" kill_test "kill -9 of mpiexec ends ranks that are not MPI programs" 2 \
    sh -c 'echo "ready $$"; exec sleep 1000'
if [ -z "$BLOCK" ]; then
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: cannot build test/launch/pm_block.c"
else
    KILL_MSG="process manager closed its connection" \
        kill_test "kill -9 of mpiexec ends ranks blocked in MPI_Recv, with a message" 3 "$BLOCK"
    KILL_MSG="process manager closed its connection" \
        kill_test "kill -9 of mpiexec ends ranks blocked in MPI_Recv (PMI-1)" 2 \
        env CANAL_PMI=pmi1 "$BLOCK"
fi

# A singleton's first MPI_Comm_spawn starts mpiexec -singleton (here through
# CANAL_MPIEXEC, a wrapper that records its pid): the spawn must work, and
# that mpiexec must be gone once the program and its children have ended.
SPAWN=$(launch_build mpi/dyn_spawn_args)
if [ -n "$SPAWN" ]; then
    printf '#!/bin/sh\necho $$ > "%s/mpx.pid"\nexec "%s" "$@"\n' "$LAUNCH_TMP" "$MPX" \
        > "$LAUNCH_TMP/mpx-wrap"
    chmod +x "$LAUNCH_TMP/mpx-wrap"
    rm -f "$LAUNCH_TMP/mpx.pid"
    expect "a singleton spawns through the mpiexec it starts (CANAL_MPIEXEC)" 0 60 "No Errors" \
        env CANAL_MPIEXEC="$LAUNCH_TMP/mpx-wrap" "$SPAWN" 2 2
    mpid=$(cat "$LAUNCH_TMP/mpx.pid" 2>/dev/null)
    for ((i = 0; i < 600; i++)); do
        [ -n "$mpid" ] && [ -e "/proc/$mpid" ] &&
            [ "$(awk '{print $3}' "/proc/$mpid/stat" 2>/dev/null)" != Z ] || break
        sleep 0.1
    done
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    if [ -z "$mpid" ] || [ "$i" -ge 600 ]; then
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: the singleton's mpiexec (pid ${mpid:-never started}) outlived the program by 60 s"
        [ -n "$mpid" ] && kill -9 "$mpid" 2>/dev/null
    else
        echo "PASS: the singleton's mpiexec ends after the program"
    fi
fi

# CANAL_DEBUG=3 traces every PMI message (the ranks and mpiexec): no secret
# may appear. pmi_tap records the PMI traffic of the parent ranks, where the
# secrets are: the sock channel's job secret, and the port (a capability) a
# spawn preputs for its children.
TAP=$(launch_build launch/pmi_tap)
for pmi in pmi1 pmi2; do
    if [ -z "$TAP" ] || [ -z "$SPAWN" ]; then
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: cannot build test/launch/pmi_tap.c or test/mpi/dyn_spawn_args.c"
        break
    fi
    rm -f "$LAUNCH_TMP"/wire.*
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    CANAL_DEBUG=3 CANAL_CHANNEL=sock CANAL_PMI=$pmi timeout 120 "$MPX" -n 2 \
        "$TAP" "$LAUNCH_TMP/wire" "$SPAWN" 1 </dev/null >"$LAUNCH_OUT" 2>&1
    rc=$?
    job=$(cat "$LAUNCH_TMP"/wire.* 2>/dev/null | grep -ao 'sock-secret-0[; ]value=[0-9a-fA-F]*' |
        head -1 | sed 's/.*value=//')
    port=$(cat "$LAUNCH_TMP"/wire.* 2>/dev/null | grep -ao 'canal-port:[^;@ ]*@' | head -1 |
        sed 's/.*\/\([0-9a-fA-F]*\)@$/\1/')
    why=""
    [ $rc -ne 0 ] && why="exit code $rc"
    [ -z "$job" ] && why="${why:+$why; }the tap saw no sock-secret"
    [ -z "$port" ] && why="${why:+$why; }the tap saw no spawn port"
    grep -q "PMI >> " "$LAUNCH_OUT" || why="${why:+$why; }no PMI trace at CANAL_DEBUG=3"
    grep -q "mpiexec: PMI << " "$LAUNCH_OUT" || why="${why:+$why; }no mpiexec PMI trace"
    [ -n "$job" ] && grep -qF -- "$job" "$LAUNCH_OUT" && why="${why:+$why; }the job secret is in the log"
    [ -n "$port" ] && grep -qF -- "$port" "$LAUNCH_OUT" && why="${why:+$why; }the port secret is in the log"
    if [ -z "$why" ]; then
        echo "PASS: CANAL_DEBUG=3 shows no secret ($pmi)"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: CANAL_DEBUG=3 shows no secret ($pmi): $why"
        grep -n -F -e "${job:-@@none@@}" -e "${port:-@@none@@}" "$LAUNCH_OUT" | head -5 | sed 's/^/    /'
        tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
    fi
done
# -bind-to auto (the default): a job of 2+ ranks that fit the free cores of
# mpiexec's mask gets them, a block each; one rank, more ranks than cores, a
# second job while the first holds the cores, and -bind-to none stay
# unbound; the cores come free when the holding mpiexec ends, even by
# SIGKILL. Each rank prints its mask; MPIEXEC_BIND_DIR keeps the registry
# private to this test (nothing else can hold its cores).
BIND_DIR=$LAUNCH_TMP/bind
mkdir -p "$BIND_DIR"
MASK=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
NCPU=$(nproc)
show_masks='sed -n "s/^Cpus_allowed_list:[[:space:]]*/mask=/p" /proc/self/status'
# bind_check NAME WANT(apart|unbound) N [mpiexec args...]: run N ranks printing masks
bind_check() {
    local name=$1 want=$2 n=$3 masks why=""
    shift 3
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    MPIEXEC_BIND_DIR=$BIND_DIR timeout "$(launch_hang_limit 60)" "$MPX" "$@" -n "$n" \
        sh -c "$show_masks" >"$LAUNCH_OUT" 2>&1 </dev/null || why="exit code $?"
    masks=$(sed -n 's/^mask=//p' "$LAUNCH_OUT" | sort)
    [ "$(echo "$masks" | grep -c .)" = "$n" ] || why="${why:+$why; }$(echo "$masks" | grep -c .) masks for $n ranks"
    if [ "$want" = unbound ]; then
        [ -z "$(echo "$masks" | grep -vx -- "$MASK")" ] || why="${why:+$why; }a rank was bound"
    else
        [ -z "$(echo "$masks" | grep -x -- "$MASK")" ] || why="${why:+$why; }a rank has mpiexec's whole mask $MASK"
        [ "$(echo "$masks" | sort -u | grep -c .)" = "$n" ] || why="${why:+$why; }two ranks share a mask"
    fi
    if [ -z "$why" ]; then
        echo "PASS: $name"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: $name: $why (mpiexec's mask $MASK)"
        tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
    fi
}
# bind_hold N: start a job of N ranks that holds its cores until $BIND_DIR/go
bind_hold() {
    rm -f "$BIND_DIR"/up.* "$BIND_DIR/go"
    MPIEXEC_BIND_DIR=$BIND_DIR "$MPX" -n "$1" sh -c \
        "touch $BIND_DIR/up.\$PMI_RANK; while [ ! -e $BIND_DIR/go ]; do sleep 0.1; done" \
        >/dev/null 2>&1 </dev/null &
    HOLD_PID=$!
    for ((t = 0; t < 600; t++)); do
        [ "$(ls "$BIND_DIR" | grep -c '^up\.')" -ge "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
if [ "$NCPU" -lt 2 ]; then
    echo "SKIP: -bind-to auto lines: mpiexec's mask has $NCPU CPU"
else
    bind_check "-bind-to auto: 2 ranks each on their own cores" apart 2
    [ "$NCPU" -gt 2 ] && bind_check "-bind-to auto: $NCPU ranks each on their own cores" apart "$NCPU"
    bind_check "-bind-to auto: 1 rank unbound" unbound 1
    bind_check "-bind-to auto: $((NCPU + 1)) ranks (more than cores) unbound" unbound $((NCPU + 1))
    bind_check "-bind-to none: unbound" unbound 2 -bind-to none
    MPIEXEC_BIND_TO=none bind_check "MPIEXEC_BIND_TO=none: unbound" unbound 2
    MPIEXEC_BIND_TO=core bind_check "MPIEXEC_BIND_TO=core: 2 ranks on their own cores" apart 2
    # a hybrid program's OpenMP threads would share their rank's core
    bind_check "-bind-to auto: 2 ranks of -genv OMP_NUM_THREADS $NCPU (more threads than cores) unbound" \
        unbound 2 -genv OMP_NUM_THREADS "$NCPU"
    OMP_NUM_THREADS=$NCPU bind_check "-bind-to auto: OMP_NUM_THREADS=$NCPU in mpiexec's environment: unbound" unbound 2
    OMP_NUM_THREADS=1 bind_check "-bind-to auto: OMP_NUM_THREADS=1: 2 ranks on their own cores" apart 2
    if bind_hold "$NCPU"; then
        bind_check "-bind-to auto: a second job while the first holds every core: unbound" unbound 2
        touch "$BIND_DIR/go"
        wait "$HOLD_PID"
        bind_check "-bind-to auto: the cores are free again after the first job ended" apart 2
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: -bind-to auto: the holding job did not start"
        touch "$BIND_DIR/go"
        wait "$HOLD_PID"
    fi
    if bind_hold "$NCPU"; then
        kill -9 "$HOLD_PID"
        wait "$HOLD_PID" 2>/dev/null
        touch "$BIND_DIR/go" # (its ranks got SIGTERM from their launcher's death)
        bind_check "-bind-to auto: the cores are free again after the holder was SIGKILLed" apart 2
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: -bind-to auto: the holding job did not start (kill)"
        touch "$BIND_DIR/go"
        wait "$HOLD_PID"
    fi
    if [ "$NCPU" -ge 4 ]; then
        bind_check "-bind-to auto: 2 ranks on $NCPU CPUs, a block each" apart 2
        masks=$(sed -n 's/^mask=//p' "$LAUNCH_OUT")
        echo "$masks" | grep -qv '^[0-9]*$' || {
            LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
            echo "FAIL: -bind-to auto: 2 ranks on $NCPU CPUs got one CPU each ($(echo $masks))"
        }
    else
        echo "SKIP: -bind-to auto blocks of several cores: $NCPU CPUs (needs 4; test/unit/test_mpiexec_bind plans them for 8)"
    fi
fi
expect "MPIEXEC_BIND_TO=bad is refused with 2" 2 10 "MPIEXEC_BIND_TO='bad'" \
    env MPIEXEC_BIND_TO=bad "$MPX" -n 1 true
expect "-bind-to bad is refused with 2" 2 10 "-bind-to 'bad'" "$MPX" -bind-to bad -n 1 true
# A rank SIGKILLed while the others communicate (ring exchange and
# allreduce): the survivors see the failure and abort the job (exit code 101)
# at once, but mpiexec judges the dead rank first, whichever message it reads
# first: the job ends naming the killed rank, with 128+9, every time. Over
# sock (a survivor sees the connection reset while the killed process still
# exits) and over shm. Before the fix, without the survivors' wait (which
# CANAL_FAILURE_GRACE=0 removes, as mpiexec now sets), a survivor's abort won.
CHECK=$(launch_build launch/cluster_check)
if [ -z "$CHECK" ]; then
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: cannot build cluster_check.c"
else
    for chan in sock shm; do
        for i in 1 2 3 4 5 6 7 8 9 10; do
            expect "killed rank while others communicate ($chan, run $i of 10)" 137 10 \
                "rank 2 \(pid [0-9]+, [^)]*\) was killed by signal 9" \
                "$MPX" -n 4 -genv CANAL_CHANNEL "$chan" "$CHECK" killcomm 2 &&
                grep -q "called MPI_Abort" "$LAUNCH_OUT" && {
                LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
                echo "FAIL: ... and a survivor's abort was reported too"
            }
        done
    done
fi
launch_finish
