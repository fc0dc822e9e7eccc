#!/bin/bash
# tsan.sh: the multithreaded MPI test programs (test/mpi/*_threads*, the
# point-to-point hammer) under ThreadSanitizer.
#
# Usage: test/tsan.sh [PREFIX] [FILTER-REGEX]
#   PREFIX: a Canal installed from a build configured with
#   --enable-sanitize=thread. Without it, the tree is configured and built in
#   _build-tsan and installed in _install-tsan (a few minutes on 2 cores).
#   FILTER (default '_threads|hammer') picks the programs from test/mpi/testlist*.
# A data race makes the rank exit with code 66, so the test fails and
# runtests.sh shows the start of the report; run the program by hand
# (PREFIX/bin/mpiexec -n 2 BUILD/prog) for the whole report. The threaded
# tests take about two minutes under TSan here.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${1:-}
FILTER=${2:-'_threads|hammer'}
if [ -z "$PREFIX" ]; then
    BUILD=$TOP/_build-tsan
    PREFIX=$TOP/_install-tsan
    if [ ! -x "$TOP/configure" ] || [ "$TOP/configure.ac" -nt "$TOP/configure" ]; then
        (cd "$TOP" && ./autogen.sh >/dev/null 2>&1) || { echo "tsan.sh: autogen failed" >&2; exit 1; }
    fi
    mkdir -p "$BUILD"
    ( cd "$BUILD" && { [ -f Makefile ] || "$TOP/configure" --prefix="$PREFIX" --enable-sanitize=thread --disable-java > configure.out 2>&1; } \
        && make -j2 > make.out 2>&1 && make install > install.out 2>&1 ) \
        || { echo "tsan.sh: building with ThreadSanitizer failed (see $BUILD/*.out)" >&2; exit 1; }
fi
# halt_on_error=0: report every race of a run, then exit 66.
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 report_signal_unsafe=0 ${TSAN_OPTIONS:-}"
exec "$TOP/test/mpi/runtests.sh" "$PREFIX" "${TSAN_BUILD:-$TOP/_build-tsan/mpi-tests}" "$FILTER"
