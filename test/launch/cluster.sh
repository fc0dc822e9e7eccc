#!/bin/bash
# Jobs across hosts with Canal's mpiexec (-hosts, -f, -ppn, -launcher,
# -launcher-exec, -iface; one proxy per host). Usage: cluster.sh PREFIX PROGRAM
# (PROGRAM: test/mpi/hello, which prints "Hello from rank R of N on HOST").
#
# Part 1 (any user): placement, host files and errors with '-launcher fork'
# (every proxy on this machine, host names only labels).
# Part 2 (root; otherwise SKIP and exit 77 when part 1 passed): a cluster of 4 namespace hosts
# (test/cluster/netns.sh, reached with -launcher-exec test/cluster/nsexec),
# 2 ranks each: hello with hostnames, cluster_check.c (shm within a host, sock
# or ofi between hosts, MPI_Comm_split_type per host, collectives), MPI_Abort
# and a killed rank on a remote host, MPIEXEC_TIMEOUT, a killed proxy, an
# unreachable host, kill -9 of mpiexec, the proxies' command lines, name
# publishing between jobs on different hosts, a proxy tree on 7 hosts with
# -fanout 2 (a relay killed); and
# the same check under MPICH's Hydra (mpiexec.mpich) when it is installed.
. "$(dirname "$0")/common.sh"
launch_setup "$@"

TOP=$(cd "$(dirname "$0")/../.." && pwd)
MPX=$PREFIX/bin/mpiexec
[ -x "$MPX" ] || { echo "FAIL: $MPX is missing"; exit 1; }
unset CANAL_DEBUG # the messages checked here are mpiexec's

# expect NAME WANT-RC OUTPUT-REGEX COMMAND...: exit code and output (a
# timeout only turns a hang into a failure).
expect() {
    local name=$1 want=$2 regex=$3 rc
    shift 3
    timeout 120 "$@" >"$LAUNCH_OUT" 2>&1 </dev/null
    rc=$?
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    if [ "$rc" -eq "$want" ] && grep -Eq -- "$regex" "$LAUNCH_OUT"; then
        echo "PASS: $name"
        return 0
    fi
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: $name: exit code $rc (want $want), output must match '$regex'"
    echo "--- command: $*"
    tail -n 20 "$LAUNCH_OUT" | sed 's/^/    /'
    return 1
}

# expect_lines NAME LINE...: every LINE (a fixed string) is in the last output.
expect_lines() {
    local name=$1 l missing=""
    shift
    for l in "$@"; do
        grep -Fxq -- "$l" "$LAUNCH_OUT" || missing="$missing '$l'"
    done
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    if [ -z "$missing" ]; then
        echo "PASS: $name"
        return 0
    fi
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: $name: missing lines:$missing"
    sed 's/^/    /' "$LAUNCH_OUT" | head -20
    return 1
}

# ------------------------------------------------------------ part 1: fork launcher
# Each rank prints its rank and its place among the ranks of its host.
WHERE='echo "r=$PMI_RANK local=$MPI_LOCALRANKID/$MPI_LOCALNRANKS"'
expect "-hosts a:2,b:2 -n 6 (fork): Hydra's order" 0 "r=5" \
    "$MPX" -launcher fork -hosts fake-a:2,fake-b:2 -n 6 sh -c "$WHERE"
# a gets ranks 0,1 then 4,5 (wrap around); b gets 2,3
expect_lines "... ranks 0,1,4,5 on a, 2,3 on b" \
    "r=0 local=0/4" "r=1 local=1/4" "r=4 local=2/4" "r=5 local=3/4" "r=2 local=0/2" "r=3 local=1/2"
expect "-hosts a,b,c -n 4: round robin, one slot each" 0 "r=3" \
    "$MPX" -launcher fork -hosts fake-a,fake-b,fake-c -n 4 sh -c "$WHERE"
expect_lines "... ranks 0,3 on a" "r=0 local=0/2" "r=3 local=1/2" "r=1 local=0/1" "r=2 local=0/1"
cat > "$LAUNCH_TMP/hosts" <<'HOSTS'
# a host file: host[:slots] per line
fake-a:3   # three slots
  fake-b
HOSTS
expect "-f hostfile without -n: one rank per slot" 0 "r=3" \
    "$MPX" -launcher fork -f "$LAUNCH_TMP/hosts" sh -c "$WHERE"
expect_lines "... 3 on a, 1 on b" "r=0 local=0/3" "r=2 local=2/3" "r=3 local=0/1"
expect "-ppn 1 replaces the slots" 0 "r=3" \
    "$MPX" -launcher fork -f "$LAUNCH_TMP/hosts" -ppn 1 -n 4 sh -c "$WHERE"
expect_lines "... alternating" "r=0 local=0/2" "r=1 local=0/2" "r=2 local=1/2" "r=3 local=1/2"
# the ranks' node map comes from PMI_process_mapping: a:0,1,2 b:3 a:4,5 is
# (vector,(0,1,3),(1,1,1),(0,1,2)); rank 0's node holds 5 ranks
expect "an irregular placement reaches the ranks' node map" 0 "6 ranks on 2 node\(s\), 5 on this node" \
    "$MPX" -launcher fork -hosts fake-a:3,fake-b:1 -n 6 -genv CANAL_SUMMARY 1 \
    -genv CANAL_SOCK_IFACE lo -genv CANAL_OFI_LIBRARY no-such-libfabric.so "$PROG" "${PROG_ARGS[@]}"
# a rank that leaves without MPI while the others start: their fence can never
# complete (this hung before: the check only ran once some host had fenced)
expect "a rank gone before the others' fence ends the job" 1 \
    "rank 0 on host fake-a has exited, so the PMI barrier" \
    "$MPX" -launcher fork -hosts fake-a:2,fake-b:2 -n 1 true : -n 3 \
    -genv CANAL_SOCK_IFACE lo -genv CANAL_OFI_LIBRARY no-such-libfabric.so "$PROG" "${PROG_ARGS[@]}"
expect "MPMD segments across hosts" 0 "seg2 r=2" \
    "$MPX" -launcher fork -hosts fake-a,fake-b -l -n 2 sh -c 'echo seg1 r=$PMI_RANK' : \
    -n 1 sh -c 'echo seg2 r=$PMI_RANK'
expect "-l labels output across hosts" 0 '^\[1\] two$' \
    "$MPX" -launcher fork -hosts fake-a,fake-b -l -n 2 sh -c 'echo one; echo two'
expect "a rank's exit code names rank and host" 5 "rank 1 .*on host fake-b exited with code 5" \
    "$MPX" -launcher fork -hosts fake-a,fake-b -n 2 sh -c '[ "$PMI_RANK" = 1 ] && exit 5; sleep 60'
expect "PMI-1 abort on another host gives its code" 7 "rank 1 .*on host fake-b called MPI_Abort with exit code 7" \
    "$MPX" -launcher fork -hosts fake-a,fake-b -n 2 bash -c 'if [ "$PMI_RANK" = 1 ]; then
        printf "cmd=init pmi_version=1 pmi_subversion=1\ncmd=abort exitcode=7\n" >&"$PMI_FD"; fi
        sleep 60'
# A PMI-1 spawn from host b: round robin continues after the last host the
# job filled (b), so the child starts on a; it knows it was spawned.
expect "PMI-1 spawn across hosts starts the child on the next host" 0 \
    "got: cmd=spawn_result rc=0 jobid=" \
    "$MPX" -launcher fork -hosts fake-a,fake-b -n 2 bash -c 'if [ "$PMI_RANK" = 1 ]; then
        printf "cmd=init pmi_version=1 pmi_subversion=1\nmcmd=spawn\nnprocs=1\nexecname=/bin/sh\ntotspawns=1\nspawnssofar=1\nargcnt=2\narg1=-c\narg2=echo child spawned=\$PMI_SPAWNED rank=\$PMI_RANK of \$PMI_SIZE\nendcmd\n" >&"$PMI_FD"
        for i in 1 2; do read -t 60 l <&"$PMI_FD"; echo "got: $l"; done
        printf "cmd=finalize\n" >&"$PMI_FD"; read -t 60 l <&"$PMI_FD"; fi'
expect_lines "... the child ran" "child spawned=1 rank=0 of 1"
# SIGUSR1 to mpiexec reaches the ranks on every host (through their proxies).
"$MPX" -launcher fork -hosts fake-a,fake-b -n 2 sh -c \
    'trap "echo got-usr1; exit 0" USR1; echo ready; while :; do sleep 0.1; done' \
    >"$LAUNCH_OUT" 2>&1 </dev/null &
MPID=$!
for ((i = 0; i < 600; i++)); do [ "$(grep -c '^ready$' "$LAUNCH_OUT")" -ge 2 ] && break; sleep 0.1; done
kill -USR1 $MPID
timeout 120 tail --pid=$MPID -f /dev/null
wait $MPID
rc=$?
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if [ $rc -eq 0 ] && [ "$(grep -c '^got-usr1$' "$LAUNCH_OUT")" -eq 2 ]; then
    echo "PASS: SIGUSR1 is forwarded to the ranks on every host"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: SIGUSR1 forwarding: exit code $rc (want 0), want 2 'got-usr1' lines"
    sed 's/^/    /' "$LAUNCH_OUT" | head
    kill -9 $MPID 2>/dev/null
fi
# A proxy tree (-fanout 2: 2 proxies below mpiexec, 3 below them) whose host
# names are not the proxies' hostnames: a relay knows itself by the name
# mpiexec gave it (-proxy NAME). Before, it compared with its hostname and
# refused the tree ("host fake-c hangs below fake-a, which is not below ...").
expect "a proxy tree with -launcher fork and host names that are not hostnames" 0 "^\[4\] r=4 of 5$" \
    "$MPX" -launcher fork -fanout 2 -hosts fake-a,fake-b,fake-c,fake-d,fake-e -l -n 5 \
    sh -c 'echo r=$PMI_RANK of $PMI_SIZE'
expect_lines "... every rank ran" "[0] r=0 of 5" "[1] r=1 of 5" "[2] r=2 of 5" "[3] r=3 of 5"
expect "bad slot count is a usage error" 2 "count after ':' must be" \
    "$MPX" -hosts fake-a:0 -n 1 true
expect "two hosts on one line of a host file is an error" 2 "one 'host\[:N\]' per entry" \
    sh -c "printf 'a b\n' > '$LAUNCH_TMP/bad'; '$MPX' -f '$LAUNCH_TMP/bad' -n 1 true"
expect "-launcher rsh is refused" 2 "use ssh, fork or slurm" "$MPX" -launcher rsh -hosts fake-a -n 1 true
expect "-bind-to across hosts is refused" 2 "not supported in jobs across hosts" \
    "$MPX" -launcher fork -hosts fake-a -bind-to core -n 1 true
expect "a launcher that cannot reach the host ends the job" 255 "lost the proxy on host fake-[ab] .*code 1" \
    "$MPX" -launcher-exec false -hosts fake-a,fake-b -n 2 true
expect "-hosts localhost:3 without -n runs 3 ranks here" 0 "r=2" \
    "$MPX" -hosts localhost:3 sh -c 'echo r=$PMI_RANK'

# ------------------------------------------------------------ part 2: namespace cluster
# skip_cluster WHY: part 1's failures still fail the script; else exit 77
# (skipped), so that the suite reports that the cluster part did not run.
skip_cluster() {
    echo "SKIP: $*"
    [ "$LAUNCH_FAILED" -gt 0 ] && launch_finish
    exit 77
}
[ "$(id -u)" = 0 ] || skip_cluster "the namespace cluster needs root (network and UTS namespaces)"
for t in ip unshare nsenter; do
    command -v $t >/dev/null 2>&1 || skip_cluster "the namespace cluster needs '$t' (test/install-deps.sh)"
done
CHECK=$(launch_build launch/cluster_check)
[ -n "$CHECK" ] || { echo "FAIL: cannot build cluster_check.c"; exit 1; }
P=cc$$h
P=${P:0:10}
NETNS=$TOP/test/cluster/netns.sh
NSEXEC=$TOP/test/cluster/nsexec
CLUSTER_NET=$((100 + $$ % 100))
export CLUSTER_NET
# 7 hosts: the first 4 for most tests, all 7 for the proxy tree
trap 'bash "$NETNS" down 7 "$P" >/dev/null 2>&1; rm -f "$LAUNCH_OUT"; rm -rf "$LAUNCH_TMP"' EXIT
if ! bash "$NETNS" up 7 "$P" > "$LAUNCH_TMP/up.log" 2>&1; then
    sed 's/^/    /' "$LAUNCH_TMP/up.log"
    skip_cluster "cannot create network namespaces here (above)"
fi
printf '%s:2\n' "${P}1" "${P}2" "${P}3" "${P}4" > "$LAUNCH_TMP/cluster"
RUN=("$MPX" -launcher-exec "$NSEXEC" -f "$LAUNCH_TMP/cluster")
NOOFI=(-genv CANAL_OFI_LIBRARY no-such-libfabric.so) # ofi unusable: sock between hosts

expect "hello on 4 namespace hosts x 2" 0 "Hello from rank 7 of 8" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" "$PROG" "${PROG_ARGS[@]}"
expect_lines "... every rank on its host" \
    "Hello from rank 0 of 8 on ${P}1" "Hello from rank 1 of 8 on ${P}1" \
    "Hello from rank 2 of 8 on ${P}2" "Hello from rank 3 of 8 on ${P}2" \
    "Hello from rank 4 of 8 on ${P}3" "Hello from rank 5 of 8 on ${P}3" \
    "Hello from rank 6 of 8 on ${P}4" "Hello from rank 7 of 8 on ${P}4"
expect "4 hosts: shm within, sock between, split_type per host, collectives" 0 \
    "cluster check passed: 8 ranks on 4 hosts" "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" check 4 sock
# With no fabric hardware (no InfiniBand/RoCE/EFA, Slingshot or Omni-Path
# device) and nothing naming libfabric, ranks on other hosts talk over the
# sock channel without loading libfabric: its providers would be sockets
# too, and loading it cost about a second of CPU per rank (start-up of 8
# ranks on 4 hosts took 4.7 s against Hydra's 0.5 s; now under 0.3 s).
if [ -e /sys/class/infiniband ] || [ -e /sys/class/cxi ] || ls /dev/hfi1_* >/dev/null 2>&1; then
    echo "SKIP: the sock channel by default between hosts: this machine has fabric hardware"
else
    expect "no fabric hardware: sock between hosts by default, libfabric not loaded" 0 \
        "cluster check passed: 8 ranks on 4 hosts" "${RUN[@]}" -n 8 "$CHECK" check 4 sock
fi
expect "... CANAL_SUMMARY sees 4 nodes" 0 "8 ranks on 4 node" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" -genv CANAL_SUMMARY 1 "$PROG"
expect "-iface eth0 (the sock channel's interface)" 0 "cluster check passed" \
    "${RUN[@]}" -n 8 -iface eth0 "${NOOFI[@]}" "$CHECK" check 4 sock
timeout 120 "${RUN[@]}" -n 8 -genv CANAL_OFI_PROVIDER "tcp;ofi_rxm" "$CHECK" check 4 ofi \
    >"$LAUNCH_OUT" 2>&1 </dev/null
if grep -q "ofi channel unusable" "$LAUNCH_OUT"; then
    echo "SKIP: ofi between hosts: libfabric's tcp provider is not usable here"
else
    expect "4 hosts: ofi (tcp provider) between hosts" 0 "cluster check passed" \
        "${RUN[@]}" -n 8 -genv CANAL_OFI_PROVIDER "tcp;ofi_rxm" "$CHECK" check 4 ofi
fi
if command -v mpiexec.mpich >/dev/null 2>&1; then
    # Hydra's proxies connect back to mpiexec.mpich: over the bridge
    expect "Canal's library under Hydra on the same hosts" 0 "cluster check passed" \
        mpiexec.mpich -launcher ssh -launcher-exec "$NSEXEC" -iface "${P}br" \
        -f "$LAUNCH_TMP/cluster" -n 8 -genv LD_LIBRARY_PATH "$PREFIX/lib" \
        "${NOOFI[@]}" "$CHECK" check 4 sock
else
    echo "SKIP: Hydra across hosts: mpiexec.mpich is not installed"
fi
# MPI_Comm_spawn from a job on 4 hosts: the child with info host=P3 runs
# there, the others round robin from the host after the job's last (P1, P2,
# P3); children fence among themselves and talk to their parents across hosts.
expect "MPI_Comm_spawn_multiple across hosts (info 'host', round robin)" 0 \
    "spawn across hosts passed: 12 processes" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" spawn "${P}3"
expect_lines "... each child on its host" "child 0 of 4 on ${P}3" "child 1 of 4 on ${P}1" \
    "child 2 of 4 on ${P}2" "child 3 of 4 on ${P}3"
expect "a spawn naming a host outside the job fails with MPI_ERR_SPAWN, naming it" 42 \
    "MPI_Comm_spawn_multiple.*'no-such-host' is not one of this job's hosts" \
    "${RUN[@]}" -n 2 "${NOOFI[@]}" "$CHECK" spawn no-such-host
# Published names are mpiexec's, shared by its PMI jobs on every host: rank 0
# (${P}1) publishes, a second publish from ${P}4 fails with MPI_ERR_SERVICE,
# child 0 of a spawned job on ${P}3 looks the name up and connects, parent 1
# finds child 1's name (two jobs with ranks 0 and 1 each), and a lookup
# after the unpublish fails with MPI_ERR_NAME. Before, a proxy refused every
# name request ("name publishing is not supported in jobs across hosts").
expect "MPI_Publish_name/Lookup_name/Unpublish_name between jobs on different hosts" 0 \
    "names across hosts passed: parents 8, children 2" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" names "${P}3"
expect_lines "... found by the other job" "child rank 0 on ${P}3 found the parents' port" \
    "parent rank 1 on ${P}1 found the name of child rank 1: child-1-port"
# mpiexec's stdin goes to rank 0 (on ${P}1), through its proxy; other ranks
# read nothing. 3 MiB in, checked by size and checksum on the other side.
head -c 3145728 /dev/urandom > "$LAUNCH_TMP/in"
want=$(md5sum < "$LAUNCH_TMP/in" | cut -d' ' -f1)
timeout 120 "${RUN[@]}" -n 4 sh -c 'echo "rank $PMI_RANK: $(md5sum | cut -d" " -f1)"' \
    < "$LAUNCH_TMP/in" > "$LAUNCH_OUT" 2>&1
rc=$?
empty=$(md5sum < /dev/null | cut -d' ' -f1)
expect_lines "stdin (3 MiB) reaches rank 0 on another host, others read nothing (exit $rc)" \
    "rank 0: $want" "rank 1: $empty" "rank 2: $empty" "rank 3: $empty"
# 20 MiB to a rank 0 that sleeps before it reads: mpiexec keeps at most 1 MiB
# ahead of it (the proxy acknowledges what it passed on), all of it arrives.
head -c 20971520 /dev/urandom > "$LAUNCH_TMP/in"
want=$(md5sum < "$LAUNCH_TMP/in" | cut -d' ' -f1)
timeout 120 "${RUN[@]}" -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then sleep 2; echo "slow rank 0: $(md5sum | cut -d" " -f1)"; fi' \
    < "$LAUNCH_TMP/in" > "$LAUNCH_OUT" 2>&1
expect_lines "... 20 MiB to a slow rank 0" "slow rank 0: $want"
# A rank 0 that closes its stdin unread while more than 1 MiB waits for it in
# its proxy: the proxy acknowledges the whole queue in one frame. The byte
# first, alone, makes mpiexec's reads end off a 64 KiB boundary, so what is
# ahead (and acknowledged) passes 1 MiB. Before 1ef534a mpiexec refused that
# acknowledgement ("a malformed message ('I')") and ended the job.
{ printf x; sleep 0.5; head -c 3145728 /dev/zero; } |
    timeout 120 "${RUN[@]}" -n 2 sh -c 'if [ "$PMI_RANK" = 0 ]; then sleep 3; exec 0<&-; sleep 1; echo "rank 0 closed its stdin unread"; fi' \
        > "$LAUNCH_OUT" 2>&1
rc=$?
expect_lines "... a rank 0 that closes its stdin with more than 1 MiB queued (exit $rc)" \
    "rank 0 closed its stdin unread"
if [ "$rc" -ne 0 ] || grep -q malformed "$LAUNCH_OUT"; then
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: ... the job must end with exit 0 and no refused acknowledgement (exit $rc)"
    sed 's/^/    /' "$LAUNCH_OUT" | head -20
fi
printf 'one\ntwo\n' | timeout 120 "${RUN[@]}" -n 2 -l "${NOOFI[@]}" sh -c 'cat' > "$LAUNCH_OUT" 2>&1
expect_lines "... lines of stdin come out of rank 0 only" "[0] one" "[0] two"
expect "MPI_Abort on a remote host" 7 "rank 5 .*on host ${P}3 called MPI_Abort with exit code 7" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" abort 5
expect "a rank killed on a remote host" 137 "rank 6 .*on host ${P}4 was killed by signal 9" \
    "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" kill 6
# A rank SIGKILLed on a remote host while every rank communicates: the
# survivors on other hosts see the failure first and abort (exit code 101),
# but mpiexec asks every proxy for the ranks dying there before it takes an
# abort as the verdict (MPX_F_SYNC): the job names the killed rank and host,
# with 128+9, every time. Before, whichever message reached mpiexec first won
# (a survivor's abort, when the survivors did not wait CANAL_FAILURE_GRACE).
for i in 1 2 3 4 5 6 7 8 9 10; do
    expect "a rank killed on a remote host while all communicate (run $i of 10)" 137 \
        "rank 6 \(pid [0-9]+, [^)]*\) on host ${P}4 was killed by signal 9" \
        "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" killcomm 6 &&
        grep -q "called MPI_Abort" "$LAUNCH_OUT" && {
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: ... and a survivor's abort was reported too"
    }
done
expect "MPIEXEC_TIMEOUT ends the job on every host" 255 "MPIEXEC_TIMEOUT=3 s expired" \
    env MPIEXEC_TIMEOUT=3 "${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" hang
expect "an unreachable host ends the job" 255 "lost the proxy on host nohost.*code 255" \
    "$MPX" -launcher-exec "$NSEXEC" -hosts "${P}1:2,nohost:2" -n 4 "$CHECK" hang

# ranks_left: the cluster_check processes still running (ours)
ranks_left() { pgrep -f "^$CHECK " | wc -l; }
# wait_for N: until N ranks run (a hang guard only)
wait_for() {
    for ((i = 0; i < 600; i++)); do [ "$(ranks_left)" -ge "$1" ] && return 0; sleep 0.1; done
    return 1
}
# wait_gone: until no rank runs; 1 if some still do after 60 s (a hang guard)
wait_gone() {
    for ((i = 0; i < 600; i++)); do [ "$(ranks_left)" -eq 0 ] && return 0; sleep 0.1; done
    return 1
}

# A killed proxy; and the proxies' command lines carry no secret.
"${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" hang >"$LAUNCH_OUT" 2>&1 </dev/null &
MPID=$!
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if wait_for 8; then
    bad=""
    for pid in $(pgrep -f -- "-proxy ${P}"); do
        cmd=$(tr '\0' ' ' < /proc/$pid/cmdline)
        [ "$cmd" = "$MPX -proxy ${cmd##* -proxy }" ] && [[ "$cmd" =~ -proxy\ ${P}[1-4]\ $ ]] || bad="$bad [$cmd]"
    done
    n=$(pgrep -f -- "-proxy ${P}" | wc -l)
    if [ -z "$bad" ] && [ "$n" -eq 4 ]; then
        echo "PASS: 4 proxies, command lines 'mpiexec -proxy HOST' only"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: proxies: $n running (want 4), unexpected command lines:$bad"
    fi
    kill -9 "$(pgrep -f -- "-proxy ${P}2\$")"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: the 8 ranks did not start"
fi
timeout 120 tail --pid=$MPID -f /dev/null
wait $MPID
rc=$?
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if [ $rc -eq 255 ] && grep -Eq "lost the proxy on host ${P}2 .*ranks 2, 3 ran there" "$LAUNCH_OUT" && wait_gone; then
    echo "PASS: a killed proxy ends the job on every host, naming host and ranks"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: a killed proxy: exit code $rc (want 255), $(ranks_left) ranks left"
    tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
fi

# kill -9 of mpiexec: every proxy sees its link close and ends its ranks.
"${RUN[@]}" -n 8 "${NOOFI[@]}" "$CHECK" hang >"$LAUNCH_OUT" 2>&1 </dev/null &
MPID=$!
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if wait_for 8; then
    kill -9 $MPID
    wait $MPID 2>/dev/null
    if wait_gone; then
        echo "PASS: kill -9 of mpiexec ends the ranks on every host"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: kill -9 of mpiexec: $(ranks_left) ranks still run after 60 s"
    fi
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: the 8 ranks did not start"
    kill -9 $MPID
fi
# A proxy tree: 7 hosts with -fanout 2. mpiexec starts the proxies of P1 and
# P2; P1 starts P3 and P4, P2 starts P5 and P6, P3 starts P7 (breadth first,
# host i below host i/2 - 1); frames go through the relays both ways.
printf '%s\n' "${P}1" "${P}2" "${P}3" "${P}4" "${P}5" "${P}6" "${P}7" > "$LAUNCH_TMP/tree"
TREE=("$MPX" -fanout 2 -launcher-exec "$NSEXEC" -f "$LAUNCH_TMP/tree")
expect "proxy tree (7 hosts, fan-out 2): fences, channels, collectives through relays" 0 \
    "cluster check passed: 14 ranks on 7 hosts" "${TREE[@]}" -n 14 "${NOOFI[@]}" "$CHECK" check 7 sock
expect "... MPI_Abort two levels below mpiexec names rank and host" 7 \
    "rank 6 .*on host ${P}7 called MPI_Abort with exit code 7" \
    "${TREE[@]}" -n 7 "${NOOFI[@]}" "$CHECK" abort 6
expect "... spawn and published names on a host two levels down" 0 \
    "names across hosts passed: parents 7, children 2" "${TREE[@]}" -n 7 "${NOOFI[@]}" "$CHECK" names "${P}7"
expect "-fanout 1 is a usage error" 2 "fan-out of at least 2" "${TREE[@]}" -fanout 1 -n 7 true
# who started whom, then a relay (P3, which relays for P7) killed: the job
# ends on every host, naming P3
"${TREE[@]}" -n 7 "${NOOFI[@]}" "$CHECK" hang >"$LAUNCH_OUT" 2>&1 </dev/null &
MPID=$!
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if wait_for 7; then
    bad=""
    for pair in 1:mpiexec 2:mpiexec 3:1 4:1 5:2 6:2 7:3; do
        h=${pair%%:*} want=${pair#*:}
        pid=$(pgrep -f -- "-proxy ${P}$h\$" | head -1)
        ppid=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')
        if [ "$want" = mpiexec ]; then
            [ "$ppid" = "$MPID" ] || bad="$bad ${P}$h(parent $ppid, want mpiexec $MPID)"
        else
            pcmd=$(tr '\0' ' ' < "/proc/$ppid/cmdline" 2>/dev/null)
            [[ "$pcmd" == *"-proxy ${P}$want "* ]] || bad="$bad ${P}$h(parent '$pcmd')"
        fi
    done
    if [ -z "$bad" ]; then
        echo "PASS: proxy tree: P1, P2 started by mpiexec; P3, P4 by P1; P5, P6 by P2; P7 by P3"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: proxy tree: wrong parents:$bad"
    fi
    kill -9 "$(pgrep -f -- "-proxy ${P}3\$")"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: the 7 ranks of the tree did not start"
fi
timeout 120 tail --pid=$MPID -f /dev/null
wait $MPID
rc=$?
LAUNCH_RAN=$((LAUNCH_RAN + 1))
if [ $rc -eq 255 ] && grep -Eq "lost the proxy on host ${P}3 .*rank 2 ran there" "$LAUNCH_OUT" && wait_gone; then
    echo "PASS: a killed relay ends the job on every host (those below it too), naming its host"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: a killed relay: exit code $rc (want 255), $(ranks_left) ranks left"
    tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
fi
launch_finish
