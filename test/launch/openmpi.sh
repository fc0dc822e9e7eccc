#!/bin/bash
# Launch a Canal program with Open MPI's mpirun, a PMIx server: the program
# must find PMIX_NAMESPACE and use its PMIx client. As root, Open MPI needs
# the two OMPI_ALLOW_RUN_AS_ROOT variables. Usage: openmpi.sh PREFIX PROGRAM [ARGS...]
. "$(dirname "$0")/common.sh"
launch_setup "$@"

OMPIRUN=""
for c in mpirun.openmpi orterun prterun mpirun; do
    p=$(command -v $c) || continue
    if "$p" --version 2>&1 | grep -qi -E "open mpi|openrte|prrte"; then
        OMPIRUN=$p
        break
    fi
done
[ -n "$OMPIRUN" ] || launch_skip "Open MPI's mpirun (Debian package openmpi-bin) is not installed"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

check_run "openmpi: mpirun -n 2 (PMIx)" 2 "PMIx" \
    "$OMPIRUN" --oversubscribe -x LD_LIBRARY_PATH -x CANAL_DEBUG -n 2 "$PROG" "${PROG_ARGS[@]}"
if [ "$LAUNCH_FAILED" -gt 0 ] && grep -q "built without PMIx" "$LAUNCH_OUT"; then
    launch_skip "this Canal was built without PMIx (libpmix-dev), so Open MPI cannot start it"
fi
# MPI_Comm_spawn through PMIx_Spawn: the children must get their arguments
# exactly (empty strings, blanks, quotes, '=', ';' and a newline).
SPAWN=$(launch_build mpi/dyn_spawn_args)
if [ -z "$SPAWN" ]; then
    echo "FAIL: cannot build test/mpi/dyn_spawn_args.c"
    LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
else
    check_spawn "openmpi: MPI_Comm_spawn with empty and blank arguments (PMIx_Spawn)" 2 "PMIx" \
        "$OMPIRUN" --oversubscribe -x LD_LIBRARY_PATH -x CANAL_DEBUG -n 2 "$SPAWN" 3 1 nl
fi
# mpirun binds 2 ranks one per core: each mask has one CPU, the node is not
# oversubscribed, and the device must say so (issue 18).
if [ "$(nproc)" -ge 2 ]; then
    name="openmpi: mpirun -n 2, bound one per core, is not oversubscribed"
    LAUNCH_RAN=$((LAUNCH_RAN + 1))
    CANAL_SUMMARY=1 timeout 120 "$OMPIRUN" -x LD_LIBRARY_PATH -x CANAL_SUMMARY -n 2 "$PROG" "${PROG_ARGS[@]}" > "$LAUNCH_OUT" 2>&1
    rc=$?
    if [ $rc = 0 ] && grep -q "oversubscribed no (2 local ranks, 2 CPUs" "$LAUNCH_OUT"; then
        echo "PASS: $name"
    else
        LAUNCH_FAILED=$((LAUNCH_FAILED + 1))
        echo "FAIL: $name (exit code $rc; the summary says:)"
        grep -i "oversubscribed" "$LAUNCH_OUT" | sed 's/^/    /'
    fi
else
    echo "SKIP: mpirun -n 2 bound one per core (this runner has $(nproc) CPU)"
fi
launch_finish
