#!/bin/sh
# check-design.sh (make check): doc/design.md names only what exists.
#
# Every `span` of doc/design.md in backticks that looks like a file or a
# folder of the tree (has a '/' or a source suffix, no spaces) must exist:
# by its path from the top, or, for a bare file name (`attr.c`), somewhere
# in the tree. Every span that is an identifier (`adi_progress`,
# `coll_host_t`, `progress()`, `sendv(conn, ...)`: the name before the
# parenthesis) must occur as a word in the sources (C, headers, Python,
# shell, Makefiles, Fortran, Java). Other spans (commands, options, wire
# formats) are not checked. Names that the tree does not define and the
# design rightly mentions -- other libraries' and the system's -- are in
# the allowlist below, which is kept short: a name of Canal that is gone
# must be fixed in design.md, not allowed here.
# Prints each missing name; exits 1 if there is one.
srcdir=${srcdir:-.}
cd "$srcdir" || exit 99
doc=doc/design.md
[ -f "$doc" ] && [ -d mpi ] || { echo "check-design: run from the source tree" >&2; exit 99; }

# Other projects' names (MPICH's, Open MPI's, PMIx's, Slurm's, Hydra's,
# libc's, the Fortran standard's) and generic words the design uses as such.
allow="
MPIR_ATTR_PTR MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT MPIR_ERRORS_THROW_EXCEPTIONS MPIR_F08_
PMIX_ERR_PROC_ABORTED PMIX_ERR_PROC_TERM_WO_SYNC PMIX_EVENT_PROC_TERMINATED PMIX_PROC_TERMINATED
PMIx_Register_event_handler PMIx_Spawn SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE
hydra_pmi_proxy hydra_nameserver PF_EXITING ISO_Fortran_binding mpipriv1_ MPIException
mpii_cxxinterface.h mpii_f77interface.h mpir_attr_generic.h mpi-ext.h
MPI_X MPI_X_f08 MPI_X_f08ts PMPI_X mpi_x mpi_x_ mpi_x__ pmpi_x pmpi_x_ pmpi_x__
ft/anysource ft/die errors/coll/noalias2 comm/ctxalloc
mpi/api_impl.h
"
# (the last: generated in the build tree by mpi/api/gen.py; the tests of
# MPICH's suite before it)

dirs="adi bench bindings channels coll common datatype dyn io mpi mpiexec pmi rma test tools"
tmp=${TMPDIR:-/tmp}/check-design.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT

# every word of the sources, once
find $dirs configure.ac Makefile.am -type f \( -name '*.[ch]' -o -name '*.py' -o -name '*.sh' \
    -o -name '*.inc' -o -name '*.am' -o -name '*.ac' -o -name '*.f90' -o -name '*.java' \
    -o -name '*.api' \) -print 2>/dev/null |
    xargs grep -hoE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$tmp/words"
# every file and folder, by path and by name
find . -path ./.git -prune -o -print | sed 's|^\./||' | sort -u > "$tmp/paths"
sed 's|.*/||' "$tmp/paths" | sort -u > "$tmp/names"
# and names without their suffix (test programs: `fault_io`)
sed 's|\.[a-z0-9]*$||' "$tmp/names" | sort -u > "$tmp/stems"

bad=0
# the spans, one a line (a span does not cross lines in design.md)
grep -o '`[^`]*`' "$doc" | sed 's/^`//; s/`$//' | sort -u > "$tmp/spans"
while IFS= read -r s; do
    case " $(echo $allow) " in *" $s "*) continue ;; esac
    case "$s" in
    *' '* | *'<'* | *'*'* | *'{'* | *'$'* | *'='* | *:* | -* | .*) kind=other ;;
    /* | *MPI_*/*) kind=other ;; # a system path; MPI_A/B is "A or B"
    */* | *.c | *.h | *.sh | *.py | *.md | *.api | *.inc | *.f90 | *.java) kind=path ;;
    *) kind=other ;;
    esac
    if [ $kind = path ]; then
        p=${s%/}
        if [ "${s#*/}" != "$s" ]; then
            grep -qxF "$p" "$tmp/paths" || grep -qxF "mpi/$p" "$tmp/paths" ||
                { [ "$p/" = "$s" ] && grep -qxF "$p" "$tmp/names"; } ||
                { echo "check-design: $doc names \`$s\`, which is not in the tree"; bad=1; }
        else
            grep -qxF "$p" "$tmp/names" ||
                { echo "check-design: $doc names \`$s\`, which is no file of the tree"; bad=1; }
        fi
        continue
    fi
    # an identifier, or a call: the name before '('
    id=$(printf '%s\n' "$s" | sed -nE 's/^([A-Za-z_][A-Za-z0-9_]*)(\(.*\))?$/\1/p')
    [ -n "$id" ] || continue
    case " $(echo $allow) " in *" $id "*) continue ;; esac
    # only names that look like code: an underscore, or a call
    case "$id" in ?*_*) ;; *) case "$s" in *'('*) ;; *) continue ;; esac ;; esac
    # a CANAL_X variable is read as common_cvar_int("X")
    grep -qxF "$id" "$tmp/words" || grep -qxF "${id#CANAL_}" "$tmp/words" ||
        grep -qxF "$id" "$tmp/stems" ||
        { echo "check-design: $doc names \`$s\`, and \`$id\` is in no source file"; bad=1; }
done < "$tmp/spans"
if [ $bad -ne 0 ]; then
    echo "check-design: fix doc/design.md (or, for another project's name, the allowlist of test/check-design.sh)"
    exit 1
fi
echo "check-design: every file and identifier doc/design.md names exists"
exit 0
