#!/bin/bash
# abi-check.sh PREFIX: is an installed Canal binary-compatible with Debian's
# MPICH 4.0.2 (libmpich-dev)? Compares, for the C interface:
#   - constants: every object-like macro of MPICH's mpi.h (with mpio.h) that
#     is not a system header's, and every enumerator it declares (not the
#     QMPI function indices), printed by one generated C program built once
#     against each mpi.h and linked with that header's library. Integers print
#     as numbers, strings as text, pointers as "&symbol" when they are the
#     address of an exported symbol (MPI_DUP_FN, MPI_F_STATUS_IGNORE) and as
#     numbers otherwise; a macro with an empty body must merely be defined.
#   - types: size, alignment and signedness of the handle and integer types,
#     the size of MPI_Status and the offset of each of its fields.
#   - symbols: every MPI_/PMPI_ function libmpich.so.12 exports, and every
#     other exported name MPICH's headers mention (data objects such as
#     MPI_F_STATUS_IGNORE and MPIR_F08_*, MPIR_Dup_fn, MPIX_*), must be
#     exported by PREFIX/lib/libmpi.so.12 as the same kind (function or data
#     object) and, for data objects, with the same size; so must every name
#     MPICH's own Fortran and C++ libraries (libmpichfort.so.12,
#     libmpichcxx.so.12 next to the reference library) import from it: the
#     MPII_* hooks (mpi/mpich_lang.c).
# Prints the differences and a last line "ABI: N constants match, M differ,
# K missing; symbols: X of Y". Exit 0 when everything matches, 1 when
# something differs, 2 on a usage or tool error, 77 (SKIP) when Debian's MPICH
# is not installed. CANAL_ABI_REF_INC / CANAL_ABI_REF_LIB name another
# reference header directory / library.
set -u
export LC_ALL=C
PREFIX=$(cd "${1:?usage: abi-check.sh PREFIX}" && pwd -P) || exit 2
REF_INC=${CANAL_ABI_REF_INC:-/usr/include/x86_64-linux-gnu/mpich}
REF_LIB=${CANAL_ABI_REF_LIB:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
CAND_INC=$PREFIX/include
CAND_LIB=$PREFIX/lib/libmpi.so.12
CC=${CC:-cc}

if [ ! -f "$REF_INC/mpi.h" ] || [ ! -e "$REF_LIB" ]; then
    echo "SKIP ABI check: Debian's MPICH is not installed ($REF_INC/mpi.h, $REF_LIB; package libmpich-dev)"
    exit 77
fi
for f in "$CAND_INC/mpi.h" "$CAND_LIB"; do
    [ -e "$f" ] || { echo "abi-check.sh: $f is missing" >&2; exit 2; }
done
for t in "$CC" nm perl; do
    command -v "$t" > /dev/null || { echo "abi-check.sh: $t not found" >&2; exit 2; }
done
W=$(mktemp -d /tmp/canal-abi.XXXXXX) || exit 2
[ -n "${CANAL_ABI_KEEP:-}" ] && echo "work directory: $W" >&2 || trap 'rm -rf "$W"' EXIT

# ---- the names ---------------------------------------------------------------
printf '#include <mpi.h>\n' > "$W/hdr.c"
printf '#include <stdint.h>\n#include <stddef.h>\n#include <stdio.h>\n#include <limits.h>\n' > "$W/sys.c"
"$CC" -E -dM "$W/sys.c" | awk '$1 == "#define" {print $2}' | sort -u > "$W/sys.names"
"$CC" -E -dM -I"$REF_INC" "$W/hdr.c" > "$W/ref.dM" || { echo "abi-check.sh: MPICH's mpi.h does not preprocess" >&2; exit 2; }
"$CC" -E -P -I"$REF_INC" "$W/hdr.c" > "$W/ref.i" || exit 2
# Object-like macros, "V name" (a value) or "F name" (empty body: a flag).
awk '$1 == "#define" && $2 !~ /\(/ && $2 !~ /^_/ {
        body = $0; sub(/^#define[ \t]+[^ \t]+[ \t]*/, "", body)
        print $2, (body == "" ? "F" : "V") }' "$W/ref.dM" | sort -u > "$W/macros.all"
awk 'NR == FNR {sys[$1] = 1; next} !($1 in sys)' "$W/sys.names" "$W/macros.all" > "$W/macros"
# Enumerators, except MPICH's QMPI function indices.
perl -0777 -ne '
    while (/\benum\s*(\w*)\s*\{([^}]*)\}/g) {
        my ($tag, $body) = ($1, $2);
        next if $tag eq "QMPI_Functions_enum";
        for my $e (split /,/, $body) { print "$1\n" if $e =~ /^\s*([A-Za-z_]\w*)/ && $1 !~ /^MPIR_/; }
    }' "$W/ref.i" | sort -u > "$W/enums"
awk '{print $1}' "$W/macros" | sort -u > "$W/macro.names"
comm -23 "$W/enums" "$W/macro.names" > "$W/enums.only"

# ---- the probe: one line per value, the same source for both headers ----------
# show_<kind> is chosen by _Generic on the value's type; the pointer case
# names the exported symbol a pointer designates, so that addresses compare.
make_probe() {  # names-file (V items) -> probe.c on stdout
    cat <<'EOC'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <mpi.h>
static void show_i(const char *n, long long v) { printf("%s %lld\n", n, v); }
static void show_u(const char *n, unsigned long long v) { printf("%s %llu\n", n, v); }
static void show_d(const char *n, long double v) { printf("%s %Lg\n", n, v); }
static void show_s(const char *n, const char *v) { printf("%s \"%s\"\n", n, v); }
static void show_p(const char *n, const void *v)
{
    Dl_info d;
    if (v != NULL && dladdr(v, &d) != 0 && d.dli_sname != NULL && d.dli_saddr == v)
        printf("%s &%s\n", n, d.dli_sname);
    else
        printf("%s ptr %#lx\n", n, (unsigned long)v);
}
#define SHOW(x) _Generic((x), \
    _Bool: show_u, char: show_i, signed char: show_i, unsigned char: show_u, short: show_i, \
    unsigned short: show_u, int: show_i, unsigned: show_u, long: show_i, unsigned long: show_u, \
    long long: show_i, unsigned long long: show_u, float: show_d, double: show_d, \
    long double: show_d, char *: show_s, const char *: show_s, default: show_p)(#x, (x))
#define TYPE(t) printf("type %s size %zu align %zu signed %d\n", #t, sizeof(t), _Alignof(t), \
    (int)((t)-1 < (t)0))
#define FIELD(f) printf("MPI_Status.%s offset %zu size %zu\n", #f, offsetof(MPI_Status, f), \
    sizeof(((MPI_Status *)0)->f))
int main(void)
{
EOC
    while read -r n; do
        printf '    SHOW(%s);\n' "$n"
    done < "$1"
    echo "    return 0;"
    echo "}"
}
# Handle and integer types, and MPI_Status: always compared.
cat > "$W/types.c" <<'EOC'
#include <stddef.h>
#include <stdio.h>
#include <mpi.h>
#define TYPE(t) printf("type %s size %zu align %zu signed %d\n", #t, sizeof(t), _Alignof(t), \
    (int)((t)-1 < (t)0))
#define PTYPE(t) printf("type %s size %zu align %zu\n", #t, sizeof(t), _Alignof(t))
#define FIELD(f) printf("MPI_Status.%s offset %zu size %zu\n", #f, offsetof(MPI_Status, f), \
    sizeof(((MPI_Status *)0)->f))
int main(void)
{
    TYPE(MPI_Comm); TYPE(MPI_Datatype); TYPE(MPI_Group); TYPE(MPI_Win); TYPE(MPI_Op);
    TYPE(MPI_Errhandler); TYPE(MPI_Request); TYPE(MPI_Message); TYPE(MPI_Info);
    TYPE(MPI_Session); TYPE(MPI_Aint); TYPE(MPI_Offset); TYPE(MPI_Count); TYPE(MPI_Fint);
    PTYPE(MPI_File); PTYPE(MPI_T_enum); PTYPE(MPI_T_cvar_handle); PTYPE(MPI_T_pvar_handle);
    PTYPE(MPI_T_pvar_session); PTYPE(MPI_T_event_instance); PTYPE(MPI_T_event_registration);
    printf("type MPI_Status size %zu align %zu\n", sizeof(MPI_Status), _Alignof(MPI_Status));
    printf("type MPI_F08_status size %zu\n", sizeof(MPI_F08_status));
    FIELD(count_lo); FIELD(count_hi_and_cancelled); FIELD(MPI_SOURCE); FIELD(MPI_TAG);
    FIELD(MPI_ERROR);
    return 0;
}
EOC

# Build probe.c for one side, dropping the lines the compiler rejects (a
# name the header lacks, or a macro that is not a value); prints the run's
# output. Rejected names go to $W/<side>.rejected.
build_run() {  # side inc lib names-file
    local side=$1 inc=$2 lib=$3 names=$4 try line
    cp "$names" "$W/$side.names"
    : > "$W/$side.rejected"
    for try in 1 2 3 4 5 6 7 8; do
        make_probe "$W/$side.names" > "$W/$side.c"
        if "$CC" -std=gnu11 -w -I"$inc" -o "$W/$side.probe" "$W/$side.c" "$lib" -ldl \
            > "$W/$side.cc.log" 2>&1; then
            LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                "$W/$side.probe" > "$W/$side.values" || { echo "abi-check.sh: the $side probe failed" >&2; return 1; }
            return 0
        fi
        # Constants that name symbols the library lacks: no line to drop.
        if grep -q "undefined reference to" "$W/$side.cc.log"; then
            sed -n "s/.*undefined reference to \`\(.*\)'.*/\1/p" "$W/$side.cc.log" | sort -u > "$W/$side.undef"
            return 3
        fi
        # The probe's body starts after the fixed preamble: line k of the names is line k+off.
        local off
        off=$(grep -n '^int main(void)$' "$W/$side.c" | cut -d: -f1)
        off=$((off + 1))
        # An error inside a macro points at the macro; the notes that follow
        # ("in expansion of macro") name the probe's line that used it.
        grep -oE "^$W/$side.c:[0-9]+:" "$W/$side.cc.log" | sed 's/.*\.c:\([0-9]*\):$/\1/' \
            | awk -v off="$off" -v n="$(wc -l < "$W/$side.names")" '$1 > off && $1 <= off + n' \
            | sort -un > "$W/bad.lines"
        [ -s "$W/bad.lines" ] || { cat "$W/$side.cc.log" >&2; return 1; }
        while read -r line; do
            sed -n "$((line - off))p" "$W/$side.names"
        done < "$W/bad.lines" | sort -u >> "$W/$side.rejected"
        grep -vxF -f "$W/$side.rejected" "$W/$side.names" > "$W/$side.names.new"
        mv "$W/$side.names.new" "$W/$side.names"
    done
    echo "abi-check.sh: the $side probe still does not compile" >&2
    return 1
}

{ awk '$2 == "V" {print $1}' "$W/macros"; cat "$W/enums.only"; } | sort -u > "$W/values"
build_run ref "$REF_INC" "$REF_LIB" "$W/values" || exit 2
# What MPICH's own header cannot evaluate (types, attributes) is not compared.
grep -vxF -f "$W/ref.rejected" "$W/values" > "$W/values.ok" || true
build_run cand "$CAND_INC" "$CAND_LIB" "$W/values.ok"
case $? in
    0) ;;
    3) echo "constants of Canal's mpi.h name symbols libmpi.so.12 does not export:"
       sed 's/^/    /' "$W/cand.undef"
       : > "$W/cand.values"
       cat "$W/cand.undef" >> "$W/cand.rejected" ;;
    *) exit 2 ;;
esac
for side in ref cand; do
    inc=$REF_INC lib=$REF_LIB
    [ $side = cand ] && inc=$CAND_INC lib=$CAND_LIB
    "$CC" -std=gnu11 -w -I"$inc" -o "$W/$side.types" "$W/types.c" > "$W/$side.tcc.log" 2>&1 \
        || { echo "abi-check.sh: the $side type probe does not compile:" >&2; cat "$W/$side.tcc.log" >&2; exit 2; }
    "$W/$side.types" >> "$W/$side.values"
done
# Flags: defined in both.
awk '$2 == "F" {print $1}' "$W/macros" > "$W/flags"
"$CC" -E -dM -I"$CAND_INC" "$W/hdr.c" | awk '$1 == "#define" {print $2}' | sort -u > "$W/cand.defined"
comm -23 <(sort -u "$W/flags") "$W/cand.defined" > "$W/flags.missing"

sort "$W/ref.values" > "$W/ref.sorted"
sort "$W/cand.values" > "$W/cand.sorted"
nvals=$(wc -l < "$W/ref.sorted")
nflags=$(wc -l < "$W/flags")
match=$(comm -12 "$W/ref.sorted" "$W/cand.sorted" | wc -l)
# A value line present in both with different text differs; absent from the candidate is missing.
awk '{k = $1; if ($1 == "type" || $1 ~ /^MPI_Status\./) k = $1 " " $2; sub(/^[^ ]+ /, "", $0); print k "\t" $0}' \
    "$W/ref.sorted" | sort > "$W/ref.kv"
awk '{k = $1; if ($1 == "type" || $1 ~ /^MPI_Status\./) k = $1 " " $2; sub(/^[^ ]+ /, "", $0); print k "\t" $0}' \
    "$W/cand.sorted" | sort > "$W/cand.kv"
join -t "$(printf '\t')" "$W/ref.kv" "$W/cand.kv" | awk -F'\t' '$2 != $3' > "$W/differ"
join -t "$(printf '\t')" -v1 "$W/ref.kv" "$W/cand.kv" | cut -f1 > "$W/missing"
cat "$W/cand.rejected" "$W/flags.missing" >> "$W/missing"
ndiffer=$(wc -l < "$W/differ")
nmissing=$(sort -u "$W/missing" | grep -c .)
match=$((match + nflags - $(wc -l < "$W/flags.missing")))

if [ "$ndiffer" -gt 0 ]; then
    echo "constants that differ (name, MPICH, Canal):"
    sed 's/^/    /' "$W/differ"
fi
if [ "$nmissing" -gt 0 ]; then
    echo "constants MPICH's mpi.h has and Canal's lacks (or cannot evaluate):"
    sort -u "$W/missing" | sed 's/^/    /'
fi

# ---- the symbols ---------------------------------------------------------------
# kind: F (function), D (data object); size for data objects.
syms() {  # lib
    nm -D --defined-only -S "$1" | awk '
        NF == 4 { t = $3; n = $4; s = $2 } NF == 3 { t = $2; n = $3; s = "" }
        NF >= 3 { k = (t ~ /^[TtWi]$/) ? "F" : "D"; sub(/@.*/, "", n)
                  if (k == "D") sub(/^0+/, "", s); print n, k, (k == "D" ? s : "-") }' | sort -u -k1,1
}
syms "$REF_LIB" > "$W/ref.syms"
syms "$CAND_LIB" > "$W/cand.syms"
grep -ohE '[A-Za-z_][A-Za-z0-9_]*' "$W/ref.i" "$W/ref.dM" | sort -u > "$W/ref.tokens"
for l in libmpichfort.so.12 libmpichcxx.so.12; do
    [ -e "$(dirname "$REF_LIB")/$l" ] || continue
    nm -D --undefined-only "$(dirname "$REF_LIB")/$l" | awk '{sub(/@.*/, "", $NF); print $NF}'
done | sort -u > "$W/lang.imports"
{ awk '$1 ~ /^P?MPI_/ && $2 == "F" {print $1}' "$W/ref.syms"
  join "$W/ref.tokens" <(awk '{print $1}' "$W/ref.syms")
  join "$W/lang.imports" <(awk '{print $1}' "$W/ref.syms"); } | sort -u > "$W/want.syms"
join "$W/want.syms" "$W/ref.syms" > "$W/want.kinds"
join -a1 -e NONE -o 0,1.2,1.3,2.2,2.3 "$W/want.kinds" "$W/cand.syms" \
    | awk '$4 == "NONE" {print "    " $1 ": not exported"; next}
           $2 != $4 {print "    " $1 ": " ($2 == "F" ? "a function" : "a data object") " in MPICH, not in Canal"; next}
           $2 == "D" && $3 != $5 {print "    " $1 ": " $3 " bytes in MPICH, " $5 " in Canal"}' > "$W/sym.bad"
nsyms=$(wc -l < "$W/want.kinds")
nsymbad=$(wc -l < "$W/sym.bad")
if [ "$nsymbad" -gt 0 ]; then
    echo "symbols of libmpich.so.12 that libmpi.so.12 lacks or exports differently:"
    cat "$W/sym.bad"
fi
soname=$(readelf -d "$CAND_LIB" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libmpi.so.12 ] || { echo "libmpi.so.12's SONAME is '$soname'"; nsymbad=$((nsymbad + 1)); }

nlang=$(join "$W/lang.imports" <(awk '{print $1}' "$W/ref.syms") | grep -v -c -E '^P?MPIX?_')
echo "compared: $nvals values and $nflags flags of MPICH's mpi.h ($(wc -l < "$W/ref.rejected") macros that are not values left out), $nsyms symbols ($nlang of them only for MPICH's Fortran/C++ libraries)"
echo "ABI: $match constants match, $ndiffer differ, $nmissing missing; symbols: $((nsyms - nsymbad)) of $nsyms"
[ "$ndiffer" = 0 ] && [ "$nmissing" = 0 ] && [ "$nsymbad" = 0 ]
