#!/bin/bash
# selftest.sh PREFIX: the test machinery itself behaves as the README says.
#   - install-deps.sh counts a package that was removed but kept its
#     configuration files ("deinstall ok config-files") as missing (a stub
#     dpkg-query and id on PATH stand in for the system's);
#   - test/mpi/runtests.sh reports a program that prints "skipped: ..." as
#     SKIP, not PASS; fails one that leaves a segment in /dev/shm (in its
#     private /dev/shm where it makes one); kills a hung program as hung; and scales the hang limit
#     with CANAL_TEST_TIMEOUT_SCALE and with the ranks per core; reports a
#     Fortran program as a SKIP naming the MPICH wrapper that is missing (a copy
#     of the runner with its own testlist in a temporary directory).
# Prints PASS/FAIL per check and "N passed, M failed" last.
set -u
PREFIX=$(cd "${1:?usage: selftest.sh PREFIX}" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d /tmp/canal-selftest.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
check() {  # description, then a command whose success is the check
    local d=$1
    shift
    if "$@" > "$W/out" 2>&1; then echo "PASS $d"; pass=$((pass + 1))
    else echo "FAIL $d"; sed 's/^/    /' "$W/out" | tail -8; fail=$((fail + 1)); fi
}

# ---- install-deps.sh -------------------------------------------------------------
mkdir -p "$W/stub"
cat > "$W/stub/dpkg-query" <<'EOS'
#!/bin/sh
# Every package is installed except check, which was removed (config files kept).
for a in "$@"; do p=$a; done
if [ "$p" = check ]; then printf 'config-files'; else printf 'installed'; fi
EOS
cat > "$W/stub/dpkg" <<'EOS'
#!/bin/sh
# dpkg -s succeeds for a package in state "deinstall ok config-files" too.
exit 0
EOS
printf '#!/bin/sh\necho 1000\n' > "$W/stub/id"
chmod +x "$W/stub/"*
deps_removed_is_missing() {
    local out
    out=$(PATH="$W/stub:$PATH" bash "$TOP/test/install-deps.sh" 2>&1)
    echo "$out"
    echo "$out" | grep -q "missing Debian packages: check "
}
check "install-deps.sh: a removed package with config files left is missing" deps_removed_is_missing

# ---- runtests.sh ----------------------------------------------------------------
R=$W/runner
mkdir -p "$R/src" "$R/build"
cp "$TOP/test/mpi/runtests.sh" "$R/src/"
cat > "$R/src/selft.c" <<'EOC'
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* selft MODE: "skip" prints a skip line, "sleep S" sleeps S seconds first,
 * "leak" leaves a segment named like the shm channel's in /dev/shm. */
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "skip") == 0 && rank == 0)
        printf("skipped: needs a resource this machine lacks\n");
    if (argc > 1 && strcmp(argv[1], "leak") == 0 && rank == 0) {
        char name[64];
        snprintf(name, sizeof name, "/canal-00000000000000aa-n0-p%ld", (long)getpid());
        if (shm_open(name, O_CREAT | O_RDWR, 0600) < 0)
            perror("shm_open");
    }
    if (argc > 2 && strcmp(argv[1], "sleep") == 0)
        sleep((unsigned)atoi(argv[2]));
    MPI_Finalize();
    if (rank == 0)
        printf(" No Errors\n");
    return 0;
}
EOC
run_list() {  # testlist-line [env...] -> runner output in $W/out
    local line=$1
    shift
    printf '%s\n' "$line" > "$R/src/testlist"
    env "$@" bash "$R/src/runtests.sh" "$PREFIX" "$R/build"
}
runner_skip() {
    run_list "selft 1 args=skip" > "$W/r" 2>&1; cat "$W/r"
    grep -q "^SKIP selft -n 1: skipped: needs" "$W/r" && grep -q "^0 passed, 0 failed" "$W/r"
}
check "runtests.sh: a program that prints 'skipped:' is a SKIP, not a PASS" runner_skip
runner_leak() {
    run_list "selft 2 args=leak" > "$W/r" 2>&1; cat "$W/r"
    grep -q "^FAIL selft -n 2: left in /dev/shm: canal-00000000000000aa-n0-p" "$W/r"
}
check "runtests.sh: a segment left in /dev/shm fails the test" runner_leak
runner_hang() {
    run_list "selft 1 args=sleep~100000 timeout=1" CANAL_TEST_TIMEOUT_SCALE=1 > "$W/r" 2>&1; cat "$W/r"
    grep -q "^FAIL selft -n 1: hung (killed after [0-9]*s)" "$W/r" && grep -q "^0 passed, 1 failed" "$W/r"
}
check "runtests.sh: a hung program fails as hung" runner_hang
runner_scale() {
    run_list "selft 1 args=sleep~2 timeout=1" CANAL_TEST_TIMEOUT_SCALE=10 > "$W/r" 2>&1; cat "$W/r"
    grep -q "^1 passed, 0 failed" "$W/r"
}
check "runtests.sh: CANAL_TEST_TIMEOUT_SCALE lengthens the hang limit" runner_scale
runner_ranks() {
    local np=$(($(nproc) * 4))
    run_list "selft $np args=sleep~2 timeout=1" CANAL_TEST_TIMEOUT_SCALE=1 > "$W/r" 2>&1; cat "$W/r"
    grep -q "^1 passed, 0 failed" "$W/r"
}
check "runtests.sh: the hang limit grows with the ranks per core" runner_ranks
printf 'program selff\nend program\n' > "$R/src/selff.f90"
runner_nowrapper() {
    run_list "selff 1" CANAL_TEST_MPIF90=/nonexistent/mpif90.mpich > "$W/r" 2>&1; cat "$W/r"
    grep -q "^SKIP selff -n 1: selff.f90 needs /nonexistent/mpif90.mpich" "$W/r" && grep -q "^0 passed, 0 failed" "$W/r"
}
check "runtests.sh: a Fortran program without MPICH's mpif90 is a SKIP naming it" runner_nowrapper

echo "$pass passed, $fail failed"
[ $fail = 0 ]
