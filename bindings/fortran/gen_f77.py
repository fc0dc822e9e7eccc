#!/usr/bin/env python3
"""gen_f77.py -- the Fortran 77 bindings (mpif.h interface) of libmpifort,
generated from the API table (mpi/api/*.api) that generates the C entry points.

    gen_f77.py SRCDIR OUT.c

(and mpi_f77_aliases.h next to OUT.c, see below)

For every function of the table that has a Fortran binding, OUT.c defines the
profiling name pmpi_x_ and, as weak aliases, the other names gfortran and
other compilers use (pmpi_x, pmpi_x__, PMPI_X, mpi_x_, mpi_x, mpi_x__,
MPI_X), as MPICH's libmpifort exports them. Each wrapper converts the
arguments as MPICH's Fortran binding does (handles are MPI_Fint values equal
to the C handles, except MPI_File; MPI_BOTTOM, MPI_IN_PLACE,
MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL, MPI_UNWEIGHTED
and MPI_WEIGHTS_EMPTY are the addresses of mpif.h's common blocks; strings
carry hidden lengths; LOGICAL is 1/0) and calls the C function MPI_X, so
that C-level profiling tools see Fortran calls too. The error code goes to
the last argument, ierror.

Functions that take Fortran procedures (user ops, error handlers, attribute
callbacks...) or that need per-function code are written in
bindings/fortran/f77_special.c and listed in SPECIAL below; the generator
leaves them out. Functions with no Fortran binding in MPI (handle
conversions, MPI_T_, QMPI_) are left out too.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'mpi', 'api'))

# Written by hand in f77_special.c (they need Fortran-procedure proxies,
# string arrays, attribute values of Fortran kinds, or return non-int).
SPECIAL = {
    'MPI_Op_create', 'MPI_Comm_create_errhandler', 'MPI_Win_create_errhandler',
    'MPI_File_create_errhandler', 'MPI_Session_create_errhandler', 'MPI_Errhandler_create',
    'MPI_Comm_create_keyval', 'MPI_Type_create_keyval', 'MPI_Win_create_keyval', 'MPI_Keyval_create',
    'MPI_Comm_set_attr', 'MPI_Comm_get_attr', 'MPI_Type_set_attr', 'MPI_Type_get_attr',
    'MPI_Win_set_attr', 'MPI_Win_get_attr', 'MPI_Attr_put', 'MPI_Attr_get',
    'MPI_Grequest_start',
    'MPI_Register_datarep', 'MPI_Comm_spawn', 'MPI_Comm_spawn_multiple',
    'MPI_Wtime', 'MPI_Wtick', 'MPI_Aint_add', 'MPI_Aint_diff', 'MPI_Pcontrol',
    'MPI_Init', 'MPI_Init_thread', 'MPI_Alloc_mem', 'MPI_Win_allocate', 'MPI_Win_allocate_shared',
    'MPI_Win_shared_query', 'MPI_Free_mem', 'MPI_Buffer_detach', 'MPI_Address', 'MPI_Info_create_env',
    # MPI-1's removed functions take and return INTEGER addresses in MPICH's Fortran
    'MPI_Type_extent', 'MPI_Type_lb', 'MPI_Type_ub', 'MPI_Type_hvector', 'MPI_Type_hindexed',
    'MPI_Type_struct', 'MPI_Info_get_string',
}
# Procedures of mpif.h that are not C functions: the predefined attribute
# and data-representation callbacks (EXTERNAL MPI_COMM_DUP_FN ...), and
# MPI_F_SYNC_REG.
EXTRA_SPECIAL = ['MPI_Comm_null_copy_fn', 'MPI_Comm_null_delete_fn', 'MPI_Comm_dup_fn',
                 'MPI_Type_null_copy_fn', 'MPI_Type_null_delete_fn', 'MPI_Type_dup_fn',
                 'MPI_Win_null_copy_fn', 'MPI_Win_null_delete_fn', 'MPI_Win_dup_fn',
                 'MPI_Null_copy_fn', 'MPI_Null_delete_fn', 'MPI_Dup_fn', 'MPI_Conversion_fn_null',
                 'MPI_F_sync_reg']
# No Fortran binding in the standard or in MPICH's libmpifort.
def has_binding(name):
    if name.startswith(('MPI_T_', 'QMPI_', 'PMPI_')):
        return False
    if re.search(r'_(c2f|f2c|c2f08|f082c|f082f|f2f08)$', name):
        return False
    if name.endswith('_c'):  # large-count forms: mpi_f08 only
        return False
    if name.endswith(('_toint', '_fromint')):  # C only in MPI 5.0 (they return a handle value)
        return False
    if name.startswith(('MPIX_Delete_error_', 'MPIX_Grequest_')):
        return False  # Canal's additions to MPICH's C API; MPICH 4.0.2 has no Fortran binding
    return True

HANDLES = {'MPI_Comm', 'MPI_Datatype', 'MPI_Group', 'MPI_Request', 'MPI_Op', 'MPI_Info',
           'MPI_Errhandler', 'MPI_Win', 'MPI_Message', 'MPI_Session', 'MPIX_Grequest_class'}
WIDE = {'MPI_Aint', 'MPI_Offset', 'MPI_Count'}


class Unsupported(Exception):
    pass


def convert(e, large=False, sentinel='canal_f77'):
    """(parameters, prologue, call arguments, epilogue, temporaries to free)
    of the C binding of e, in its int form or large-count form. sentinel
    names the helpers that recognise the special addresses (canal_f77_status
    for mpif.h's common blocks, canal_f08_status for mpi_f08's objects). The
    epilogue may use rc, the C function's result."""
    fparams, pre, args, post, hidden, frees = [], [], [], [], [], []
    for p in e.params:
        if p.name == '...' or '(*' in p.decl:
            raise Unsupported('procedure argument')
        base = p.lbase if large else p.base
        stars, arr, const = p.stars, p.arr, p.const
        n = p.name
        ptr = bool(stars) or bool(arr)
        if base == 'void' and stars == '*' and not arr:
            # a choice buffer (attribute values and base pointers are SPECIAL)
            fparams.append('void *%s' % n)
            args.append('canal_f77_buf(%s)' % n)
            continue
        if base == 'char':
            if (stars == '*' and not arr) or (not stars and arr == '[]'):
                fparams.append('char *%s' % n)
                hidden.append('size_t %s_len' % n)
                if const:
                    pre.append('    char *%s_c = canal_f77_str_in(%s, %s_len);' % (n, n, n))
                else:
                    pre.append('    char *%s_c = canal_f77_str_buf(%s_len);' % (n, n))
                    # a value not found (flag false) leaves the program's string as it was
                    flagged = any(q.name == 'flag' for q in e.params)
                    post.append('    if (rc == MPI_SUCCESS%s)' % (' && *flag' if flagged else ''))
                    post.append('        canal_f77_str_out(%s, %s_len, %s_c);' % (n, n, n))
                args.append('%s_c' % n)
                frees.append('%s_c' % n)
                continue
            raise Unsupported('array of strings %s' % n)
        if base == 'MPI_File':
            if not ptr:
                fparams.append('MPI_Fint *%s' % n)
                args.append('MPI_File_f2c(*%s)' % n)
                continue
            if stars == '*' and not arr:
                fparams.append('MPI_Fint *%s' % n)
                if p.direction == 'out':  # (the program's variable is not set yet)
                    pre.append('    MPI_File %s_c = MPI_FILE_NULL;' % n)
                else:
                    pre.append('    MPI_File %s_c = MPI_File_f2c(*%s);' % (n, n))
                args.append('&%s_c' % n)
                post.append('    *%s = MPI_File_c2f(%s_c);' % (n, n))
                continue
            raise Unsupported('array of files')
        if base == 'MPI_Status':
            fparams.append('MPI_Fint *%s' % n)
            if arr or n.startswith('array_of_'):
                args.append('%s_statuses(%s)' % (sentinel, n))
            else:
                args.append('%s%s_status(%s)' % ('(const MPI_Status *)' if const else '', sentinel, n))
            continue
        if base in ('int',) or base in HANDLES:
            if not ptr:
                fparams.append('MPI_Fint *%s' % n)
                args.append('(%s)*%s' % (base, n))
            elif stars == '*' or arr == '[]':
                fparams.append('MPI_Fint *%s' % n)
                cast = '(%s%s *)' % ('const ' if const else '', base)
                if n in ('indx', 'array_of_indices') and not const and \
                        re.match(r'MPI_(Wait|Test)(any|some)$|MPI_Request_get_status_(any|some)$', e.name):
                    # request indices count from 1 in Fortran (MPI_UNDEFINED stays)
                    args.append('%s%s' % (cast, n))
                    if n == 'indx':
                        post.append('    if (*%s >= 0)' % n)
                        post.append('        ++*%s;' % n)
                    else:
                        post.append('    for (int i_ = 0; *outcount != MPI_UNDEFINED && i_ < *outcount; i_++)')
                        post.append('        %s[i_]++;' % n)
                elif n in ('array_of_errcodes',):
                    args.append('%s_errcodes(%s)' % (sentinel, n))
                elif n in ('sourceweights', 'destweights', 'weights'):
                    args.append('%s_weights(%s)' % (sentinel, n))
                else:
                    args.append('%s%s' % (cast, n))
            elif arr == '[][3]':
                fparams.append('MPI_Fint *%s' % n)
                args.append('(int (*)[3])%s' % n)
            else:
                raise Unsupported('%s %s' % (base, stars))
            continue
        if base in WIDE:
            fparams.append('%s *%s' % (base, n))
            args.append('*%s' % n if not ptr else n)
            continue
        if base == 'double' and not ptr:
            fparams.append('double *%s' % n)
            args.append('*%s' % n)
            continue
        raise Unsupported('type %s%s%s' % (base, stars, arr))
    fparams.append('MPI_Fint *ierror')
    return fparams + hidden, pre, args, post, frees


def c_binding(e, symbol, large=False, sentinel='canal_f77', optional_ierror=False):
    """The C function `symbol` that converts its Fortran arguments, calls
    MPI_X (or MPI_X_c) and stores the result in ierror (which mpi_f08 may
    leave out: NULL)."""
    fparams, pre, args, post, frees = convert(e, large, sentinel)
    cname = e.name + ('_c' if large else '')
    store = ['    if (ierror != NULL)', '        *ierror = rc;'] if optional_ierror else \
        ['    *ierror = rc;']
    out = ['CANAL_F77_API void %s(%s)' % (symbol, ', '.join(fparams)), '{'] + pre
    if frees:
        out.append('    int rc;')
        out.append('    if (%s) {' % ' || '.join('%s == NULL' % f for f in frees))
        out += ['        free(%s);' % f for f in frees]
        out.append('        rc = canal_f77_no_mem("%s");' % cname)
        out += ['    ' + l for l in store]
        out.append('        return;')
        out.append('    }')
        out.append('    rc = %s(%s);' % (cname, ', '.join(args)))
    else:
        out.append('    int rc = %s(%s);' % (cname, ', '.join(args)))
    out += post
    out += ['    free(%s);' % f for f in frees]
    out += store
    out.append('}')
    return out


def emit(e, out):
    out += c_binding(e, 'p' + e.name.lower() + '_')
    out += aliases(e.name)
    out.append('')


def aliases(name):
    low = name.lower()
    return ['CANAL_F77_ALIAS(%s, p%s_);' % (a, low)
            for a in ('p' + low, 'p' + low + '__', 'P' + name.upper(), low + '_', low, low + '__',
                      name.upper())]


HEADER = '''/*
 * Generated by bindings/fortran/gen_f77.py from mpi/api/*.api -- do not edit.
 *
 * The Fortran 77 (mpif.h) bindings of libmpifort, in every name mangling
 * MPICH exports. See gen_f77.py for the conventions.
 */
#include <stdlib.h>

#include "bindings/fortran/f77.h"
'''.replace('mpi/api/*.api', 'the API table')


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    import gen
    chapters, entries = gen.read_table(argv[1])
    # the Canal extensions of mpi_ext.h (ext-canal.api) are C only
    entries = [e for e in entries if gen.HEADERS[e.file] == 'mpi.h']
    out = [HEADER]
    left = []
    count = 0
    for e in entries:
        if not has_binding(e.name) or e.name in SPECIAL or e.stub or e.returns != 'int':
            continue
        try:
            emit(e, out)
            count += 1
        except Unsupported as why:
            left.append('%s (%s)' % (e.name, why))
    special = ['/* Generated by bindings/fortran/gen_f77.py -- do not edit. The other names of',
               ' * the functions written in f77_special.c, which includes this file at its end',
               ' * (an alias must be in the unit that defines its target). */']
    for e in entries:
        if e.name in SPECIAL and has_binding(e.name):
            special += aliases(e.name)
    for extra in EXTRA_SPECIAL:
        special += aliases(extra)
    write_if_changed(os.path.join(os.path.dirname(argv[2]), 'mpi_f77_aliases.h'), '\n'.join(special) + '\n')
    out.append('/* %d functions generated here; not generated (written in f77_special.c or left out): */' % count)
    for l in left:
        out.append('/*   %s */' % l)
    write_if_changed(argv[2], '\n'.join(out) + '\n')
    return 0


def write_if_changed(path, text):
    try:
        if open(path).read() == text:
            return
    except OSError:
        pass
    with open(path + '.tmp', 'w') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
