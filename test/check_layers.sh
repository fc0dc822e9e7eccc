#!/bin/sh
# Layering check (make check): who may include whose headers.
#  1. No file of a layer below mpi/ -- coll/, adi/, channels/, datatype/,
#     pmi/, common/ -- includes a private header of mpi/ (mpiimpl.h,
#     comm_impl.h, api_impl.h ...: every header under mpi/ that is not
#     installed), nor a header of rma/ or io/. The public headers (mpi.h,
#     mpio.h, mpi_ext.h) are allowed. A lower layer that needs something of
#     the MPI layer declares the interface itself and lets mpi/ fill it
#     (coll/coll.h's coll_host_t is the example). Nor a header of rma/, io/
#     or dyn/.
#  2. rma/ and io/, the MPI-level layers beside mpi/ (windows and files are
#     MPI objects with error handlers, attributes and info), include of
#     mpi/ only its named interface for them: mpiimpl.h, objects.h and the
#     generated api_impl.h (and the public headers). dyn/ (dynamic
#     processes: its introductions build communicators) may include
#     mpi/comm_impl.h besides, the exchanges and context agreement of
#     communicator construction.
#  3. rma/, io/ and dyn/ include nothing of each other, and their private
#     headers (rma/rma_impl.h, io/io_impl.h, dyn/dyn_impl.h) only themselves:
#     the rest of the tree sees rma/rma.h, io/io.h and dyn/dyn.h.
# An include is resolved as the compiler does: "x.h" next to the including
# file first, then the source tree's top (-I.), then mpi/ (-Impi).
# Prints each offending line; exits 1 if there is one.
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99
[ -d mpi ] && [ -d coll ] && [ -d rma ] && [ -d io ] && [ -d dyn ] ||
    { echo "check_layers: run from the source tree" >&2; exit 99; }

public="mpi/mpi.h mpi/mpio.h mpi/mpi_ext.h"
rma_io_may="mpi/mpiimpl.h mpi/objects.h mpi/api_impl.h"
dyn_may="$rma_io_may mpi/comm_impl.h"

# resolve FILE INC: the tree path the include names, or nothing (a system header)
resolve() {
    d=$(dirname "$1")
    case "$2" in
    api_impl.h | mpi/api_impl.h) echo mpi/api_impl.h; return ;; # generated in the build tree
    esac
    for p in "$d/$2" "$2" "mpi/$2"; do
        if [ -f "$p" ]; then
            echo "$p" | sed 's|^\./||'
            return
        fi
    done
}

# includes FILE: "line-number tree-path" of each include of the tree
includes() {
    grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$1" |
    while IFS= read -r line; do
        inc=$(printf '%s\n' "$line" | sed -E 's/^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]*)[">].*/\1/')
        p=$(resolve "$1" "$inc")
        [ -n "$p" ] && echo "${line%%:*} $p"
    done
}

in_list() { # in_list WORD LIST...
    w=$1
    shift
    for x in "$@"; do [ "$w" = "$x" ] && return 0; done
    return 1
}

out=$(mktemp) || exit 99
for f in $(find coll adi channels datatype pmi common rma io dyn mpi -name '*.[ch]' | sort); do
    layer=${f%%/*}
    includes "$f" | while read -r no p; do
        case "$p" in
        mpi/*) in_list "$p" $public && continue ;;
        rma/* | io/* | dyn/*) ;;
        *) continue ;;
        esac
        top=${p%%/*}
        case "$layer" in
        coll | adi | channels | datatype | pmi | common)
            echo "$f:$no: a layer below mpi/ includes $p" ;;
        rma | io | dyn)
            may=$rma_io_may
            [ "$layer" = dyn ] && may=$dyn_may
            if [ "$top" = mpi ]; then
                in_list "$p" $may ||
                    echo "$f:$no: $layer/ includes $p (of mpi/ it may include: $may)"
            elif [ "$top" != "$layer" ]; then
                echo "$f:$no: $layer/ includes $p of another MPI-level layer"
            fi ;;
        mpi)
            case "$p" in
            rma/rma.h | io/io.h | dyn/dyn.h) ;;
            rma/* | io/* | dyn/*) echo "$f:$no: mpi/ includes $p (it sees rma/rma.h, io/io.h and dyn/dyn.h only)" ;;
            esac ;;
        esac
    done
done > "$out"
if [ -s "$out" ]; then
    cat "$out"
    echo "check_layers: an include crosses the layers (see doc/design.md, Layers)"
    rm -f "$out"
    exit 1
fi
rm -f "$out"
echo "check_layers: coll adi channels datatype pmi common include no private header of mpi/, rma/, io/ or dyn/;"
echo "check_layers: rma/ and io/ include of mpi/ only $rma_io_may (dyn/: and mpi/comm_impl.h),"
echo "check_layers: and mpi/ only rma/rma.h, io/io.h and dyn/dyn.h"
exit 0
