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
launch_finish
