#!/usr/bin/env python3
"""gen_f08.py -- the mpi_f08 bindings of libmpifort, generated from the API
table (mpi/api/*.api) like the Fortran 77 ones (gen_f77.py).

    gen_f08.py SRCDIR OUTDIR

writes in OUTDIR:
  mpi_f08_c.c       the procedures without choice buffers, in C, under MPICH's
                    names: MPI_X_f08 (symbol mpi_x_f08_) and its large-count
                    form MPI_X_f08_large (mpi_x_f08_large_). They are external
                    Fortran procedures in the interfaces of the module: handles
                    are bind(C) derived types of one integer, passed by
                    reference like the Fortran 77 integers, ierror is OPTIONAL
                    (NULL when absent), strings carry hidden lengths.
                    Also the C side of the choice-buffer procedures,
                    canal_f08ts_x(), which take the buffers as ISO_Fortran_binding
                    descriptors (f08ts.h).
  mpi_f08_ts.f90    the choice-buffer procedures MPI_X_f08ts (mpi_x_f08ts_) and
                    MPI_X_f08ts_large, in Fortran: the compiler hands their
                    TYPE(*), DIMENSION(..) buffers to canal_f08ts_x as
                    descriptors, so contiguous and non-contiguous arrays work.
  mpi_f08_interfaces.f90  the generic interfaces of module mpi_f08 (included
                    by bindings/fortran/mpi_f08.f90).
  pmpi_f08_interfaces.f90, pmpi_f08_special.f90  the same for module pmpi_f08:
                    generic PMPI_X with MPICH's specific names PMPIR_X_f08...
                    (the second from the hand-written mpi_f08_special.f90).
  pmpi_f08.ld       the symbols of those specifics (pmpir_x_f08_ ...): an
                    implicit linker script that makes each an alias of the
                    mpi_x_f08_ procedure, as the f77 PMPI names are.
  mpi_f08_callbacks_gen.f90, mpi_f08_callbacks_fns.f90  the interfaces of
                    the attribute copy/delete and error-handler procedures
                    of each object kind, and the predefined MPI_X_DUP_FN,
                    MPI_X_NULL_COPY_FN, MPI_X_NULL_DELETE_FN (included by
                    mpi_f08_callbacks.f90).
  mpi_sizeofs.f90   the body of use mpi's module MPI_SIZEOFS (MPI_SIZEOF's
                    specifics, included by mpi_mod.f90).
  mpi_f08_handles.f90, mpi_f08_handles_procs.f90  the operators ==, /= of
                    the handle types (also against an INTEGER handle), their
                    f2c/c2f functions and MPI_Sizeof, in module mpi_f08_types
                    under MPICH's names (MPI_Comm_eq, MPI_Comm_f08_eq_f ...).
Functions whose arguments this generator does not convert (procedure
arguments, attribute values, base addresses, string arrays) are left out of
the module and listed at the end of mpi_f08_c.c, or, when only their C side
is special (INTERFACE_ONLY), get a generated interface and a C procedure in
f08_special.c; a program that calls them
does not compile, rather than getting a wrong binding.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'mpi', 'api'))
sys.path.insert(0, HERE)
import gen  # noqa: E402
import gen_f77  # noqa: E402

HANDLE_TYPES = {'MPI_Comm', 'MPI_Datatype', 'MPI_Group', 'MPI_Request', 'MPI_Op', 'MPI_Info',
                'MPI_Errhandler', 'MPI_Win', 'MPI_File', 'MPI_Message', 'MPI_Session'}
KINDS = {'MPI_Aint': 'MPI_ADDRESS_KIND', 'MPI_Offset': 'MPI_OFFSET_KIND', 'MPI_Count': 'MPI_COUNT_KIND'}
LOGICAL_NAMES = {'flag', 'commute', 'reorder', 'periods', 'remain_dims', 'weighted'}
# Left out of mpi_f08 (see the docstring): besides gen_f77's SPECIAL set.
SKIP = (gen_f77.SPECIAL - {'MPI_Free_mem', 'MPI_Buffer_attach'}) | {'MPIX_Comm_agree',
                                                                   'MPI_Buffer_detach', 'MPI_Pcontrol'}


# Procedures whose C side is written by hand in f08_special.c (Fortran
# procedures passed to MPI, attribute values) but whose interface is regular:
# the generator writes their interface bodies only. A callback parameter is
# PROCEDURE(X_function) of module mpi_f08_callbacks; an attribute value or
# extra_state (void *) is INTEGER(KIND=MPI_ADDRESS_KIND), as MPI 4.0 19.2 has it.
INTERFACE_ONLY = {'MPI_Op_create', 'MPI_Comm_create_errhandler', 'MPI_Win_create_errhandler',
                  'MPI_File_create_errhandler', 'MPI_Session_create_errhandler',
                  'MPI_Comm_create_keyval', 'MPI_Type_create_keyval', 'MPI_Win_create_keyval',
                  'MPI_Comm_set_attr', 'MPI_Type_set_attr', 'MPI_Win_set_attr',
                  'MPI_Comm_get_attr', 'MPI_Type_get_attr', 'MPI_Win_get_attr',
                  'MPI_Grequest_start'}
ADDRESS_VALUES = {'attribute_val', 'extra_state'}


class Skip(Exception):
    pass


def is_choice(p):
    return p.base == 'void' and p.stars == '*' and not p.arr


def is_logical(e, p):
    return p.name in LOGICAL_NAMES and p.base == 'int' and e.name != 'MPIX_Comm_agree'


def ctype_of(p, large):
    return p.lbase if large else p.base


def fortran_decl(e, p, large, for_c=False):
    """The Fortran declaration of parameter p (None for ierror handling)."""
    if p.name == '...' or '(*' in p.decl:
        raise Skip('procedure argument')
    base = ctype_of(p, large)
    if e.name in INTERFACE_ONLY and p.kind == 'callback':
        return 'procedure(%s) :: %s' % (base, p.name)
    if e.name in INTERFACE_ONLY and base == 'void' and p.name in ADDRESS_VALUES:
        return 'integer(kind=MPI_ADDRESS_KIND), intent(%s) :: %s' % (p.direction, p.name)
    arr = '(*)' if p.arr == '[]' or p.name.startswith('array_of_') else \
        ('(3,*)' if p.arr == '[][3]' else '')
    intent = '' if p.direction == 'inout' else ', intent(%s)' % p.direction
    n = p.name
    if is_choice(p):
        if for_c:
            return 'type(*), dimension(..) :: %s' % n
        asyn = ', asynchronous' if e.name.startswith(('MPI_I', 'MPI_R', 'MPI_Put', 'MPI_Get',
                                                       'MPI_Accumulate', 'MPI_Send_init',
                                                       'MPI_Recv_init')) else ''
        return 'type(*), dimension(..)%s%s :: %s' % (intent if p.const else '', asyn, n)
    if base == 'void' or base == 'char' and (p.stars.count('*') > 1 or p.arr and p.stars):
        raise Skip('untyped or string-array argument %s' % n)
    if base == 'char':
        if for_c:  # a choice procedure's string: passed NUL-terminated
            return 'character(kind=c_char), dimension(*) :: %s' % n
        return 'character(len=*)%s :: %s' % (intent, n)
    if base == 'MPI_Status':
        return 'type(MPI_Status) :: %s%s' % (n, arr)
    if base in HANDLE_TYPES:
        return 'type(%s)%s :: %s%s' % (base, intent, n, arr)
    if base in KINDS:
        return 'integer(kind=%s)%s :: %s%s' % (KINDS[base], intent, n, arr)
    if base == 'int':
        if is_logical(e, p):
            return '%s%s :: %s%s' % ('integer' if for_c else 'logical', intent, n, arr)
        return 'integer%s :: %s%s' % (intent, n, arr)
    if base == 'double':
        return 'double precision%s :: %s%s' % (intent, n, arr)
    raise Skip('type %s' % base)


def types_used(e, large):
    out = set()
    for p in e.params:
        b = ctype_of(p, large)
        if b in HANDLE_TYPES or b == 'MPI_Status':
            out.add(b)
        if b in KINDS:
            out.add(KINDS[b])
        if e.name in INTERFACE_ONLY and p.kind == 'callback':
            out.add(b)
        if e.name in INTERFACE_ONLY and b == 'void' and p.name in ADDRESS_VALUES:
            out.add('MPI_ADDRESS_KIND')
    return sorted(out)


def use_lines(used, sp, indent):
    """The USE statements that give an interface body the names in used."""
    types = [u for u in used if not u.endswith(('_KIND', '_function'))]
    kinds = [u for u in used if u.endswith('_KIND')]
    procs = [u for u in used if u.endswith('_function')]
    lines = []
    if types:
        lines += wrap('%suse :: mpi_f08_types, only : %s' % (sp, ', '.join(types)), indent)
    if procs:
        lines += wrap('%suse :: mpi_f08_callbacks, only : %s' % (sp, ', '.join(procs)), indent)
    if kinds:
        lines += wrap('%suse :: mpi_f08_compile_constants, only : %s' % (sp, ', '.join(kinds)), indent)
    return lines


# Large-count forms with their own table entry (more parameters than the int
# form): MPICH's MPI_X_f08_large, a specific of the generic MPI_X.
EXPLICIT_LARGE = {'MPI_Type_get_contents_c', 'MPI_Type_get_envelope_c'}


def fname(e, large, ts):
    if e.name in EXPLICIT_LARGE:
        return '%s_f08%s_large' % (e.name[:-2], 'ts' if ts else '')
    return '%s_f08%s%s' % (e.name, 'ts' if ts else '', '_large' if large else '')


def wrap(line, indent):
    """Split a long Fortran line with & continuations (free form, 132 columns)."""
    out, cur = [], line
    while len(cur) > 100:
        cut = cur.rfind(', ', 0, 100)
        if cut < 0:
            break
        out.append(cur[:cut + 1] + ' &')
        cur = ' ' * (indent + 4) + cur[cut + 2:]
    out.append(cur)
    return out


def interface_body(e, large, ts, indent):
    sp = ' ' * indent
    names = [p.name for p in e.params] + ['ierror']
    lines = wrap('%ssubroutine %s(%s)' % (sp, fname(e, large, ts), ', '.join(names)), indent)
    used = types_used(e, large)
    lines += use_lines(used, sp + '    ', indent + 4)
    lines.append('%s    implicit none' % sp)
    for p in e.params:
        lines.append('%s    %s' % (sp, fortran_decl(e, p, large)))
    lines.append('%s    integer, optional, intent(out) :: ierror' % sp)
    return lines


# ------------------------------------------------------------------ C side
def c_nonchoice(e, large):
    """C body of MPI_X_f08[_large] (no choice buffer): the Fortran 77
    conversion (gen_f77.c_binding) with the large types, mpi_f08's special
    objects and an optional ierror."""
    return gen_f77.c_binding(e, fname(e, large, False).lower() + '_', large, 'canal_f08', True)


# Blocking calls that neither keep their buffer nor return before it is
# used: with a non-contiguous section and no datatype over it (a derived
# datatype, or a buffer without one), they may work on a contiguous copy.
BLOCKING = re.compile(r'^MPI_(Send|Recv|Mrecv|Sendrecv|Sendrecv_replace|Bsend|Ssend|Rsend|Bcast|'
                      r'Reduce|Allreduce|Reduce_local|Gatherv?|Scatterv?|Allgatherv?|Alltoall[vw]?|'
                      r'Reduce_scatter(_block)?|Scan|Exscan|Neighbor_all(gather|toall)[vw]?|'
                      r'Pack|Unpack|Pack_external|Unpack_external|'
                      r'File_(read|write)(_at)?(_all)?|File_(read|write)_(shared|ordered))$')

# Buffer -> (count, datatype) parameter names, for non-contiguous sections.
PAIRS = {'buf': ('count', 'datatype'), 'sendbuf': ('sendcount', 'sendtype'),
         'recvbuf': ('recvcount', 'recvtype'), 'origin_addr': ('origin_count', 'origin_datatype'),
         'result_addr': ('result_count', 'result_datatype'), 'inbuf': ('incount', 'datatype'),
         'buffer': ('count', 'datatype'), 'outbuf': ('outcount', 'datatype')}


def c_choice(e, large):
    """C side canal_f08ts_x[_large]() of a choice-buffer procedure."""
    fparams, pre, args, post = [], [], [], []
    names = {p.name for p in e.params}
    for p in e.params:
        base = ctype_of(p, large)
        n = p.name
        if is_choice(p):
            fparams.append('CFI_cdesc_t *%s' % n)
            cnt, dt = PAIRS.get(n, (None, None))
            copy = 'CANAL_F08_NO_COPY' if not BLOCKING.match(e.name) else \
                ('CANAL_F08_COPY_IN' if p.const else 'CANAL_F08_COPY_INOUT')
            pre.append('    canal_f08_tmp_t %s_x;' % n)
            if cnt in names and dt in names and not [q for q in e.params if q.name == cnt][0].is_ptr:
                pre.append('    MPI_Datatype %s_t = (MPI_Datatype)*%s;' % (n, dt))
                pre.append('    MPI_Count %s_n = *%s;' % (n, cnt))
                pre.append('    void *%s_p = canal_f08_buf(%s, &%s_n, &%s_t, %s, &%s_x, &rc);'
                           % (n, n, n, n, copy, n))
                args_map[n] = ('%s_p' % n, cnt, '%s_n' % n, dt, '%s_t' % n)
                post.append('    canal_f08_buf_done(%s, %s_t, (MPI_Datatype)*%s, &%s_x);' % (n, n, dt, n))
            else:
                pre.append('    void *%s_p = canal_f08_buf(%s, NULL, NULL, %s, &%s_x, &rc);'
                           % (n, n, copy, n))
                args_map[n] = ('%s_p' % n,)
                post.append('    canal_f08_buf_done(%s, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, &%s_x);'
                            % (n, n))
            continue
        if base == 'char':
            fparams.append('const char *%s' % n)
            continue
        fparams.append('%s *%s' % ('MPI_Fint' if base not in gen_f77.WIDE else base, n))
    # the call, with the converted buffers and their counts/types
    repl = {}
    for n, v in args_map.items():
        repl[n] = v[0]
        if len(v) > 1:
            repl[v[1]] = v[2]
            repl[v[3]] = v[4]
    for p in e.params:
        base = ctype_of(p, large)
        n, stars, arr, const = p.name, p.stars, p.arr, p.const
        ptr = bool(stars) or bool(arr)
        if n in repl:
            args.append(repl[n])
        elif base == 'char':
            args.append(n)
        elif base == 'MPI_Status':
            args.append('canal_f08_statuses(%s)' % n if arr or n.startswith('array_of_')
                        else 'canal_f08_status(%s)' % n)
        elif base == 'MPI_File':
            if ptr:
                raise Skip('file pointer with a buffer')
            args.append('MPI_File_f2c(*%s)' % n)
        elif base == 'int' or base in gen_f77.HANDLES:
            args.append('(%s)*%s' % (base, n) if not ptr else '(%s%s *)%s' % ('const ' if const else '', base, n))
        elif base in gen_f77.WIDE:
            args.append(n if ptr else '*%s' % n)
        else:
            raise Skip('type %s in a choice procedure' % base)
    sym = 'canal_f08ts_%s%s' % (e.name.lower(), '_large' if large else '')
    cname = e.name + ('_c' if large else '')
    out = ['CANAL_F77_API int %s(%s)' % (sym, ', '.join(fparams)), '{', '    int rc = MPI_SUCCESS;']
    out += pre
    out.append('    if (rc == MPI_SUCCESS)')
    out.append('        rc = %s(%s);' % (cname, ', '.join(args)))
    out += post
    out.append('    return rc;')
    out.append('}')
    return out


args_map = {}


def ts_fortran(e, large):
    """The Fortran external MPI_X_f08ts[_large] that calls canal_f08ts_x."""
    sym = 'canal_f08ts_%s%s' % (e.name.lower(), '_large' if large else '')
    lines = interface_body(e, large, True, 0)
    lines.append('    interface')
    cn = [p.name for p in e.params]
    lines += wrap('        function c(%s) bind(C, name="%s") result(r)' % (', '.join(cn), sym), 8)
    used = types_used(e, large)
    lines += use_lines(used, '            ', 12)
    strings = [p.name for p in e.params if ctype_of(p, large) == 'char']
    if strings:
        lines.append('            use, intrinsic :: iso_c_binding, only : c_char')
    lines.append('            implicit none')
    for p in e.params:
        lines.append('            %s' % fortran_decl(e, p, large, for_c=True))
    lines.append('            integer :: r')
    lines.append('        end function')
    lines.append('    end interface')
    call = []
    for p in e.params:
        if is_logical(e, p):
            if p.direction == 'in' and not p.arr:
                lines.insert(-0, '')
            call.append(p.name)
        else:
            call.append(p.name)
    for n in strings:
        call[call.index(n)] = 'trim(%s) // c_null_char' % n
    if strings:  # after the USE statements of the procedure
        at = max(i for i, l in enumerate(lines) if l.lstrip().startswith('use ') and i < 8) + 1 \
            if any(l.lstrip().startswith('use ') for l in lines[:8]) else 1
        lines.insert(at, '    use, intrinsic :: iso_c_binding, only : c_null_char')
    logi = [p for p in e.params if is_logical(e, p)]
    decls = []
    body = []
    for p in logi:
        if p.arr:
            raise Skip('logical array in a choice procedure')
        decls.append('    integer :: %s_i' % p.name)
        if p.direction in ('in', 'inout'):
            body.append('    %s_i = merge(1, 0, %s)' % (p.name, p.name))
        call[call.index(p.name)] = '%s_i' % p.name
    lines += decls
    lines.append('    integer :: r')
    lines += body
    lines += wrap('    r = c(%s)' % ', '.join(call), 4)
    for p in logi:
        if p.direction in ('out', 'inout'):
            lines.append('    %s = %s_i /= 0' % (p.name, p.name))
    lines.append('    if (present(ierror)) ierror = r')
    lines.append('end subroutine')
    return [l for l in lines if l != '']


HANDLE_NAMES = ['Comm', 'Datatype', 'Group', 'Request', 'Op', 'Info', 'Errhandler', 'Win', 'File',
                'Message', 'Session']
SIZEOF_KINDS = [('character', 'character'), ('logical', 'logical'),
                ('xint8', 'integer(int8)'), ('xint16', 'integer(int16)'),
                ('xint32', 'integer(int32)'), ('xint64', 'integer(int64)'),
                ('xreal32', 'real(real32)'), ('xreal64', 'real(real64)'),
                ('xreal128', 'real(real128)'), ('xcomplex32', 'complex(real32)'),
                ('xcomplex64', 'complex(real64)'), ('xcomplex128', 'complex(real128)')]


def handles_spec():
    """Declarations of module mpi_f08_types for the handle operators,
    f2c/c2f functions and MPI_Sizeof (names as MPICH's)."""
    out = ['! Generated by bindings/fortran/gen_f08.py -- do not edit.']
    for op, sym in (('eq', '=='), ('neq', '/=')):
        out.append('interface operator(%s)' % sym)
        for h in HANDLE_NAMES:
            out.append('    module procedure MPI_%s_%s, MPI_%s_f08_%s_f, MPI_%s_f_%s_f08'
                       % (h, op, h, op, h, op))
        out.append('end interface')
        for h in HANDLE_NAMES:
            out.append('private :: MPI_%s_%s, MPI_%s_f08_%s_f, MPI_%s_f_%s_f08' % (h, op, h, op, h, op))
    out.append('interface MPI_Sizeof')
    for k, _ in SIZEOF_KINDS:
        out.append('    module procedure MPI_Sizeof_%s' % k)
    out.append('end interface')
    for k, _ in SIZEOF_KINDS:
        out.append('private :: MPI_Sizeof_%s' % k)
    return out


def handles_procs():
    out = ['! Generated by bindings/fortran/gen_f08.py -- do not edit.']
    for op, sym in (('eq', '=='), ('neq', '/=')):
        for h in HANDLE_NAMES:
            out += ['elemental function MPI_%s_%s(x, y) result(res)' % (h, op),
                    '    type(MPI_%s), intent(in) :: x, y' % h, '    logical :: res',
                    '    res = x%%MPI_VAL %s y%%MPI_VAL' % sym, 'end function']
            for a, b in (('f08', 'f'), ('f', 'f08')):
                out += ['elemental function MPI_%s_%s_%s_%s(%s, %s) result(res)' % (h, a, op, b, a, b),
                        '    type(MPI_%s), intent(in) :: f08' % h, '    integer, intent(in) :: f',
                        '    logical :: res', '    res = f08%%MPI_VAL %s f' % sym, 'end function']
    for h in HANDLE_NAMES:
        if h == 'File':
            continue
        out += ['function MPI_%s_f2c(x) result(res)' % h,
                '    use :: mpi_c_interface_types, only : c_%s' % h,
                '    integer, value :: x', '    integer(c_%s) :: res' % h, '    res = x', 'end function',
                'function MPI_%s_c2f(x) result(res)' % h,
                '    use :: mpi_c_interface_types, only : c_%s' % h,
                '    integer(c_%s), value :: x' % h, '    integer :: res', '    res = x', 'end function']
    for k, t in SIZEOF_KINDS:
        out.append('subroutine MPI_Sizeof_%s(x, size, ierror)' % k)
        if k.startswith('x'):
            out.append('    use, intrinsic :: iso_fortran_env, only : %s' % t[t.index('(') + 1:-1])
        out += ['    %s, dimension(..) :: x' % t, '    integer, intent(out) :: size',
                '    integer, optional, intent(out) :: ierror', '    size = storage_size(x) / 8',
                '    if (present(ierror)) ierror = 0', 'end subroutine']
    return out


# ------------------------------------------------------------------ callbacks
# Objects with attribute keyvals: (X of MPI_X_copy_attr_function, handle type,
# the copy procedure's object argument, the delete procedure's) and objects
# with error handlers: (X of MPI_X_errhandler_function, handle type, argument).
# MPI 4.0 section 19.2 names the dummy arguments (keywords are part of the API).
ATTR_OBJECTS = [('Comm', 'MPI_Comm', 'oldcomm', 'comm'),
                ('Win', 'MPI_Win', 'oldwin', 'win'),
                ('Type', 'MPI_Datatype', 'oldtype', 'datatype')]
ERRH_OBJECTS = [('Comm', 'MPI_Comm', 'comm'), ('Win', 'MPI_Win', 'win'),
                ('Session', 'MPI_Session', 'session'), ('File', 'MPI_File', 'file')]


def attr_procs(x, htype, old, obj, sp, body=None):
    """The copy and delete procedures of object kind x: abstract interfaces
    (body None) or, for each entry of body (name suffix, copy statements),
    the predefined MPI_X_DUP_FN/NULL_COPY_FN and MPI_X_NULL_DELETE_FN."""
    kv = '%s_keyval' % x.lower()
    copy_args = '%s, %s, extra_state, attribute_val_in, attribute_val_out, flag, ierror' % (old, kv)
    del_args = '%s, %s, attribute_val, extra_state, ierror' % (obj, kv)
    copy_decl = ['type(%s) :: %s' % (htype, old), 'integer :: %s, ierror' % kv,
                 'integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out',
                 'logical :: flag']
    del_decl = ['type(%s) :: %s' % (htype, obj), 'integer :: %s, ierror' % kv,
                'integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state']
    if body is None:
        procs = [('MPI_%s_copy_attr_function' % x, copy_args, copy_decl, None),
                 ('MPI_%s_delete_attr_function' % x, del_args, del_decl, None)]
    else:
        procs = [('MPI_%s_%s' % (x.upper(), suffix), del_args if 'DELETE' in suffix else copy_args,
                  del_decl if 'DELETE' in suffix else copy_decl, stmts) for suffix, stmts in body]
    lines = []
    for name, args, decl, stmts in procs:
        lines += wrap('%ssubroutine %s(%s)' % (sp, name, args), len(sp))
        if stmts is None:
            lines += ['%s    import :: %s, MPI_ADDRESS_KIND' % (sp, htype), '%s    implicit none' % sp]
        lines += ['%s    %s' % (sp, d) for d in decl]
        lines += ['%s    %s' % (sp, st) for st in (stmts or [])]
        lines.append('%send subroutine' % sp)
    return lines


def callbacks():
    """mpi_f08_callbacks_gen.f90 (abstract interfaces, inside the abstract
    interface block of mpi_f08_callbacks.f90) and mpi_f08_callbacks_fns.f90
    (the predefined procedures, after its CONTAINS)."""
    itf = ['! Generated by bindings/fortran/gen_f08.py -- do not edit. Included by',
           '! mpi_f08_callbacks.f90: the interfaces of the attribute copy/delete and',
           '! error-handler procedures of each object kind.']
    fns = ['! Generated by bindings/fortran/gen_f08.py -- do not edit. Included by',
           '! mpi_f08_callbacks.f90: the predefined copy/delete procedures.']
    predefined = [('DUP_FN', ['flag = .true.', 'attribute_val_out = attribute_val_in',
                              'ierror = MPI_SUCCESS']),
                  ('NULL_COPY_FN', ['flag = .false.', 'ierror = MPI_SUCCESS']),
                  ('NULL_DELETE_FN', ['ierror = MPI_SUCCESS'])]
    for x, htype, old, obj in ATTR_OBJECTS:
        itf += attr_procs(x, htype, old, obj, ' ' * 8)
        fns += attr_procs(x, htype, old, obj, ' ' * 4, predefined)
    for x, htype, arg in ERRH_OBJECTS:
        itf += ['        subroutine MPI_%s_errhandler_function(%s, error_code)' % (x, arg),
                '            import :: %s' % htype, '            implicit none',
                '            type(%s) :: %s' % (htype, arg), '            integer :: error_code',
                '        end subroutine']
    return itf, fns


# The specifics of use mpi's MPI_SIZEOF (module MPI_SIZEOFS, MPICH's names):
# (suffix, type, bytes); each has a scalar and an array (suffix V) form.
SIZEOFS = [('I', 'INTEGER', 4), ('R', 'REAL', 4), ('L', 'LOGICAL', 4), ('CH', 'CHARACTER', 1),
           ('CX', 'COMPLEX', 8), ('D', 'DOUBLE PRECISION', 8), ('I1', 'INTEGER*1', 1),
           ('I2', 'INTEGER*2', 2), ('I8', 'INTEGER*8', 8)]


def sizeofs():
    """mpi_sizeofs.f90: the body of module MPI_SIZEOFS (included by mpi_mod.f90)."""
    lines = ['! Generated by bindings/fortran/gen_f08.py -- do not edit. Included by',
             '! mpi_mod.f90: the body of module MPI_SIZEOFS.',
             '       PUBLIC :: MPI_SIZEOF', '       INTERFACE MPI_SIZEOF']
    lines += ['          MODULE PROCEDURE MPI_SIZEOF_%s, MPI_SIZEOF_%sV' % (x, x) for x, _, _ in SIZEOFS]
    lines += ['       END INTERFACE', '       CONTAINS']
    for x, ftype, size in SIZEOFS:
        for suffix, dim in (('', ''), ('V', '(*)')):
            name = 'MPI_SIZEOF_%s%s' % (x, suffix)
            lines += ['       SUBROUTINE %s(X, SIZE, IERROR)' % name, '       %s X%s' % (ftype, dim),
                      '       INTEGER SIZE, IERROR', '       SIZE = %d' % size, '       IERROR = 0',
                      '       END SUBROUTINE %s' % name]
    return lines


def pmpi_names(text):
    """mpi_f08 interface text -> pmpi_f08's: generic PMPI_X, specifics PMPIR_X_f08..."""
    text = re.sub(r'(?m)^(\s*(?:end )?interface )MPI(X?)_', r'\1PMPI\2_', text)
    return re.sub(r'(?m)^(\s*(?:subroutine|function) )MPI(X?)_(\w+_f08)', r'\1PMPI\2R_\3', text)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    chapters, entries = gen.read_table(argv[1])
    # the Canal extensions of mpi_ext.h (ext-canal.api) are C only
    entries = [e for e in entries if gen.HEADERS[e.file] == 'mpi.h']
    out = argv[2]
    c = ['/*', ' * Generated by bindings/fortran/gen_f08.py from the API table -- do not edit.',
         ' * The mpi_f08 procedures written in C (see gen_f08.py).', ' */',
         '#include <stdlib.h>', '', '#include "bindings/fortran/f08ts.h"', '']
    ts = ['! Generated by bindings/fortran/gen_f08.py from the API table -- do not edit.',
          '! The choice-buffer procedures of mpi_f08 (see gen_f08.py).', '']
    itf = ['! Generated by bindings/fortran/gen_f08.py from the API table -- do not edit.',
           '! The generic interfaces of module mpi_f08 (included by mpi_f08.f90).', '']
    left = []
    n = 0
    for e in entries:
        if e.name in INTERFACE_ONLY:
            itf.append('interface %s' % e.name)
            itf += interface_body(e, False, False, 8) + ['        end subroutine']
            itf += ['end interface %s' % e.name, '']
            continue
        if (not gen_f77.has_binding(e.name) and e.name not in EXPLICIT_LARGE) or e.name in SKIP \
                or e.stub or e.returns != 'int':
            continue
        choice = any(is_choice(p) for p in e.params)
        # A large form is a separate specific only when it differs to Fortran:
        # MPI_Aint and MPI_Count are both kind 8, so MPI_Type_get_extent_c
        # would be ambiguous with MPI_Type_get_extent (MPI 4.0 19.2 has one).
        distinct = e.large and any(p.differs and p.base == 'int' for p in e.params)
        forms = [False, True] if distinct else [False]
        try:
            pieces_c, pieces_ts, specifics = [], [], []
            for large in forms:
                specifics.append(interface_body(e, large, choice, 8) + ['        end subroutine'])
                if choice:
                    args_map.clear()
                    pieces_c += c_choice(e, large) + ['']
                    pieces_ts += ts_fortran(e, large) + ['']
                else:
                    pieces_c += c_nonchoice(e, large) + ['']
        except (Skip, gen_f77.Unsupported) as why:
            left.append('%s (%s)' % (e.name, why))
            continue
        n += 1
        c += pieces_c
        ts += pieces_ts
        generic = e.name[:-2] if e.name in EXPLICIT_LARGE else e.name
        itf.append('interface %s' % generic)
        for s in specifics:
            itf += s
        itf.append('end interface %s' % generic)
        itf.append('')
    c.append('/* %d functions in mpi_f08; left out: */' % n)
    c += ['/*   %s */' % l for l in left]
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_c.c'), '\n'.join(c) + '\n')
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_ts.f90'), '\n'.join(ts) + '\n')
    itf_text = '\n'.join(itf) + '\n'
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_interfaces.f90'), itf_text)
    gen_f77.write_if_changed(os.path.join(out, 'pmpi_f08_interfaces.f90'), pmpi_names(itf_text))
    special = open(os.path.join(argv[1], 'bindings', 'fortran', 'mpi_f08_special.f90')).read()
    gen_f77.write_if_changed(os.path.join(out, 'pmpi_f08_special.f90'), pmpi_names(special))
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_handles.f90'), '\n'.join(handles_spec()) + '\n')
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_handles_procs.f90'),
                             '\n'.join(handles_procs()) + '\n')
    gen_f77.write_if_changed(os.path.join(out, 'mpi_sizeofs.f90'), '\n'.join(sizeofs()) + '\n')
    cb_itf, cb_fns = callbacks()
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_callbacks_gen.f90'), '\n'.join(cb_itf) + '\n')
    gen_f77.write_if_changed(os.path.join(out, 'mpi_f08_callbacks_fns.f90'), '\n'.join(cb_fns) + '\n')
    # every specific procedure of mpi_f08 (generated, and f08_special.c's)
    csrc = open(os.path.join(argv[1], 'bindings', 'fortran', 'f08_special.c')).read()
    syms = set(re.findall(r'(?m)^\s*(?:subroutine|function) (MPIX?_\w+_f08\w*)\(', itf_text + special))
    syms = sorted({x.lower() + '_' for x in syms} |
                  set(re.findall(r'CANAL_F77_API \w+ (mpix?_\w+_f08\w*_)\(', csrc)))
    ld = ['/* Generated by bindings/fortran/gen_f08.py -- do not edit. The PMPI names of the',
          '   mpi_f08 procedures (module pmpi_f08), aliases of the MPI ones. */']
    ld += ['%s = %s;' % (re.sub(r'^mpi(x?)_', r'pmpi\1r_', x), x) for x in syms]
    gen_f77.write_if_changed(os.path.join(out, 'pmpi_f08.ld'), '\n'.join(ld) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
