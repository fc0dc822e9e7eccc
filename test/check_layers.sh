#!/bin/sh
# Layering check (make check): no file of a layer below mpi/ -- coll/, adi/,
# channels/, datatype/, pmi/, common/ -- includes a private header of mpi/
# (mpiimpl.h, comm_impl.h, api_impl.h ... : every header under mpi/ that is
# not installed). The public headers (mpi.h, mpio.h, mpi_ext.h) are allowed.
# A lower layer that needs something of the MPI layer declares the interface
# itself and lets mpi/ fill it (coll/coll.h's coll_host_t is the example).
# Prints each offending line; exits 1 if there is one.
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99
[ -d mpi ] && [ -d coll ] || { echo "check_layers: run from the source tree" >&2; exit 99; }

public="mpi.h mpio.h mpi_ext.h"
private=""
for h in $(find mpi -name '*.h' | sed 's|.*/||' | sort -u) api_impl.h; do
    case " $public " in *" $h "*) continue ;; esac
    private="$private $h"
done

bad=0
out=$(mktemp) || exit 99
for f in $(find coll adi channels datatype pmi common -name '*.[ch]' | sort); do
    # #include "x.h", "mpi/x.h" or <x.h>: the name after the last '/'
    grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f" |
    while IFS= read -r line; do
        inc=$(printf '%s\n' "$line" | sed -E 's/^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*["<]([^">]*)[">].*/\1/')
        base=${inc##*/}
        case "$inc" in
        mpi/*) ;;                                      # a header of mpi/ by its path
        */*) continue ;;                               # another folder's header
        esac
        for p in $private; do
            if [ "$base" = "$p" ]; then
                echo "$f:${line%%:*}: includes mpi/'s private header $inc"
            fi
        done
    done
done > "$out"
if [ -s "$out" ]; then
    cat "$out"
    echo "check_layers: a lower layer includes mpi/'s private headers (see doc/design.md, Layers)"
    bad=1
fi
rm -f "$out"
[ $bad -eq 0 ] && echo "check_layers: coll adi channels datatype pmi common include no private header of mpi/"
exit $bad
