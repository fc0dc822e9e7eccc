#!/bin/bash
# Launch a Canal program with Slurm on this one machine: starts a private
# slurmctld and slurmd (auth/none, cred/none, proctrack/pgid, task/none, no
# accounting) in a temporary directory, runs `srun --mpi=pmi2 -n 4` and
# `srun --mpi=pmix -n 4`, then Canal's `mpiexec -launcher slurm` inside an
# allocation (salloc), and stops them again. Needs root; installs Debian's
# slurmd, slurmctld and slurm-client if they are missing.
# Usage: slurm.sh PREFIX PROGRAM [ARGS...]
. "$(dirname "$0")/common.sh"
launch_setup "$@"

[ "$(id -u)" -eq 0 ] || launch_skip "a private Slurm needs root (slurmd runs the tasks)"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null; then
    command -v apt-get >/dev/null || launch_skip "Slurm is not installed and there is no apt-get"
    echo "installing slurmd slurmctld slurm-client ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q slurmd slurmctld slurm-client >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 &&
          apt-get install -y -q slurmd slurmctld slurm-client >/dev/null 2>&1; } ||
        launch_skip "cannot install slurmd/slurmctld/slurm-client"
fi

# Nothing of an enclosing Slurm job may leak into ours.
for v in $(env | sed -n 's/^\(SLURM[A-Z_0-9]*\)=.*/\1/p'); do unset "$v"; done

D=$(mktemp -d /tmp/canal-slurm.XXXXXX)
H=$(hostname -s)
CPUS=$(nproc)
[ "$CPUS" -ge 4 ] || CPUS=4
PORT=$((20000 + RANDOM % 20000))
mkdir -p "$D/spool" "$D/state"
cat >"$D/slurm.conf" <<CONF
ClusterName=canaltest
SlurmctldHost=$H(127.0.0.1)
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmdSpoolDir=$D/spool
StateSaveLocation=$D/state
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
NodeName=$H NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=canal Nodes=$H Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$D/slurm.conf

CTLD_PID=""
SLURMD_PID=""
stop_slurm() {
    [ -n "$SLURMD_PID" ] && kill "$SLURMD_PID" 2>/dev/null
    [ -n "$CTLD_PID" ] && kill "$CTLD_PID" 2>/dev/null
    for p in $SLURMD_PID $CTLD_PID; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.3; done
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    if [ "${LAUNCH_FAILED:-0}" -gt 0 ] || [ -n "$SLURM_BROKEN" ]; then
        echo "--- Slurm logs (kept in $D):"
        tail -n 15 "$D/slurmctld.log" "$D/slurmd.log" 2>/dev/null | sed 's/^/    /'
    else
        rm -rf "$D"
    fi
    rm -f "$LAUNCH_OUT"
}
trap stop_slurm EXIT

slurmctld -D -f "$SLURM_CONF" >"$D/slurmctld.out" 2>&1 &
CTLD_PID=$!
slurmd -D -f "$SLURM_CONF" >"$D/slurmd.out" 2>&1 &
SLURMD_PID=$!

state=""
for _ in $(seq 1 60); do
    state=$(sinfo -h -o %t -n "$H" 2>/dev/null | head -n 1)
    case $state in
    idle*|mix*|alloc*) break ;;
    down*|drain*) scontrol update NodeName="$H" State=RESUME >/dev/null 2>&1 ;;
    esac
    sleep 0.5
done
case $state in
idle*|mix*|alloc*) ;;
*) SLURM_BROKEN=1; launch_skip "the private Slurm did not come up (node state '$state')" ;;
esac

if srun --mpi=list 2>&1 | grep -q pmi2; then
    check_run "slurm: srun --mpi=pmi2 -n 4" 4 "PMI-2 over PMI_FD" \
        srun --mpi=pmi2 -n 4 "$PROG" "${PROG_ARGS[@]}"
else
    echo "SKIP: slurm: this Slurm has no mpi/pmi2 plugin"
fi
if srun --mpi=list 2>&1 | grep -q pmix; then
    if check_run "slurm: srun --mpi=pmix -n 4" 4 "PMIx" srun --mpi=pmix -n 4 "$PROG" "${PROG_ARGS[@]}"; then
        :
    elif grep -q "built without PMIx" "$LAUNCH_OUT"; then
        LAUNCH_FAILED=$((LAUNCH_FAILED - 1))
        echo "SKIP: slurm: this Canal was built without PMIx, srun --mpi=pmix cannot start it"
    fi
else
    echo "SKIP: slurm: this Slurm has no mpi/pmix plugin"
fi
# Canal's mpiexec inside an allocation: one proxy per node through srun, the
# nodes and slots from the allocation (as Hydra's slurm launcher).
MPX=$PREFIX/bin/mpiexec
if check_run "slurm: salloc -n 4 mpiexec -launcher slurm (slots from the allocation)" 4 \
    "PMI-[12] over PMI_FD" salloc -Q -n 4 "$MPX" -v -launcher slurm "$PROG" "${PROG_ARGS[@]}" &&
    ! grep -q "starting the proxy on host $H: srun" "$LAUNCH_OUT"; then
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: ... the proxy was not started through srun"
    grep "mpiexec:" "$LAUNCH_OUT" | head -5 | sed 's/^/    /'
fi
check_run "slurm: salloc -n 2 mpiexec -launcher slurm -n 3" 3 "PMI-[12] over PMI_FD" \
    salloc -Q -n 2 "$MPX" -launcher slurm -n 3 "$PROG" "${PROG_ARGS[@]}"
# slurm_expect NAME WANT-RC REGEX COMMAND...: exit code and output
slurm_expect() {
    local name=$1 want=$2 regex=$3 rc
    shift 3
    timeout "$(launch_hang_limit 60)" "$@" >"$LAUNCH_OUT" 2>&1
    rc=$?
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    if [ $rc = "$want" ] && grep -Eq "$regex" "$LAUNCH_OUT"; then
        echo "PASS: slurm: $name"
        return 0
    fi
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: slurm: $name: exit code $rc (want $want), output must match '$regex'"
    tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
}
slurm_expect "a killed rank under -launcher slurm names rank and host, exit code 137" 137 \
    "rank 1 .*on host $H was killed by signal 9" \
    salloc -Q -n 2 "$MPX" -launcher slurm -n 2 sh -c '[ "$PMI_RANK" = 1 ] && kill -9 $$; sleep 60'
slurm_expect "-launcher slurm outside an allocation is a usage error naming it" 2 \
    "SLURM_JOB_NODELIST is not set" "$MPX" -launcher slurm -n 1 true
# Without any PMI the program must refuse to run as 4 silent singletons.
timeout "$(launch_hang_limit 60)" srun --mpi=none -n 2 "$PROG" "${PROG_ARGS[@]}" >"$LAUNCH_OUT" 2>&1
if grep -q "srun" "$LAUNCH_OUT" && grep -q -- "--mpi=pmi2" "$LAUNCH_OUT"; then
    echo "PASS: slurm: srun --mpi=none -n 2 fails with a message naming srun --mpi=pmi2"
else
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
    echo "FAIL: slurm: srun --mpi=none -n 2 did not explain the missing PMI"
    tail -n 10 "$LAUNCH_OUT" | sed 's/^/    /'
fi
LAUNCH_RAN=$((LAUNCH_RAN + 1))
[ "$LAUNCH_RAN" -gt 0 ] || launch_skip "no usable srun --mpi plugin"
launch_finish
