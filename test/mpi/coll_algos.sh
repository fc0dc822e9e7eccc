#!/bin/sh
# coll_algos.sh MPIEXEC BINDIR [SIZES]
#
# Runs the collective test programs of BINDIR (coll_basic, coll_reduce,
# coll_vector, coll_vrepeat, coll_nonblocking, coll_red_types) with every algorithm of every collective
# forced through its CANAL_COLL_<NAME> variable, and the node-aware ones
# with CANAL_COLL_FAKE_NODES, for each communicator size in SIZES
# (default "1 2 3 4 7 8"). Prints one line per run and exits nonzero if any
# run fails. The table's own choices are covered by the plain runs of
# test/mpi/testlist.coll.
mpiexec=${1:?usage: $0 MPIEXEC BINDIR [SIZES]}
bindir=${2:?usage: $0 MPIEXEC BINDIR [SIZES]}
sizes=${3:-"1 2 3 4 7 8"}
timeout=${COLL_TIMEOUT:-120}
failed=0
runs=0

# program  variable  algorithms
cat > "${TMPDIR:-/tmp}/coll_algos.$$" <<'LIST'
coll_basic BARRIER dissemination tree
coll_basic BCAST binomial knomial linear scatter_ring
coll_basic GATHER binomial linear
coll_basic SCATTER binomial linear
coll_basic ALLGATHER ring recursive_doubling bruck gather_bcast linear
coll_basic ALLTOALL pairwise linear bruck
coll_reduce REDUCE binomial knomial linear
coll_reduce ALLREDUCE recursive_doubling rabenseifner ring reduce_bcast linear
coll_reduce REDUCE_SCATTER halving ring reduce_scatterv linear
coll_reduce REDUCE_SCATTER_BLOCK halving ring reduce_scatterv linear
coll_reduce SCAN recursive_doubling linear
coll_reduce EXSCAN recursive_doubling linear
coll_vector ALLGATHERV ring recursive_doubling linear
coll_vector ALLTOALLV pairwise linear
coll_vector ALLTOALLW pairwise linear
coll_vrepeat ALLGATHERV ring recursive_doubling linear
coll_vrepeat ALLTOALLV pairwise linear
coll_vrepeat REDUCE_SCATTER halving ring reduce_scatterv linear
coll_vrepeat REDUCE_SCATTER_BLOCK halving ring reduce_scatterv linear
coll_nonblocking ALLREDUCE recursive_doubling rabenseifner ring linear
coll_red_types ALLREDUCE recursive_doubling rabenseifner ring reduce_bcast linear
LIST

run() { # env-assignment program np
    runs=$((runs + 1))
    if out=$(env "$1" timeout "$timeout" "$mpiexec" -n "$3" "$bindir/$2" 2>&1) &&
        printf '%s\n' "$out" | grep -q "No Errors"; then
        echo "ok   $2 -n $3 $1"
    else
        echo "FAIL $2 -n $3 $1"
        printf '%s\n' "$out" | head -20 | sed 's/^/     /'
        failed=$((failed + 1))
    fi
}

while read -r prog var algos; do
    [ -x "$bindir/$prog" ] || { echo "skip $prog (not built)"; continue; }
    for algo in $algos; do
        for np in $sizes; do
            run "CANAL_COLL_$var=$algo" "$prog" "$np"
        done
    done
done < "${TMPDIR:-/tmp}/coll_algos.$$"
rm -f "${TMPDIR:-/tmp}/coll_algos.$$"

# node-aware algorithms (the table picks them when ranks span nodes)
for nodes in 2 3; do
    for prog in coll_basic coll_reduce; do
        [ -x "$bindir/$prog" ] || continue
        for np in $sizes; do
            [ "$np" -ge "$nodes" ] && run "CANAL_COLL_FAKE_NODES=$nodes" "$prog" "$np"
        done
    done
done

echo "$runs runs, $failed failed"
[ "$failed" -eq 0 ]
