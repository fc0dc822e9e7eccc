# Sourced by bench/compare*.sh and bench/startup.sh: which MPI libraries
# are compared, how to compile and launch with each, and the scaffolding
# every comparison script shares (help text, schedulings, the floor and the
# near/far label, rotation, reaping timed-out runs). Not a program.
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
# With CANAL_BASE=prefix set, bench_base_init adds a library "base": a
# second installed Canal measured in the same rounds (before/after a change).
# The shared scaffolding:
#   bench_help SCRIPT              prints SCRIPT's header comment (--help)
#   bench_scheds "rt plain"        the schedulings this user can run
#   bench_floor_build DIR          builds DIR/floor (bench/floor.c)
#   bench_floor DIR [rt]           runs it: "<one-way us> <near|far|busy>"
#   bench_mode "F1" "F2"           the run's label from the floors around it
#   bench_rotated R LIB...         the libraries in round R's order
#   bench_reap DIR                 kills processes running a binary in DIR

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

# bench_setup NAME PREFIX: the libraries to measure (bench_libs_init, then
# CANAL_BASE through bench_base_init) in BENCH_LIBS, and log() naming the
# script; 1 with a message when there is nothing to measure.
bench_setup() {
    bench_name=$1
    log() { echo "$bench_name: $*" >&2; }
    bench_libs_init "$2"
    [ -n "$BENCH_LIBS" ] || { log "no MPI library to measure"; return 1; }
    bench_base_init
}

# bench_base_init: with CANAL_BASE set, check it and append "base" to
# BENCH_LIBS (0), or fail with a message (1); nothing to do without it.
bench_base_init() {
    [ -n "${CANAL_BASE:-}" ] || return 0
    if [ ! -x "$CANAL_BASE/bin/mpicc" ] || [ ! -x "$CANAL_BASE/bin/mpiexec" ]; then
        echo "bench: CANAL_BASE=$CANAL_BASE has no bin/mpicc and bin/mpiexec" >&2
        return 1
    fi
    BENCH_LIBS="$BENCH_LIBS base"
    BENCH_LIBS=${BENCH_LIBS# }
}

bench_cc() {
    local lib=$1 out=$2
    shift 2
    case $lib in
    canal) $canal_cc -O2 -o "$out" "$@" $canal_libs ;;
    base) "$CANAL_BASE/bin/mpicc" -O2 -o "$out" "$@" ;;
    mpich) mpicc.mpich -O2 -o "$out" "$@" ;;
    ompi) mpicc.openmpi -O2 -o "$out" "$@" ;;
    esac
}

bench_launch() {
    local lib=$1 np=$2 rt=${3:-} chrt=
    [ "$rt" = rt ] && chrt="chrt -f 1"
    case $lib in
    canal) echo "$canal_mpiexec -n $np $chrt" ;;
    base) echo "$CANAL_BASE/bin/mpiexec -n $np $chrt" ;;
    mpich) echo "mpiexec.mpich -n $np $chrt" ;;
    ompi)
        # Shared memory only (vader); allow more ranks than cores.
        local over=
        [ "$np" -gt "$bench_ncpu" ] && over=--oversubscribe
        echo "mpirun.openmpi -n $np $over --mca btl self,vader $chrt"
        ;;
    esac
}

bench_help() {
    sed -n '2,/^set -u/p' "$1" | sed '$d; s/^# \{0,1\}//'
}

# Real-time runs (chrt -f 1) need root and chrt; without them only "plain"
# remains of the list (and "plain" when nothing would).
bench_scheds() {
    local s=" $1 "
    if [ "$(id -u)" != 0 ] || ! command -v chrt >/dev/null; then
        s=${s// rt / }
    fi
    s=$(echo $s)
    echo "${s:-plain}"
}

bench_floor_build() {
    cc -O2 -o "$1/floor" "$bench_srcdir/floor.c"
}

bench_floor() {
    if [ "${2:-}" = rt ]; then chrt -f 1 "$1/floor"; else "$1/floor"; fi
}

# bench_mode "us label" "us label": the label when both agree, else mixed.
bench_mode() {
    local a b
    a=${1#* } b=${2#* }
    if [ "$a" = "$b" ]; then echo "$a"; else echo mixed; fi
}

# A B C, then B C A, ...: no library always runs first or after another.
bench_rotated() {
    local r=$1 i
    shift
    local -a l=("$@")
    for ((i = 0; i < ${#l[@]}; i++)); do echo "${l[$(((i + r) % ${#l[@]}))]}"; done
}

# Kill what a timed-out run left behind: only processes running one of the
# script's own binaries (their executable is under DIR).
bench_reap() {
    local p exe
    for p in /proc/[0-9]*; do
        exe=$(readlink "$p/exe" 2>/dev/null) || continue
        case $exe in "$1/"*) kill -9 "${p#/proc/}" 2>/dev/null ;; esac
    done
}
