#!/bin/sh
# check-api.sh [SRCDIR] -- the API table agrees with mpi/mpi.h and
# mpi/mpi_ext.h, doc/status.md is what the table says, and the library calls
# no entry point of its own.
#
# mpi/api/*.api describes every function of mpi/mpi.h; the entry points and
# doc/status.md are generated from it by mpi/api/gen.py. This test (run by
# "make check", where automake sets $srcdir) fails when a prototype of mpi.h
# has no entry or a different parameter list, when the committed
# doc/status.md is out of date (regenerate: python3 mpi/api/gen.py status . > doc/status.md),
# or when code of mpi/, coll/, rma/, io/, adi/ or datatype/ calls a PMPI_X or MPI_X
# entry point instead of its implementation mpi_x_impl (gen.py internal).
set -eu

src=${1:-${srcdir:-$(dirname "$0")/..}}
if [ ! -f "$src/mpi/api/gen.py" ] || [ ! -f "$src/doc/status.md" ]; then
    echo "check-api: $src is not a Canal source tree (no mpi/api/gen.py or doc/status.md)" >&2
    exit 1
fi
python3 "$src/mpi/api/gen.py" check "$src"
python3 "$src/mpi/api/gen.py" internal "$src"
tmp=${TMPDIR:-/tmp}/check-api.$$
trap 'rm -f "$tmp"' EXIT
python3 "$src/mpi/api/gen.py" status "$src" > "$tmp"
if ! diff -u "$src/doc/status.md" "$tmp"; then
    echo "check-api: doc/status.md is out of date; regenerate it with" >&2
    echo "    python3 mpi/api/gen.py status . > doc/status.md" >&2
    exit 1
fi
echo "check-api: doc/status.md is current"
