#!/bin/bash
# test/fortran/run.sh PREFIX WORKDIR -- Canal's Fortran library as users meet it.
#
#   1. mpif.h has every constant of Debian's MPICH mpif.h with the same value;
#   2. libmpifort exports every symbol of Debian's libmpichfort.so.12: the
#      Fortran 77 names, the mpi_f08 procedures (mpi_x_f08_, mpi_x_f08ts_,
#      their PMPI names pmpir_x_f08_ ...), and the module procedures and
#      variables of MPICH's modules (__mpi_f08_types_MOD_mpi_comm_eq ...);
#   3. the programs of this folder, compiled with Canal's mpifort, pass under
#      Canal's mpiexec with 1 to 4 ranks (a program X.f90 with a file X_c.c
#      is a C+Fortran program: X_c.c is compiled with the matching mpicc);
#   4. the same programs (mpif.h, use mpi and use mpi_f08 ones) compiled
#      with MPICH's mpif90.mpich (Debian) run on Canal's libraries by
#      swapping them: LD_LIBRARY_PATH=PREFIX/lib, where Canal installs
#      libmpichfort.so.12 (its libmpifort) and libmpich.so.12.
# A missing gfortran or Debian MPICH is a reported SKIP of the steps that
# need it. Prints "N passed, M failed" last; exit 1 if anything failed.
set -u
PREFIX=$1
WORK=${2:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
pass=0
fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }
MPICH_MPIF=/usr/include/x86_64-linux-gnu/mpich/mpif.h
MPICH_FORT=/usr/lib/x86_64-linux-gnu/libmpichfort.so.12
TIMEOUT=$((180 * ${CANAL_TEST_TIMEOUT_SCALE:-1}))

if [ -f "$MPICH_MPIF" ]; then
    if python3 "$HERE/check_mpif.py" "$PREFIX/include/mpif.h" "$MPICH_MPIF" > "$WORK/mpif.out"; then
        ok "mpif.h values ($(tail -1 "$WORK/mpif.out"))"
    else
        cat "$WORK/mpif.out"; ko "mpif.h values"
    fi
else
    echo "SKIP mpif.h values (no $MPICH_MPIF: apt-get install libmpich-dev)"
fi

if [ -f "$MPICH_FORT" ]; then
    nm -D --defined-only "$MPICH_FORT" | awk '{print $3}' | sort -u > "$WORK/theirs.sym"
    nm -D --defined-only "$PREFIX/lib/libmpichfort.so.12" | awk '{print $3}' | sort -u > "$WORK/ours.sym"
    comm -23 "$WORK/theirs.sym" "$WORK/ours.sym" > "$WORK/missing.sym"
    if [ -s "$WORK/missing.sym" ]; then
        echo "missing: $(tr '\n' ' ' < "$WORK/missing.sym")"; ko "libmpichfort symbols"
    else
        ok "libmpichfort symbols (all $(wc -l < "$WORK/theirs.sym") of $MPICH_FORT, $(grep -c f08 "$WORK/theirs.sym") with f08)"
    fi
else
    echo "SKIP libmpichfort symbols (no $MPICH_FORT: apt-get install libmpich-dev)"
fi

# program nprocs
PROGRAMS="ring.f90 2
ring.f90 4
attrs.f90 1
attrs.f90 2
userop.f90 3
greq.f90 1
f77basic.f 1
f77basic.f 3
f08basic.f90 1
f08basic.f90 3
fileerrh.f90 1
fileerrh.f90 2
f08mod.f90 1
f08mod.f90 4
usempi.f90 1
usempi.f90 2
datarep.f90 1
datarep.f90 2
sections.f90 1
sections.f90 3
reqindex.f90 1
removed.f 1
removed.f 2
infostr.f90 1
spawnargv.f90 1
spawnargv.f90 2
attrmix.f90 1
attrmix.f90 2
f08attr.f90 1
f08attr.f90 2"

run() { # label exe nprocs [env...]
    local label=$1 exe=$2 np=$3 out
    shift 3
    out="$WORK/$(echo "$label" | tr / _)-$np.out"
    if env "$@" timeout -k 5 "$TIMEOUT" "$PREFIX/bin/mpiexec" -n "$np" "$exe" > "$out" 2>&1 &&
        grep -q "^ No Errors" "$out"; then
        ok "$label -n $np"
    else
        tail -20 "$out"; ko "$label -n $np"
    fi
}

if ! command -v gfortran > /dev/null; then
    echo "SKIP Fortran programs (no gfortran: apt-get install gfortran)"
else
    for src in $(echo "$PROGRAMS" | cut -d' ' -f1 | sort -u); do
        base=${src%.*}
        # (in WORK: gfortran writes the programs' own .mod files in the current folder)
        cpart="" mpich_cpart=""
        if [ -f "$HERE/${base}_c.c" ]; then
            "$PREFIX/bin/mpicc" -c -o "$WORK/${base}_c.o" "$HERE/${base}_c.c" > "$WORK/${base}_c.cc" 2>&1 &&
                cpart="$WORK/${base}_c.o" || { cat "$WORK/${base}_c.cc"; ko "mpicc ${base}_c.c"; continue; }
        fi
        (cd "$WORK" && "$PREFIX/bin/mpifort" -o "$WORK/$base" "$HERE/$src" $cpart) > "$WORK/$base.cc" 2>&1 ||
            { cat "$WORK/$base.cc"; ko "mpifort $src"; }
        if command -v mpif90.mpich > /dev/null && [ "${CANAL_TEST_SANITIZED:-no}" != yes ]; then
            if [ -n "$cpart" ]; then
                mpicc.mpich -c -o "$WORK/mpich_${base}_c.o" "$HERE/${base}_c.c" > "$WORK/mpich_${base}_c.cc" 2>&1 &&
                    mpich_cpart="$WORK/mpich_${base}_c.o" || { cat "$WORK/mpich_${base}_c.cc"; ko "mpicc.mpich ${base}_c.c"; continue; }
            fi
            (cd "$WORK" && mpif90.mpich -o "$WORK/mpich_$base" "$HERE/$src" $mpich_cpart) > "$WORK/mpich_$base.cc" 2>&1 ||
                { cat "$WORK/mpich_$base.cc"; ko "mpif90.mpich $src"; }
        fi
    done
    echo "$PROGRAMS" > "$WORK/list"
    while read -r src np; do
        base=${src%.*}
        [ -x "$WORK/$base" ] && run "fortran/$base" "$WORK/$base" "$np"
        if [ -x "$WORK/mpich_$base" ]; then
            run "fortran-mpich-built/$base" "$WORK/mpich_$base" "$np" LD_LIBRARY_PATH="$PREFIX/lib"
        elif [ "${CANAL_TEST_SANITIZED:-no}" = yes ]; then
            echo "SKIP fortran-mpich-built/$base (MPICH-built programs cannot load a sanitizer build)"
        elif ! command -v mpif90.mpich > /dev/null; then
            echo "SKIP fortran-mpich-built/$base (no mpif90.mpich: apt-get install libmpich-dev)"
        fi
    done < "$WORK/list"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
