#!/usr/bin/env python3
"""gen_abi.py -- the MPI 5.0 standard ABI binding, generated from the API table.

The same table that gen.py makes libmpi.so.12's entry points from (mpi/api/*.api)
describes every function of the standard ABI: only the C types of handles,
statuses and callbacks differ, and the values of the constants (listed with
their standard values in mpi/abi/constants.txt). From the two this script writes:

  gen_abi.py header SRCDIR OUTDIR    OUTDIR/mpi/abi/mpi.h, the standard header
                                     (installed as PREFIX/include/abi/mpi.h)
  gen_abi.py entries SRCDIR OUTDIR   OUTDIR/mpi/abi/api_abi_<chapter>.c: the
                                     MPI_/PMPI_ entry points of libmpi_abi.so.1;
                                     OUTDIR/mpi/abi/abi_tables.c: the constant
                                     tables; OUTDIR/mpi/abi/libmpi_abi.sym: the
                                     exported symbols (nothing else of the core)
  gen_abi.py check SRCDIR STUBS_H MINE_H
                                     compares every constant and prototype of
                                     the MPI Forum's reference header STUBS_H
                                     with the generated header MINE_H (exit 1
                                     if any differs); used by test/abi/run.sh

An ABI entry point translates its arguments (mpi/abi/abi_conv.h: O(1) per
handle, a stack buffer for arrays) and runs the very body gen.py generates
for libmpi.so.12 (the same checks, the same implementation function of the
core, compiled once into the convenience library both libraries link), then
translates the results and the error code back. Conversion is chosen by the
C type of each parameter (handles, MPI_Status, callbacks) and, for integers
that carry constants (ranks, tags, thread levels, file modes ...), by the
parameter's name (ARG_CONV below). Python 3 standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

HANDLES = ('MPI_Comm', 'MPI_Datatype', 'MPI_Group', 'MPI_Op', 'MPI_Info', 'MPI_Errhandler',
           'MPI_Win', 'MPI_File', 'MPI_Session', 'MPI_Message', 'MPI_Request')
# MPI_T handles are pointers in both ABIs: a cast
T_HANDLES = ('MPI_T_enum', 'MPI_T_cvar_handle', 'MPI_T_pvar_handle', 'MPI_T_pvar_session',
             'MPI_T_event_registration', 'MPI_T_event_instance')
# table files whose functions are not part of the standard ABI
NOT_ABI_FILES = ('ext-canal', 'ext-mpich', '17-removed')
NOT_ABI_NAME = re.compile(r'_(f2c|c2f|c2f08|f082c|f2f08|f082f)$')

# Integer arguments that carry constants: parameter name -> conversion
# (in direction, out direction); a function may override (FUNC, name).
ARG_CONV = {
    'source': 'rank', 'dest': 'rank', 'root': 'rank', 'target_rank': 'rank',
    'rank_source': 'rank', 'rank_dest': 'rank',
    'tag': 'tag', 'sendtag': 'tag', 'recvtag': 'tag',
    'required': 'thread', 'provided': 'thread',
    'amode': 'amode', 'assert': 'assert', 'lock_type': 'lock', 'whence': 'whence',
    'split_type': 'split', 'order': 'order', 'typeclass': 'typeclass',
    'keyval': 'keyval', 'comm_keyval': 'keyval', 'type_keyval': 'keyval', 'win_keyval': 'keyval',
    'errorcode': 'code', 'errorclass': 'class', 'error': 'code',
    'result': 'compare', 'combiner': 'combiner',
    # the tool interface's value sets (MPI_T_cvar/pvar/event_get_info, MPI_T_pvar_get_index,
    # MPI_T_event_register_callback ..., MPI_T_source_get_info)
    'verbosity': 'verbosity', 'bind': 'bind', 'scope': 'scope', 'var_class': 'pvarclass',
    'cb_safety': 'cbsafety', 'ordering': 'sourceorder',
}
ARG_CONV_FUNC = {('MPI_Abort', 'errorcode'): None, ('MPI_Topo_test', 'status'): 'topo',
                 ('MPI_Type_create_darray', 'array_of_distribs'): 'distrib',
                 # a darg is a block size: only MPI_DISTRIBUTE_DFLT_DARG is a constant
                 ('MPI_Type_create_darray', 'array_of_dargs'): 'darg',
                 ('MPI_Group_translate_ranks', 'ranks1'): 'rank',
                 ('MPI_Group_translate_ranks', 'ranks2'): 'rank',
                 # the target of passive-target synchronization and of a shared
                 # window's query may be MPI_PROC_NULL (MPICH main's rma/rmanull,
                 # win_shared_query_null)
                 ('MPI_Win_lock', 'rank'): 'rank', ('MPI_Win_unlock', 'rank'): 'rank',
                 ('MPI_Win_flush', 'rank'): 'rank', ('MPI_Win_flush_local', 'rank'): 'rank',
                 ('MPI_Win_shared_query', 'rank'): 'rank',
                 ('MPI_Comm_spawn', 'array_of_errcodes'): 'code',
                 ('MPI_Comm_spawn_multiple', 'array_of_errcodes'): 'code'}
# typed enums of the tool interface: the conversion of the same name as an int
T_ENUM_CONV = {'MPI_T_cb_safety': 'cbsafety', 'MPI_T_source_order': 'sourceorder'}
# (the tables of mpi/abi/abi_conv.h of these enum types of constants.txt)
T_ENUM_GROUP = {'MPI_T_cb_safety': 'cbsafety', 'MPI_T_source_order': 'sourceorder'}
# int arrays whose entries the call writes in place (the same int in both
# ABIs) and whose length only the implementation knows: the length after the
# call, the C expression (mpi_abi_spawn_written: the processes the call tried)
ARRAY_OUT_IN_PLACE = {('MPI_Comm_spawn', 'array_of_errcodes'): 'mpi_abi_spawn_written()',
                      ('MPI_Comm_spawn_multiple', 'array_of_errcodes'): 'mpi_abi_spawn_written()'}
# keyvals that are created (out): the implementation's values pass unchanged
KEYVAL_OUT_PLAIN = True
# The length of array arguments (C expression over the ABI parameters).
ARRAY_LEN = {
    'array_of_requests': 'count', 'array_of_statuses': 'count',
    'array_of_types': 'count', 'array_of_info': 'count',
    'array_of_datatypes': 'max_datatypes',
    'array_of_distribs': 'ndims', 'array_of_dargs': 'ndims',
    'ranks1': 'n', 'ranks2': 'n',
}
ARRAY_LEN_FUNC = {
    ('MPI_Waitsome', 'array_of_requests'): 'incount', ('MPI_Waitsome', 'array_of_statuses'): 'incount',
    ('MPI_Testsome', 'array_of_requests'): 'incount', ('MPI_Testsome', 'array_of_statuses'): 'incount',
    ('MPI_Request_get_status_some', 'array_of_requests'): 'incount',
    ('MPI_Request_get_status_some', 'array_of_statuses'): 'incount',
    ('MPI_T_event_get_info', 'array_of_datatypes'): '(num_elements != NULL ? *num_elements : 0)',
}
for f in ('MPI_Alltoallw', 'MPI_Ialltoallw', 'MPI_Alltoallw_init'):
    ARRAY_LEN_FUNC[(f, 'sendtypes')] = 'mpi_abi_coll_ntypes(comm, 0, 1)'
    ARRAY_LEN_FUNC[(f, 'recvtypes')] = 'mpi_abi_coll_ntypes(comm, 0, 0)'
for f in ('MPI_Neighbor_alltoallw', 'MPI_Ineighbor_alltoallw', 'MPI_Neighbor_alltoallw_init'):
    ARRAY_LEN_FUNC[(f, 'sendtypes')] = 'mpi_abi_coll_ntypes(comm, 1, 1)'
    ARRAY_LEN_FUNC[(f, 'recvtypes')] = 'mpi_abi_coll_ntypes(comm, 1, 0)'
IN_PLACE_NAMES = ('sendbuf', 'recvbuf')
WEIGHT_NAMES = ('weights', 'sourceweights', 'destweights')
ATTACH_NAMES = {'MPI_Buffer_attach': 'buffer', 'MPI_Comm_attach_buffer': 'buffer',
                'MPI_Session_attach_buffer': 'buffer'}
DETACH_NAMES = {'MPI_Buffer_detach': 'buffer_addr', 'MPI_Comm_detach_buffer': 'buffer_addr',
                'MPI_Session_detach_buffer': 'buffer_addr'}
STACK = 32  # elements converted on the stack; more are malloc'ed
# Output handles the core writes when the operation completes, after the
# call returned (a local copy would be gone by then): the core writes the
# MPICH int into the low half of the caller's zeroed pointer, which is then
# the standard handle of a user object (abi_conv.h, mpi_abi_from_handle of a
# direct handle); after a failed call it is converted as any other.
LATE_OUT_HANDLES = (('MPI_Comm_idup', 'newcomm'), ('MPI_Comm_idup_with_info', 'newcomm'))
# The request-array path (doc/design.md, "The standard ABI"; MPI_Waitall and
# MPI_Testall are CORE_STD_ARRAYS): up to STACK entries are converted into a
# copy on the stack (measured faster than in place for small counts); more,
# where a copy would be malloc'ed, in the user's own memory: a standard request is pointer-sized, MPICH's an int, so
# the ints are packed into the array's first half and expanded back
# afterwards (mpi_abi_requests_in/out).
REQ_IN_PLACE = ('MPI_Startall',)
# Calls that change only the completed entries: a copy on the stack, and only
# the one index (any) or the outcount indices (some) converted back.
REQ_SPARSE = {'MPI_Waitany': 'any', 'MPI_Testany': 'any', 'MPI_Waitsome': 'some',
              'MPI_Testsome': 'some'}
# Status arrays the call writes in full or not at all (a failure of a request
# is MPI_ERR_IN_STATUS with every status written; a bad argument writes none):
# only the entries written (the C expression) are converted, nothing is zeroed
# before; up to STACK into a stack array, more written by the implementation
# with MPICH's 20-byte stride into the user's array of 32-byte standard
# statuses and expanded in place afterwards (mpi_abi_statuses_out).
STATUS_IN_PLACE = {
    'MPI_Waitsome': '(outcount != NULL && *outcount != MPI_UNDEFINED ? *outcount : 0)',
    'MPI_Testsome': '(outcount != NULL && *outcount != MPI_UNDEFINED ? *outcount : 0)',
}
# Calls the core completes on the standard ABI's own arrays (mpi/request.c,
# mpi_std_array_t): the body gen.py writes (the same checks) calls the
# implementation's standard-array variant with the caller's 8-byte requests
# and 32-byte statuses, which the core reads and writes in place; nothing is
# copied or converted here but the returned code. name: (MPICH impl, variant).
CORE_STD_ARRAYS = {'MPI_Waitall': ('mpi_waitall_impl', 'mpi_waitall_std_impl'),
                   'MPI_Testall': ('mpi_testall_impl', 'mpi_testall_std_impl')}
# Where the standard's prototype differs from MPICH 4.0.2's (whose partitioned
# init functions take an MPI_Count and have no _c form): the ABI declaration
# of the parameter, per form (int form, _c form), and the extra _c names.
ABI_DECL = {('MPI_Psend_init', 'count'): ('int count', 'MPI_Count count'),
            ('MPI_Precv_init', 'count'): ('int count', 'MPI_Count count'),
            ('MPI_Pready_list', 'array_of_partitions'): ('const int array_of_partitions[]',) * 2}
ABI_EXTRA_LARGE = ('MPI_Psend_init', 'MPI_Precv_init')


def forms(e):
    """(large, name) of each ABI function of entry e."""
    if e.large:
        return [(False, e.name), (True, e.name + '_c')]
    if e.name in ABI_EXTRA_LARGE:
        return [(False, e.name), ('extra', e.name + '_c')]
    return [(False, e.name)]


def abi_decl(e, p, large):
    """The parameter's declaration in the standard ABI (MPICH's names of types)."""
    d = ABI_DECL.get((e.name, p.name))
    if d is not None:
        return d[1 if large else 0]
    return p.large if large is True else p.small


def read_constants(src):
    """[(group, type or None, name, value)] from mpi/abi/constants.txt."""
    out = []
    for line in open(os.path.join(src, 'mpi', 'abi', 'constants.txt')):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        w = line.split()
        if w[0] in ('handle', 'enum'):
            out.append((w[0], w[1], w[2], ' '.join(w[3:])))
        else:
            out.append((w[0], None, w[1], ' '.join(w[2:])))
    return out


def mpich_names(src):
    """The identifiers mpi/mpi.h (MPICH's ABI) defines as macros or enumerators."""
    text = open(os.path.join(src, 'mpi', 'mpi.h')).read()
    names = set(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))
    for body in re.findall(r'enum\s*\w*\s*\{(.*?)\}', text, re.S):
        names.update(re.findall(r'\b(MPIX?_\w+)\s*=', body))
    return names


def abi_entries(src):
    chapters, entries = gen.read_table(src)
    out = []
    for e in entries:
        if e.file in NOT_ABI_FILES or e.name.startswith('QMPI_') or NOT_ABI_NAME.search(e.name):
            continue
        if any(p.name != '...' and 'MPI_Fint' in p.decl for p in e.params) or 'Fint' in e.returns:
            continue
        out.append(e)
    return chapters, out


# ------------------------------------------------------------------ header
HEADER_TOP = '''/*
 * mpi.h of the MPI 5.0 standard ABI (MPI 5.0 chapter 20), as Canal's
 * libmpi_abi.so.1 implements it. Generated by mpi/api/gen_abi.py from
 * mpi/abi/constants.txt (the standard's values) and the API table
 * (mpi/api/ *.api) -- do not edit. Installed as PREFIX/include/abi/mpi.h so
 * that it is never mixed with the MPICH-ABI mpi.h by accident: build with
 * mpicc_abi, which adds -IPREFIX/include/abi and links -lmpi_abi.
 */
#ifndef MPI_H_ABI
#define MPI_H_ABI

#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define MPI_VERSION 5
#define MPI_SUBVERSION 0
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0

typedef intptr_t MPI_Aint;
typedef int64_t MPI_Offset;
typedef int64_t MPI_Count;

/* 8 ints: the three public fields first, then the implementation's */
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;
'''

CALLBACKS = '''
/* Callbacks: they receive standard-ABI handles */
typedef void (MPI_User_function)(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void (MPI_User_function_c)(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
typedef int (MPI_Grequest_query_function)(void *extra_state, MPI_Status *status);
typedef int (MPI_Grequest_free_function)(void *extra_state);
typedef int (MPI_Grequest_cancel_function)(void *extra_state, int complete);
typedef int (MPI_Copy_function)(MPI_Comm comm, int keyval, void *extra_state, void *attribute_val_in,
                                void *attribute_val_out, int *flag);
typedef int (MPI_Delete_function)(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
typedef int (MPI_Comm_copy_attr_function)(MPI_Comm comm, int comm_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Comm_delete_attr_function)(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                            void *extra_state);
typedef int (MPI_Type_copy_attr_function)(MPI_Datatype datatype, int type_keyval, void *extra_state,
                                          void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Type_delete_attr_function)(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                            void *extra_state);
typedef int (MPI_Win_copy_attr_function)(MPI_Win win, int win_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int (MPI_Win_delete_attr_function)(MPI_Win win, int win_keyval, void *attribute_val,
                                           void *extra_state);
typedef int (MPI_Datarep_extent_function)(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state);
typedef int (MPI_Datarep_conversion_function)(void *userbuf, MPI_Datatype datatype, int count,
                                              void *filebuf, MPI_Offset position, void *extra_state);
typedef int (MPI_Datarep_conversion_function_c)(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                                                void *filebuf, MPI_Offset position, void *extra_state);
typedef void (MPI_Comm_errhandler_function)(MPI_Comm *comm, int *error_code, ...);
typedef void (MPI_File_errhandler_function)(MPI_File *file, int *error_code, ...);
typedef void (MPI_Win_errhandler_function)(MPI_Win *win, int *error_code, ...);
typedef void (MPI_Session_errhandler_function)(MPI_Session *session, int *error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef MPI_Session_errhandler_function MPI_Session_errhandler_fn;

/* The tool interface */
typedef struct MPI_ABI_T_enum *MPI_T_enum;
typedef struct MPI_ABI_T_cvar_handle *MPI_T_cvar_handle;
typedef struct MPI_ABI_T_pvar_handle *MPI_T_pvar_handle;
typedef struct MPI_ABI_T_pvar_session *MPI_T_pvar_session;
typedef struct MPI_ABI_T_event_registration *MPI_T_event_registration;
typedef struct MPI_ABI_T_event_instance *MPI_T_event_instance;
'''

T_CALLBACKS = '''
typedef void (MPI_T_event_cb_function)(MPI_T_event_instance event_instance,
                                       MPI_T_event_registration event_registration,
                                       MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_free_cb_function)(MPI_T_event_registration event_registration,
                                            MPI_T_cb_safety cb_safety, void *user_data);
typedef void (MPI_T_event_dropped_cb_function)(MPI_Count count,
                                               MPI_T_event_registration event_registration,
                                               int source_index, MPI_T_cb_safety cb_safety,
                                               void *user_data);
'''


def proto(e, large, prefix):
    name = e.name + ('_c' if large else '')
    ps = ', '.join((p.large if large else p.small) for p in e.params) or 'void'
    return '%s %s%s(%s);' % (e.returns, prefix, name[0:] if prefix == '' else name[0:], ps)


def cmd_header(src, out):
    consts = read_constants(src)
    chapters, entries = abi_entries(src)
    h = [HEADER_TOP]
    for t in HANDLES:
        h.append('\ntypedef struct MPI_ABI_%s *%s;' % (t[4:], t))
        for g, ty, n, v in consts:
            if g == 'handle' and ty == t:
                h.append('#define %-30s ((%s)%s)' % (n, t, v) if v.startswith('0x')
                         else '#define %-30s %s' % (n, v))
    for g, ty, n, v in consts:  # aliases of handles (MPI_LONG_LONG_INT)
        if g == 'define' and re.match(r'MPI_\w+$', v):
            h.append('#define %-30s %s' % (n, v))
    h.append(CALLBACKS)
    groups = []
    for g, ty, n, v in consts:
        if g in ('handle', 'enum') or (g == 'define' and re.match(r'MPI_\w+$', v)):
            continue
        if g == 'define':
            h.append('#define %-30s %s' % (n, v))
        elif not groups or groups[-1][0] != g:
            groups.append((g, [(n, v)]))
        else:
            groups[-1][1].append((n, v))
    for g, members in groups:
        h.append('\n/* %s */\nenum {' % g)
        h.append(',\n'.join('    %-34s = %s' % m for m in members))
        h.append('};')
    enums = {}
    for g, ty, n, v in consts:
        if g == 'enum':
            enums.setdefault(ty, []).append((n, v))
    for ty, members in enums.items():
        h.append('\ntypedef enum %s {' % ty)
        h.append(',\n'.join('    %-34s = %s' % m for m in members))
        h.append('} %s;' % ty)
    h.append(T_CALLBACKS)
    h.append('/* The functions (MPI_ and their PMPI_ profiling names) */')
    for prefix in ('', 'P'):
        for e in entries:
            for large, name in forms(e):
                ps = ', '.join(abi_decl(e, p, large) for p in e.params) or 'void'
                h.append('%s %s%s(%s);' % (e.returns, prefix, name, ps))
    h.append('\n#if defined(__cplusplus)\n}\n#endif\n\n#endif /* MPI_H_ABI */\n')
    os.makedirs(os.path.join(out, 'mpi', 'abi'), exist_ok=True)
    gen.write_if_changed(os.path.join(out, 'mpi', 'abi', 'mpi.h'), '\n'.join(h))


# ------------------------------------------------------------------ entries
def abi_type(t):
    """The C type of the ABI side as the generated code spells it (the
    MPICH-ABI mpi.h is the one included there)."""
    t = re.sub(r'\b(MPI_(?:Comm|Datatype|Group|Op|Info|Errhandler|Win|File|Session|Message|Request|Status))\b',
               lambda m: 'abi_' + m.group(1)[4:], t)
    return re.sub(r'\bMPI_(?!T_)(\w+_function(?:_c)?)\b', lambda m: 'abi_' + m.group(1), t)


def conv_of(e, p):
    key = (e.name, p.name)
    if key in ARG_CONV_FUNC:
        return ARG_CONV_FUNC[key]
    return ARG_CONV.get(p.name)


def array_len(e, p):
    key = (e.name, p.name)
    if key in ARRAY_LEN_FUNC:
        return ARRAY_LEN_FUNC[key]
    return ARRAY_LEN.get(p.name)


class Conv:
    def __init__(self):
        self.decls, self.pre, self.post, self.args = [], [], [], []
        self.cleanup = []


def param_conv(e, p, large, c):
    """Fill c with the ABI parameter declaration, the conversion before the
    call, the argument passed to the MPICH body, and the conversion after."""
    if p.name == '...':
        c.decls.append('...')
        return
    decl = abi_decl(e, p, large)
    large = large is True
    n = p.name
    if '(*' in p.decl:  # a function pointer written out: the MPI_T callbacks
        c.decls.append(decl)
        c.args.append(n)
        return
    base, stars, arr = p.base if not (large and p.differs) else p.lbase, p.stars, p.arr
    c.decls.append(abi_type(decl))
    if base in HANDLES:
        ty = base[4:].lower()
        if not stars and not arr:
            c.args.append('mpi_abi_to_%s(%s)' % (ty, n))
        elif stars == '*' and not arr and (e.name, n) in LATE_OUT_HANDLES:
            c.pre.append('    if (%s != NULL)\n        *%s = (abi_%s)0;' % (n, n, base[4:]))
            c.post.append('    if (%s != NULL && err != MPI_SUCCESS)\n        mpi_abi_late_handle_out((void **)%s);'
                          % (n, n))
            c.args.append('(%s *)(void *)%s' % (base, n))
        elif stars == '*' and not arr and base == 'MPI_Request' and p.direction == 'out' and not after_create(e, large):
            # the core writes the new request into the low half of the caller's
            # zeroed pointer: a user request (direct) is then already its
            # standard value; anything else is converted, and a failed call
            # that wrote nothing leaves the caller's value (mpi_abi_request_written)
            c.pre.append('    abi_Request o_%s = NULL;' % n)
            c.pre.append('    if (%s != NULL) {\n        o_%s = *%s;\n        *%s = (abi_Request)0;\n    }'
                         % (n, n, n, n))
            c.post.append('    if (%s != NULL)\n        mpi_abi_request_written(%s, o_%s);' % (n, n, n))
            c.args.append('(MPI_Request *)(void *)%s' % n)
        elif stars == '*' and not arr:
            c.pre.append('    %s l_%s = 0;' % (base, n))
            if p.direction == 'inout':
                c.pre.append('    if (%s != NULL)\n        l_%s = mpi_abi_to_%s(*%s);' % (n, n, ty, n))
                c.post.append('    if (%s != NULL)\n        *%s = mpi_abi_from_%s(l_%s);' % (n, n, ty, n))
            elif base == 'MPI_File':  # MPICH's MPI_FILE_NULL is 0: written or not, no telling
                c.post.append('    if (err == MPI_SUCCESS && %s != NULL)\n        *%s = mpi_abi_from_%s(l_%s);'
                              % (n, n, ty, n))
            else:  # also what a failed call wrote (MPI_COMM_NULL ...); 0 is no MPICH handle
                c.post.append('    if (%s != NULL && (err == MPI_SUCCESS || l_%s != 0))\n'
                              '        *%s = mpi_abi_from_%s(l_%s);' % (n, n, n, ty, n))
            c.args.append('%s != NULL ? &l_%s : NULL' % (n, n))
        elif arr and not stars:
            ln = array_len(e, p)
            if ln is None:
                raise SystemExit('gen_abi.py: %s: no length for array %s' % (e.name, n))
            if base == 'MPI_Request' and e.name in REQ_IN_PLACE:
                c.pre.append('    MPI_Request s_%s[%d];' % (n, STACK))
                c.pre.append('    int n_%s = %s != NULL ? (int)(%s) : 0;' % (n, n, ln))
                c.pre.append('    MPI_Request *l_%s = %s == NULL ? NULL : n_%s <= %d ? mpi_abi_requests_copy(s_%s, %s, n_%s)\n'
                             '                                              : mpi_abi_requests_in(%s, n_%s);'
                             % (n, n, n, STACK, n, n, n, n, n))
                c.post.append('    if (l_%s == s_%s)\n        for (int i = 0; i < n_%s; i++)\n'
                              '            %s[i] = mpi_abi_from_request(s_%s[i]);\n'
                              '    else if (%s != NULL)\n        mpi_abi_requests_out(%s, n_%s);'
                              % (n, n, n, n, n, n, n, n))
                c.args.append('l_%s' % n)
                return
            c.pre.append('    %s s_%s[%d], *l_%s = NULL;' % (base, n, STACK, n))
            c.pre.append('    int n_%s = %s != NULL ? (int)(%s) : 0;' % (n, n, ln))
            c.pre.append('    if (n_%s > 0 && (l_%s = n_%s <= %d ? s_%s : malloc(sizeof(*l_%s) * (size_t)n_%s)) == NULL)\n'
                         '        return mpi_abi_nomem(fn);' % (n, n, n, STACK, n, n, n))
            if p.direction in ('in', 'inout'):
                c.pre.append('    for (int i = 0; i < n_%s; i++)\n        l_%s[i] = mpi_abi_to_%s(%s[i]);'
                             % (n, n, ty, n))
            else:  # slots the call does not fill come back as the null handle
                c.pre.append('    for (int i = 0; i < n_%s; i++)\n        l_%s[i] = 0;' % (n, n))
            if base == 'MPI_Request' and REQ_SPARSE.get(e.name) == 'any':
                c.post.append('    if (%s != NULL && indx != NULL)\n'
                              '        mpi_abi_request_back(%s, l_%s, n_%s, *indx);' % (n, n, n, n))
            elif base == 'MPI_Request' and REQ_SPARSE.get(e.name) == 'some':
                c.post.append('    if (%s != NULL && outcount != NULL && array_of_indices != NULL)\n'
                              '        for (int k = 0; k < *outcount && k < n_%s; k++)\n'
                              '            mpi_abi_request_back(%s, l_%s, n_%s, array_of_indices[k]);'
                              % (n, n, n, n, n))
            elif p.direction in ('out', 'inout'):
                c.post.append('    for (int i = 0; i < n_%s; i++)\n        %s[i] = mpi_abi_from_%s(l_%s[i]);'
                              % (n, n, ty, n))
            c.cleanup.append('    if (l_%s != s_%s)\n        free(l_%s);' % (n, n, n))
            c.args.append('%s != NULL ? l_%s : NULL' % (n, n))
        else:
            raise SystemExit('gen_abi.py: %s: cannot convert %s' % (e.name, decl))
        return
    if base == 'MPI_Status':
        ln = array_len(e, p) if n.startswith('array_of') else None
        if ln is not None and e.name in STATUS_IN_PLACE:
            c.pre.append('    MPI_Status s_%s[%d];' % (n, STACK))
            c.pre.append('    MPI_Status *l_%s = %s == NULL ? MPI_STATUSES_IGNORE : (int)(%s) <= %d ? s_%s\n'
                         '                                             : (MPI_Status *)(void *)%s;'
                         % (n, n, ln, STACK, n, n))
            c.post.append('    if (%s != NULL && mpi_abi_statuses_written(err)) {\n'
                          '        int w_%s = %s;\n'
                          '        if (l_%s == s_%s)\n'
                          '            for (int i = 0; i < w_%s; i++)\n'
                          '                mpi_abi_status_out(&%s[i], &s_%s[i]);\n'
                          '        else\n'
                          '            mpi_abi_statuses_out(%s, w_%s);\n'
                          '    }' % (n, n, STATUS_IN_PLACE[e.name], n, n, n, n, n, n, n))
            c.args.append('l_%s' % n)
            return
        if ln is not None:
            c.pre.append('    MPI_Status s_%s[%d], *l_%s = MPI_STATUSES_IGNORE;' % (n, STACK, n))
            c.pre.append('    int n_%s = %s != NULL ? (int)(%s) : 0;' % (n, n, ln))
            c.pre.append('    if (n_%s > 0 && (l_%s = n_%s <= %d ? s_%s : calloc((size_t)n_%s, sizeof(*l_%s))) == NULL)\n'
                         '        return mpi_abi_nomem(fn);' % (n, n, n, STACK, n, n, n))
            c.pre.append('    for (int i = 0; i < n_%s && l_%s == s_%s; i++)\n'
                         '        l_%s[i] = (MPI_Status){0};' % (n, n, n, n))
            c.post.append('    for (int i = 0; i < n_%s; i++)\n        mpi_abi_status_out(&%s[i], &l_%s[i]);'
                          % (n, n, n))
            c.cleanup.append('    if (n_%s > %d)\n        free(l_%s);' % (n, STACK, n))
            c.args.append('l_%s' % n)
            return
        c.pre.append('    MPI_Status l_%s = {0};' % n)
        if p.direction == 'out':  # single-completion calls leave MPI_ERROR as it was
            c.pre.append('    if (%s != NULL)\n        l_%s.MPI_ERROR = mpi_abi_code_in(%s->MPI_ERROR);' % (n, n, n))
        if p.direction in ('in', 'inout'):
            c.pre.append('    if (%s != NULL)\n        mpi_abi_status_in(&l_%s, %s);' % (n, n, n))
        if p.direction in ('out', 'inout'):
            c.post.append('    if (%s != NULL)\n        mpi_abi_status_out(%s, &l_%s);' % (n, n, n))
        if p.direction == 'out':
            c.args.append('%s != NULL ? &l_%s : MPI_STATUS_IGNORE' % (n, n))
        else:
            c.args.append('%s != NULL ? &l_%s : NULL' % (n, n))
        return
    if base in T_ENUM_CONV:
        conv = T_ENUM_CONV[base]
        if not stars and not arr and p.direction == 'in':
            c.args.append('(%s)mpi_abi_%s_in((int)%s)' % (base, conv, n))
            return
        if stars == '*' and not arr and p.direction == 'out':
            c.pre.append('    %s l_%s = (%s)0;' % (base, n, base))
            c.post.append('    if (err == MPI_SUCCESS && %s != NULL)\n        *%s = (%s)mpi_abi_%s_out((int)l_%s);'
                          % (n, n, base, conv, n))
            c.args.append('%s != NULL ? &l_%s : NULL' % (n, n))
            return
        raise SystemExit('gen_abi.py: %s: cannot convert %s' % (e.name, decl))
    if base.startswith('MPI_T_'):  # the tool interface: the same types in both
        c.args.append(n)
        return
    if base.endswith('_function') or base.endswith('_function_c'):
        if 'copy' in base.lower() or base == 'MPI_Copy_function':
            c.args.append('(%s *)mpi_abi_copy_fn((void (*)(void))%s)' % (base, n))
        else:
            c.args.append('(%s *)(void (*)(void))%s' % (base, n))
        return
    if base in T_HANDLES:
        c.args.append(n)
        return
    # integers that carry constants
    conv = conv_of(e, p)
    if base == 'int' and conv is not None:
        if not stars and not arr and p.direction == 'in':
            c.args.append('mpi_abi_%s_in(%s)' % (conv, n))
            return
        if stars == '*' and not arr and p.direction in ('out', 'inout'):
            if conv == 'keyval' and p.direction == 'out':
                c.args.append(n)  # created keyvals pass unchanged
                return
            c.pre.append('    int l_%s = 0;' % n)
            if p.direction == 'inout':
                c.pre.append('    if (%s != NULL)\n        l_%s = mpi_abi_%s_in(*%s);' % (n, n, conv, n))
            c.post.append('    if (err == MPI_SUCCESS && %s != NULL)\n        *%s = mpi_abi_%s_out(l_%s);'
                          % (n, n, conv, n))
            c.args.append('%s != NULL ? &l_%s : NULL' % (n, n))
            return
        if arr and (e.name, n) in ARRAY_OUT_IN_PLACE and p.direction == 'out':
            c.post.append('    if (%s != NULL) {\n'
                          '        int w_%s = %s;\n'
                          '        for (int i = 0; i < w_%s; i++)\n'
                          '            %s[i] = mpi_abi_%s_out(%s[i]);\n'
                          '    }' % (n, n, ARRAY_OUT_IN_PLACE[(e.name, n)], n, n, conv, n))
            c.args.append(n)
            return
        if arr:
            ln = array_len(e, p)
            if ln is None:
                c.args.append(n)
                return
            c.pre.append('    int s_%s[%d], *l_%s = NULL;' % (n, STACK, n))
            c.pre.append('    int n_%s = %s != NULL ? (int)(%s) : 0;' % (n, n, ln))
            c.pre.append('    if (n_%s > 0 && (l_%s = n_%s <= %d ? s_%s : malloc(sizeof(int) * (size_t)n_%s)) == NULL)\n'
                         '        return mpi_abi_nomem(fn);' % (n, n, n, STACK, n, n))
            if p.direction in ('in', 'inout'):
                c.pre.append('    for (int i = 0; i < n_%s; i++)\n        l_%s[i] = mpi_abi_%s_in(%s[i]);'
                             % (n, n, conv, n))
            if p.direction in ('out', 'inout'):
                c.post.append('    for (int i = 0; i < n_%s; i++)\n        %s[i] = mpi_abi_%s_out(l_%s[i]);'
                              % (n, n, conv, n))
            c.cleanup.append('    if (l_%s != s_%s)\n        free(l_%s);' % (n, n, n))
            c.args.append('%s != NULL ? l_%s : NULL' % (n, n))
            return
    if n in IN_PLACE_NAMES and stars == '*':
        c.args.append('mpi_abi_buf(%s)' % n)
        return
    if n in WEIGHT_NAMES:
        c.args.append('(%sint *)mpi_abi_weights(%s)' % ('const ' if p.const else '', n))
        return
    if ATTACH_NAMES.get(e.name) == n:
        c.args.append('%s == (void *)2 ? MPI_BUFFER_AUTOMATIC : %s' % (n, n))
        return
    if (e.name, n) in ABI_DECL and decl.startswith('const') and not p.const and arr:
        c.args.append('(%s *)%s' % (base, n))  # MPICH 4.0.2's prototype lacks the const
        return
    if DETACH_NAMES.get(e.name) == n:
        c.post.append('    if (err == MPI_SUCCESS && %s != NULL && *(void **)%s == MPI_BUFFER_AUTOMATIC)\n'
                      '        *(void **)%s = (void *)2;' % (n, n, n))
    c.args.append(n)


# Calls whose results need more than their parameters' conversions.
FUNC_POST = {
    # the order, distributions and dargs of a subarray or darray as the standard's values
    'MPI_Type_get_contents': ['    if (err == MPI_SUCCESS && array_of_integers != NULL)\n'
                              '        mpi_abi_contents_out(mpi_abi_to_datatype(datatype), array_of_integers);'],
    'MPI_Type_get_contents_c': ['    if (err == MPI_SUCCESS && array_of_integers != NULL)\n'
                                '        mpi_abi_contents_out(mpi_abi_to_datatype(datatype), array_of_integers);'],
    # the values of MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL are the standard's
    # MPI_HOST and MPI_IO are ranks (MPI_PROC_NULL, MPI_ANY_SOURCE ...)
    'MPI_Comm_get_attr': ['    if (err == MPI_SUCCESS && flag != NULL && *flag && attribute_val != NULL)\n'
                          '        mpi_abi_comm_attr_out(comm_keyval, (int **)attribute_val);'],
    'MPI_Attr_get': ['    if (err == MPI_SUCCESS && flag != NULL && *flag && attribute_val != NULL)\n'
                     '        mpi_abi_comm_attr_out(keyval, (int **)attribute_val);'],
    'MPI_Win_get_attr': ['    if (err == MPI_SUCCESS && flag != NULL && *flag && attribute_val != NULL)\n'
                         '        mpi_abi_win_attr_out(win_keyval, (int **)attribute_val);'],
}


# what the library does after a call that creates an object with callbacks
def after_create(e, large):
    cb = [p for p in e.params if p.name != '...' and getattr(p, 'base', '').endswith(('_function', '_function_c'))
          and not p.base.startswith('MPI_T_')]
    if not cb:
        return []
    b = cb[0].base
    if b == 'MPI_User_function':
        return ['    if (err == MPI_SUCCESS)\n        mpi_op_set_proxy(l_op, mpi_abi_op_proxy);']
    if b == 'MPI_User_function_c':
        return ['    if (err == MPI_SUCCESS)\n        mpi_op_set_proxy_c(l_op, mpi_abi_op_proxy_c);']
    if b.endswith('errhandler_function'):
        return ['    if (err == MPI_SUCCESS)\n        mpi_errhandler_set_abi_proxy(l_errhandler, mpi_abi_errh_proxy);']
    if 'copy' in b.lower():
        kv = [p for p in e.params if p.name.endswith('keyval')][0].name
        return ['    if (err == MPI_SUCCESS && %s != NULL)\n'
                '        mpi_attr_keyval_set_proxy(*%s, mpi_abi_copy_proxy, mpi_abi_delete_proxy);' % (kv, kv)]
    if b.startswith('MPI_Grequest'):
        return ['    if (err == MPI_SUCCESS)\n        mpi_greq_set_lang(l_request, &mpi_abi_greq_lang);']
    if b.startswith('MPI_Datarep'):  # the conversion and extent functions get standard handles
        return ['    if (err == MPI_SUCCESS)\n        mpi_datarep_set_proxy(datarep, &mpi_abi_datarep_proxy);']
    raise SystemExit('gen_abi.py: %s: callback %s without a proxy' % (e.name, b))


def mpich_body(e, large):
    """gen.py's entry point of libmpi.so.12, as a static inline function
    (after its checked path, entry_X_checked, when it has a fast one)."""
    name = e.name + ('_c' if large else '')
    code = gen.entry_code(e, large)
    code = re.sub(r'^#pragma weak.*\n', '', code, flags=re.M)
    lines = code.split('\n')
    head = [k for k, l in enumerate(lines) if l.startswith('%s P%s(' % (e.returns, name))]
    if len(head) != 1:
        raise SystemExit('gen_abi.py: %s: no single entry point in gen.py\'s code' % name)
    lines[head[0]] = 'static inline __attribute__((always_inline)) ' + \
        lines[head[0]].replace(' P%s(' % name, ' mpich_%s(' % name, 1)
    return '\n'.join(lines)


def entry_core_std(e, large, name):
    """An entry point of CORE_STD_ARRAYS: gen.py's body, its arrays untyped."""
    impl, std = CORE_STD_ARRAYS[e.name]
    body = mpich_body(e, large)
    # (the signatures of the entry point and of its checked path)
    body = body.replace('MPI_Request array_of_requests[]', 'void *array_of_requests')
    body = body.replace('MPI_Status *array_of_statuses', 'void *array_of_statuses')
    call = re.search(r'return %s\((.*), fn\);' % impl, body)
    if 'void *array_of_requests' not in body or 'void *array_of_statuses' not in body or call is None:
        raise SystemExit('gen_abi.py: %s: unexpected body for the standard-array path' % e.name)
    body = body.replace(call.group(0), 'return %s(%s, &mpi_abi_std_array, fn);' % (std, call.group(1)))
    c = Conv()
    for p in e.params:
        c.decls.append(abi_type(abi_decl(e, p, False)))
    args = ', '.join(p.name for p in e.params)
    return '\n'.join([body,
                      'MPI_ABI_EXPORT int P%s(%s);' % (name, ', '.join(c.decls)),
                      'MPI_ABI_EXPORT int P%s(%s)' % (name, ', '.join(c.decls)),
                      '{',
                      '    return mpi_abi_code_out(mpich_%s(%s));' % (e.name, args),
                      '}',
                      '#pragma weak %s = P%s\n' % (name, name)])


def entry(e, large, name):
    if e.name in CORE_STD_ARRAYS and large is False:
        return entry_core_std(e, large, name)
    c = Conv()
    for p in e.params:
        param_conv(e, p, large, c)
    ret = e.returns
    aret = abi_type(ret)
    out = [mpich_body(e, large is True)] if large != 'extra' else []
    # (declared first: this file cannot include the standard header)
    out.append('MPI_ABI_EXPORT %s P%s(%s);' % (aret, name, ', '.join(c.decls) or 'void'))
    out.append('MPI_ABI_EXPORT %s P%s(%s)' % (aret, name, ', '.join(c.decls) or 'void'))
    out.append('{')
    if any(p.name == '...' for p in e.params):  # MPI_Pcontrol: the level only
        out.append('    return mpich_%s(%s);' % (e.name, ', '.join(a for a in c.args)))
        out.append('}')
        out.append('#pragma weak %s = P%s\n' % (name, name))
        return '\n'.join(out)
    post = c.post + after_create(e, large) + FUNC_POST.get(e.name, [])
    if e.value_return:
        call = 'mpich_%s(%s)' % (e.name + ('_c' if large is True else ''), ', '.join(c.args))
        if ret in HANDLES:
            out.append('    return mpi_abi_from_%s(%s);' % (ret[4:].lower(), call))
        else:
            out.append('    return %s;' % call)
        out.append('}')
        out.append('#pragma weak %s = P%s\n' % (name, name))
        return '\n'.join(out)
    if c.pre or post or c.cleanup:
        out.append('    static const char fn[] = "%s";' % name)
        out.append('    int err;')
        out.append('    (void)fn;')
        out += c.pre
        out.append('    err = mpich_%s(%s);' % (e.name + ('_c' if large is True else ''), ', '.join(c.args)))
        out += post
        out += c.cleanup
        out.append('    return mpi_abi_code_out(err);')
    else:
        out.append('    return mpi_abi_code_out(mpich_%s(%s));' % (e.name + ('_c' if large is True else ''), ', '.join(c.args)))
    out.append('}')
    out.append('#pragma weak %s = P%s\n' % (name, name))
    return '\n'.join(out)


ENTRY_TOP = '''/*
 * Generated by mpi/api/gen_abi.py from mpi/api/%s.api -- do not edit.
 *
 * The standard-ABI entry points of "%s" (libmpi_abi.so.1): each converts
 * its standard-ABI arguments (mpi/abi/abi_conv.h), runs the body that gen.py
 * generates for libmpi.so.12 (mpich_X: the same checks and implementation
 * function), converts the results and returns the standard's error code.
 */
#include <limits.h>
#include <stdlib.h>

/* MPICH's mpi.h declares these names with its own types: hide them */
%s
#include "mpiimpl.h"
#include "mpi/api_impl.h"
#include "mpi/abi/abi_conv.h"
%s
'''


def cmd_entries(src, out):
    chapters, entries = abi_entries(src)
    consts = read_constants(src)
    names = mpich_names(src)
    os.makedirs(os.path.join(out, 'mpi', 'abi'), exist_ok=True)
    syms = []
    for num, title, fname in chapters:
        es = [e for e in entries if e.file == fname]
        if not es:
            continue
        fnames = [n for e in es for _, n in forms(e)]
        text = [ENTRY_TOP % (fname, title,
                             '\n'.join('#define %s%s mpich_decl_%s%s' % (pre, n, pre, n)
                                       for n in fnames for pre in ('', 'P')),
                             '\n'.join('#undef %s%s' % (pre, n) for n in fnames for pre in ('', 'P')))]
        if gen.HEADERS[fname] != 'mpi.h':
            text.append('#include "%s"\n' % gen.HEADERS[fname])
        if fname in gen.INCLUDES:  # the shared implementations of impl=NAME(ARGS)
            text.append('#include "%s"\n' % gen.INCLUDES[fname])
        for e in es:
            for large, name in forms(e):
                text.append('\n' + entry(e, large, name))
                syms += [name, 'P' + name]
        gen.write_if_changed(os.path.join(out, 'mpi', 'abi', 'api_abi_%s.c' % fname.replace('-', '_')),
                             ''.join(text))
    gen.write_if_changed(os.path.join(out, 'mpi', 'abi', 'libmpi_abi.sym'), '\n'.join(syms) + '\n')
    # MPICH's tool interface (QMPI) is not part of the standard ABI: the core's
    # mpi/qmpi.c finds no function of the library's own to chain to
    gen.write_if_changed(os.path.join(out, 'mpi', 'abi', 'abi_qmpi.c'),
                         '/* Generated by mpi/api/gen_abi.py -- do not edit. No QMPI in the standard ABI. */\n'
                         '#include "mpiimpl.h"\n\nconst mpi_qmpi_fn_t mpi_qmpi_base[MPI_LAST_FUNC_T];\n')
    gen.write_if_changed(os.path.join(out, 'mpi', 'abi', 'abi_tables.c'), tables(consts, names))


def tables(consts, names):
    """The constant tables of mpi/abi/abi_conv.h: standard value <-> MPICH value
    of the constant of the same name."""
    t = ['/* Generated by mpi/api/gen_abi.py from mpi/abi/constants.txt -- do not edit.',
         ' * The standard ABI\'s constants and the MPICH-ABI constants of the same name. */',
         '#include <limits.h>', '', '#include "mpiimpl.h"', '#include "mpi/abi/abi_conv.h"', '']
    # handles: standard value -> MPICH handle
    t.append('const int mpi_abi_handle_in[MPI_ABI_HANDLE_LIMIT] = {')
    for g, ty, n, v in consts:
        if g == 'handle' and v.startswith('0x') and n in names and ty != 'MPI_File':
            t.append('    [%s] = %s,' % (v, n))
    t.append('};')
    t.append('/* MPICH handle -> standard value, for handles that are not user objects */')
    t.append('const struct mpi_abi_pair mpi_abi_handle_pairs[] = {')
    for g, ty, n, v in consts:
        if g == 'handle' and v.startswith('0x') and n in names and ty != 'MPI_File' \
                and n != 'MPI_MESSAGE_NULL':  # MPICH's is MPI_REQUEST_NULL's value
            t.append('    {%s, %s},' % (n, v))
    t.append('    {INT_MIN, INT_MIN}\n};')
    groups = {}
    for g, ty, n, v in consts:
        if g == 'enum' and ty in T_ENUM_GROUP:
            g = T_ENUM_GROUP[ty]
        if g in ('handle', 'define', 'int', 'enum'):
            continue
        groups.setdefault(g, []).append((n, v))
    for g, members in groups.items():
        t.append('const struct mpi_abi_pair mpi_abi_%s_pairs[] = {' % g)
        for n, v in members:
            if n in names:
                t.append('    {%s, %s},' % (n, v))
        t.append('    {INT_MIN, INT_MIN}\n};')
    return '\n'.join(t) + '\n'


# ------------------------------------------------------------------ check
def cmd_check(src, stubs_h, built_h):
    """Every constant and function of the reference header against ours."""
    def defs(path):
        text = re.sub(r'/\*.*?\*/', '', open(path).read(), flags=re.S)
        vals = {}
        for n, v in re.findall(r'^\s*#\s*define\s+(MPIX?_\w+)[ \t]+(.+?)\s*$', text, re.M):
            vals[n] = re.sub(r'\s+', '', v)
        for body in re.findall(r'enum\s*\w*\s*\{(.*?)\}', text, re.S):
            for n, v in re.findall(r'\b(MPIX?_\w+)\s*=\s*([^,}\n]+)', body):
                vals[n] = re.sub(r'\s+', '', v)
        fns = {}
        for m in re.finditer(r'^\s*([\w ]+?\**)\s*\b(P?MPI_\w+)\s*\(([^;]*?)\)\s*;', text, re.M):
            if 'typedef' in m.group(1):
                continue
            ps = [re.sub(r'\s*\b\w+\s*((?:\[\])*)$', r'\1', x.strip()) for x in m.group(3).split(',')]
            fns[m.group(2)] = gen.norm(m.group(1)) + '(' + ','.join(gen.norm(x) for x in ps) + ')'
        return vals, fns

    def num(v):
        m = re.match(r'^\(\((\w+\**)\)(-?(?:0x[0-9a-fA-F]+|\d+))\)$', v)
        if m:
            return m.group(1), int(m.group(2), 0)
        try:
            return None, int(v, 0)
        except ValueError:
            return None, v
    theirs, tfns = defs(stubs_h)
    mine, mfns = defs(built_h)
    bad = []
    for n, v in sorted(theirs.items()):
        if n in ('MPI_H_ABI',) or n.startswith('MPI_ABI_') and n not in ('MPI_ABI_VERSION', 'MPI_ABI_SUBVERSION'):
            continue
        if n not in mine:
            bad.append('%s: missing (reference: %s)' % (n, v))
        elif num(mine[n]) != num(v):
            bad.append('%s: %s here, %s in the reference' % (n, mine[n], v))
    for f, sig in sorted(tfns.items()):
        if f not in mfns:
            bad.append('%s: function missing' % f)
        elif mfns[f].replace('const', '') != sig.replace('const', ''):
            bad.append('%s: %s here, %s in the reference' % (f, mfns[f], sig))
    for b in bad:
        print(b)
    print('gen_abi.py check: %d constants, %d functions of the reference; %d differ' %
          (len(theirs), len(tfns), len(bad)))
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[1] == 'header':
        cmd_header(argv[2], argv[3])
        return 0
    if len(argv) == 4 and argv[1] == 'entries':
        cmd_entries(argv[2], argv[3])
        return 0
    if len(argv) == 5 and argv[1] == 'check':
        return cmd_check(argv[2], argv[3], argv[4])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
