# Sourced by bench/compare.sh and bench/startup.sh: which MPI libraries
# are compared and how to compile and launch with each. Not a program.
#
# The three libraries are named canal, mpich (Debian's, mpicc.mpich and
# mpiexec.mpich) and ompi (Debian's Open MPI, mpicc.openmpi and
# mpirun.openmpi). Canal is found from a prefix: an installed tree
# (PREFIX/bin/mpicc, PREFIX/bin/mpiexec) or, while the autotools build is
# being brought up, a directory holding a hand-built libmpi.so and mpiexec
# (then the headers come from the source tree's mpi/).
#
# After bench_libs_init PREFIX, BENCH_LIBS lists the libraries found, and
#   bench_cc LIB OUT SRC...        compiles one program
#   bench_launch LIB NP [rt]       prints the launch command prefix (a
#                                  program and its arguments follow it);
#                                  with rt each rank runs under chrt -f 1.

bench_srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_topdir=$(cd "$bench_srcdir/.." && pwd)
bench_ncpu=$(nproc 2>/dev/null || echo 2)

# Open MPI refuses root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bench_libs_init() {
    local prefix=$1
    BENCH_LIBS=
    canal_cc= canal_mpiexec= canal_libs=
    if [ -n "$prefix" ]; then
        if [ -x "$prefix/bin/mpicc" ] && [ -x "$prefix/bin/mpiexec" ]; then
            canal_cc="$prefix/bin/mpicc"
            canal_mpiexec="$prefix/bin/mpiexec"
        elif [ -e "$prefix/libmpi.so" ] && [ -x "$prefix/mpiexec" ]; then
            canal_cc="gcc -I$bench_topdir/mpi -L$prefix -Wl,-rpath,$prefix"
            canal_libs="-lmpi"
            canal_mpiexec="$prefix/mpiexec"
        else
            echo "bench: no Canal in '$prefix' (want bin/mpicc and bin/mpiexec, or libmpi.so and mpiexec)" >&2
        fi
    fi
    [ -n "$canal_cc" ] && BENCH_LIBS="canal"
    if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
        BENCH_LIBS="$BENCH_LIBS mpich"
    else
        echo "bench: Debian MPICH not found (apt-get install mpich), skipped" >&2
    fi
    if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
        BENCH_LIBS="$BENCH_LIBS ompi"
    else
        echo "bench: Debian Open MPI not found (apt-get install openmpi-bin libopenmpi-dev), skipped" >&2
    fi
    BENCH_LIBS=${BENCH_LIBS# }
}

bench_cc() {
    local lib=$1 out=$2
    shift 2
    case $lib in
    canal) $canal_cc -O2 -o "$out" "$@" $canal_libs ;;
    mpich) mpicc.mpich -O2 -o "$out" "$@" ;;
    ompi) mpicc.openmpi -O2 -o "$out" "$@" ;;
    esac
}

bench_launch() {
    local lib=$1 np=$2 rt=${3:-} chrt=
    [ "$rt" = rt ] && chrt="chrt -f 1"
    case $lib in
    canal) echo "$canal_mpiexec -n $np $chrt" ;;
    mpich) echo "mpiexec.mpich -n $np $chrt" ;;
    ompi)
        # Shared memory only (vader); allow more ranks than cores.
        local over=
        [ "$np" -gt "$bench_ncpu" ] && over=--oversubscribe
        echo "mpirun.openmpi -n $np $over --mca btl self,vader $chrt"
        ;;
    esac
}
