#!/bin/bash
# Launch a Canal program with Debian's Hydra (mpiexec.mpich): PMI-1 over
# PMI_FD (the default) and over PMI_PORT (-pmi-port). PMI-2 is not tried:
# Hydra 4.0.2 answers a PMI-2 kvs-fence at once, without waiting for the other
# ranks, so it is no barrier (Canal picks PMI-1 under Hydra for that reason).
# Usage: hydra.sh PREFIX PROGRAM [ARGS...]
. "$(dirname "$0")/common.sh"
launch_setup "$@"

HYDRA=$(command -v mpiexec.mpich || command -v mpiexec.hydra) ||
    launch_skip "Hydra (mpiexec.mpich, Debian package mpich) is not installed"

check_run "hydra: mpiexec.mpich -n 4 (PMI_FD)" 4 "PMI-1 over PMI_FD" \
    "$HYDRA" -n 4 "$PROG" "${PROG_ARGS[@]}"
check_run "hydra: mpiexec.mpich -pmi-port -n 4 (PMI_PORT)" 4 "PMI-1 over PMI_PORT" \
    "$HYDRA" -pmi-port -n 4 "$PROG" "${PROG_ARGS[@]}"
# MPI_Comm_spawn through Hydra's PMI-1 spawn: the children must get their
# arguments exactly (empty strings, blanks, quotes, '=' and ';').
SPAWN=$(launch_build mpi/dyn_spawn_args)
if [ -z "$SPAWN" ]; then
    echo "FAIL: cannot build test/mpi/dyn_spawn_args.c"
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
else
    check_spawn "hydra: MPI_Comm_spawn with empty and blank arguments (PMI-1)" 2 "PMI-1" \
        "$HYDRA" -n 2 "$SPAWN" 3
fi
launch_finish
