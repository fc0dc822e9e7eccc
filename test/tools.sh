#!/bin/bash
# tools.sh PREFIX: the installed tools behave as their users expect.
#   mpicc: MPICH's options (-show, -compile-info, -link-info, -cc=, MPICH_CC),
#          refuses Open MPI's -showme; builds and links a program.
#   mpicxx (and mpic++): the same for C++ (-cxx=, MPICH_CXX); builds a C++ program.
#   mpiexec: --help, --version, unknown option -> exit 2, non-MPI programs.
#   canal-info: prints the version and the configuration variables.
#   The installed files: libmpi.so.12 (soname), libmpich.so.12, pkg-config files.
#   A binary built with Debian's MPICH runs on Canal by LD_LIBRARY_PATH alone,
#   and MPICH's Fortran and C++ libraries (libmpichfort.so.12, libmpichcxx.so.12)
#   find every symbol they import in Canal's library (ldd -r),
#   and so does OpenCoarrays' asynchronous_hello_world when libcoarrays-mpich-dev is there.
#   libfabric is loaded only by the ofi channel: not linked, not loaded on
#   shm, loaded with CANAL_CHANNEL=ofi; a missing CANAL_OFI_LIBRARY fails a
#   forced ofi clearly and makes a 2-node job fall back to sock.
# Prints PASS/FAIL per check and "N passed, M failed" last.
set -u
PREFIX=$(cd "${1:?usage: tools.sh PREFIX}" && pwd)
W=$(mktemp -d /tmp/canal-tools.XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
check() {  # description, then a command whose success is the check
    local d=$1
    shift
    if "$@" > "$W/out" 2>&1; then echo "PASS $d"; pass=$((pass + 1))
    else echo "FAIL $d"; sed 's/^/    /' "$W/out" | tail -5; fail=$((fail + 1)); fi
}
not() { ! "$@"; }
has() { local pat=$1; shift; "$@" 2>&1 | grep -q -- "$pat"; }

cat > "$W/hello.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, len;
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_library_version(v, &len);
    if (rank == 0)
        printf("%s\n", v);
    MPI_Finalize();
    return 0;
}
EOC

check "mpicc -show names the compiler and -lmpi" has "-lmpi" "$PREFIX/bin/mpicc" -show
# The prefix mpicc prints is the one configure was given (it may say
# _build/../_install, or go through a symlink): compare canonical paths.
incdir_is_prefix() {
    local d
    for d in $("$PREFIX/bin/mpicc" -compile-info | tr ' ' '\n' | sed -n 's/^-I//p'); do
        [ "$(readlink -f "$d")" = "$(readlink -f "$PREFIX/include")" ] && return 0
    done
    echo "no -I naming $PREFIX/include in: $("$PREFIX/bin/mpicc" -compile-info)"
    return 1
}
check "mpicc -compile-info has -I<prefix>/include" incdir_is_prefix
check "mpicc -compile_info is accepted" has "-I" "$PREFIX/bin/mpicc" -compile_info
check "mpicc -link-info has -L and -lmpi" has "-lmpi" "$PREFIX/bin/mpicc" -link-info
check "mpicc -link_info is accepted" has "-L" "$PREFIX/bin/mpicc" -link_info
check "mpicc -showme is refused" not "$PREFIX/bin/mpicc" -showme
check "mpicc -showme:compile is refused" not "$PREFIX/bin/mpicc" -showme:compile
check "mpicc -cc= picks the compiler" has "^clang-or-other" "$PREFIX/bin/mpicc" -cc=clang-or-other -show
check "MPICH_CC picks the compiler" has "^mycc" env MPICH_CC=mycc "$PREFIX/bin/mpicc" -show
check "CANAL_CC picks the compiler" has "^mycc2" env CANAL_CC=mycc2 "$PREFIX/bin/mpicc" -show
check "mpicc builds a program" "$PREFIX/bin/mpicc" -o "$W/hello" "$W/hello.c"
check "mpicc -c then link" bash -c "cd '$W' && '$PREFIX/bin/mpicc' -c hello.c -o h.o && '$PREFIX/bin/mpicc' h.o -o h2"
check "the program runs as a singleton" has "Canal" "$W/hello"
cat > "$W/hello.cpp" <<'EOC'
#include <mpi.h>
#include <iostream>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> all(size);
    MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "C++ ranks " << all.size() << std::endl;
    MPI_Finalize();
    return 0;
}
EOC
check "mpicxx --help" has "-cxx=COMPILER" "$PREFIX/bin/mpicxx" --help
check "mpicxx -show names the C++ compiler and -lmpi" bash -c "'$PREFIX/bin/mpicxx' -show | grep -q -- '-lmpi' && test \"\$('$PREFIX/bin/mpicxx' -show | awk '{print \$1}')\" != \"\$('$PREFIX/bin/mpicc' -show | awk '{print \$1}')\""
check "mpicxx -compile_info has -I" has "-I" "$PREFIX/bin/mpicxx" -compile_info
check "mpicxx -link_info has -lmpi" has "-lmpi" "$PREFIX/bin/mpicxx" -link_info
check "mpicxx -cxx= picks the compiler" has "^clang-or-other" "$PREFIX/bin/mpicxx" -cxx=clang-or-other -show
check "MPICH_CXX picks the compiler" has "^mycxx" env MPICH_CXX=mycxx "$PREFIX/bin/mpicxx" -show
check "mpicxx -showme is refused" not "$PREFIX/bin/mpicxx" -showme
check "mpic++ is mpicxx" has "-cxx=COMPILER" "$PREFIX/bin/mpic++" --help
cxx=$("$PREFIX/bin/mpicxx" -show 2>/dev/null | awk '{print $1}')
cxx=${cxx:-g++}
if command -v "$cxx" > /dev/null; then
    check "mpicxx builds a C++ program that runs on 2 ranks" bash -c "'$PREFIX/bin/mpicxx' -o '$W/hello_cxx' '$W/hello.cpp' && '$PREFIX/bin/mpiexec' -n 2 '$W/hello_cxx' | grep -q 'C++ ranks 2'"
else
    echo "SKIP mpicxx builds a C++ program ($cxx absent: package g++)"
fi
check "mpiexec -n 2 runs it" has "MPICH Version:" "$PREFIX/bin/mpiexec" -n 2 "$W/hello"
check "mpirun is mpiexec" has "MPICH Version:" "$PREFIX/bin/mpirun" -n 2 "$W/hello"
check "mpiexec -n 2 hostname (not an MPI program)" "$PREFIX/bin/mpiexec" -n 2 hostname
check "mpiexec --help" has "-n" "$PREFIX/bin/mpiexec" --help
check "mpiexec --version" has "Canal" "$PREFIX/bin/mpiexec" --version
check "mpiexec rejects an unknown option with exit 2" bash -c "'$PREFIX/bin/mpiexec' --no-such-option -n 1 true; test \$? = 2"
check "canal-info prints the version" has "Canal version" "$PREFIX/bin/canal-info"
check "canal-info lists CANAL_EAGER_LIMIT" has "CANAL_EAGER_LIMIT" "$PREFIX/bin/canal-info"
check "canal-info --help" has "Usage" "$PREFIX/bin/canal-info" --help
check "canal-info rejects an unknown option" not "$PREFIX/bin/canal-info" --bogus
check "libmpi.so.12 has soname libmpi.so.12" has "libmpi.so.12" readelf -d "$PREFIX/lib/libmpi.so.12"
check "libmpich.so.12 is installed" test -e "$PREFIX/lib/libmpich.so.12"
check "include/mpi.h is installed" test -f "$PREFIX/include/mpi.h"
check "pkg-config mpich" has "-lmpi" env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --libs mpich
check "pkg-config canal" has "-lmpi" env PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --libs canal
# A sanitizer build exports the sanitizers' interceptors and must be loaded
# first; those two checks only make sense for the normal build.
if ldd "$PREFIX/lib/libmpi.so.12" | grep -q 'libasan\|libubsan'; then
    echo "SKIP exported symbols and MPICH binaries (sanitizer build)"
else
check "only MPI ABI symbols are exported" bash -c "nm -D --defined-only '$PREFIX/lib/libmpi.so.12' | awk '{print \$NF}' | grep -v -E '^(P?MPIX?_|QMPI_|MPIR_|MPII_|_init|_fini|_edata|_end|__bss_start)' | grep -q . && exit 1 || exit 0"
if command -v mpicc.mpich > /dev/null; then
    check "a binary built with Debian's MPICH runs on Canal" bash -c "mpicc.mpich -o '$W/hello_mpich' '$W/hello.c' && LD_LIBRARY_PATH='$PREFIX/lib' '$PREFIX/bin/mpiexec' -n 2 '$W/hello_mpich' | grep -q Canal"
else
    echo "SKIP a binary built with Debian's MPICH (mpicc.mpich absent)"
fi
# MPICH's Fortran and C++ libraries import MPICH-internal hooks (MPII_*,
# mpi/mpich_lang.c): none may be left undefined against Canal's libmpich.so.12.
for lib in libmpichfort.so.12 libmpichcxx.so.12; do
    path=$(ls /usr/lib/*/"$lib" 2>/dev/null | head -1)
    if [ -n "$path" ]; then
        check "ldd -r $lib against Canal: no undefined symbol" bash -c "LD_LIBRARY_PATH='$PREFIX/lib' ldd -r '$path' > '$W/ldd.out' 2>&1; cat '$W/ldd.out'; grep -q 'libmpich.so.12 => $PREFIX/lib' '$W/ldd.out' && ! grep -q 'undefined symbol' '$W/ldd.out'"
    else
        echo "SKIP ldd -r $lib against Canal ($lib absent: package libmpich-dev)"
    fi
done
# OpenCoarrays' event test (issue 18): an image waits for an event holding
# MPI_Win_lock_all(MPI_MODE_NOCHECK) while another locks it exclusively.
caf_hello=$(ls /usr/lib/*/open-coarrays/mpich/bin/OpenCoarrays-*-tests/asynchronous_hello_world 2>/dev/null | head -1)
if [ -n "$caf_hello" ]; then
    for n in 2 3; do
        check "OpenCoarrays asynchronous_hello_world on $n images" has "Test passed" env LD_LIBRARY_PATH="$PREFIX/lib" timeout -k 5 120 "$PREFIX/bin/mpiexec" -n $n "$caf_hello"
    done
else
    echo "SKIP OpenCoarrays asynchronous_hello_world (libcoarrays-mpich-dev absent)"
fi
fi
# libfabric is loaded by the ofi channel when it is opened (channels/ofi/ofi_dl.c),
# never linked: programs that do not use it must not load it (nor PSM's
# libinfinipath and its SIGSEGV handler).
check "libmpi.so.12 does not link libfabric" not has fabric ldd "$PREFIX/lib/libmpi.so.12"
if "$PREFIX/bin/canal-info" | grep -q '^Channels:.* ofi'; then
    check "a job on shm does not load libfabric" not has "file=libfabric" env LD_DEBUG=files "$PREFIX/bin/mpiexec" -n 2 "$W/hello"
    check "CANAL_CHANNEL=ofi loads libfabric and runs" has "file=libfabric" env LD_DEBUG=files CANAL_CHANNEL=ofi "$PREFIX/bin/mpiexec" -n 2 "$W/hello"
    check "CANAL_CHANNEL=ofi with a missing CANAL_OFI_LIBRARY fails naming it" bash -c "! CANAL_CHANNEL=ofi CANAL_OFI_LIBRARY=/nonexistent/libfabric.so.1 '$PREFIX/bin/mpiexec' -n 2 '$W/hello' > '$W/o' 2>&1 && grep -q 'cannot load libfabric (CANAL_OFI_LIBRARY=/nonexistent/libfabric.so.1)' '$W/o'"
    # Ranks on two "nodes" need a network channel: Hydra's fork launcher
    # gives each host name its own node on this one machine.
    if command -v mpiexec.mpich > /dev/null; then
        check "ofi unloadable on 2 nodes: one warning line per rank, then sock" bash -c "CANAL_OFI_LIBRARY=/nonexistent mpiexec.mpich -launcher fork -hosts nodeA,nodeB -n 2 '$W/hello' > '$W/o' 2>&1 && grep -q 'MPICH Version' '$W/o' && test \$(grep -c 'ofi channel unusable (ofi: cannot load libfabric.*using the sock channel' '$W/o') = 2"
    else
        echo "SKIP ofi fallback on 2 nodes (mpiexec.mpich absent)"
    fi
else
    echo "SKIP libfabric loading checks (built without the ofi channel)"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
