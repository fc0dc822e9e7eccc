#!/usr/bin/env python3
"""gen.py -- Canal's MPI API table and the code generated from it.

The table (mpi/api/*.api, one file per chapter of the MPI standard, and
ext-canal.api for Canal's extensions of mpi_ext.h) lists every function of
mpi.h and mpi_ext.h: its parameters with their C declarations, each
parameter's direction and kind, whether it has a large-count `_c` form, and
how its entry point is made. The format is described in mpi/api/README.md.

From the table this script writes:

  gen.py entries SRCDIR OUTDIR   OUTDIR/mpi/api_<chapter>.c with the PMPI_
                                 entry points (MPI_ names are weak aliases)
                                 and OUTDIR/mpi/api_impl.h with the
                                 prototypes of the implementation functions
                                 they call. Files are rewritten only when
                                 their content changes.
  gen.py status SRCDIR           doc/status.md on stdout.
  gen.py check SRCDIR            compares the table with mpi/mpi.h and
                                 mpi/mpi_ext.h (a file's `header=`): every
                                 prototype has its entry, with the same
                                 parameter types (exit 1 and a list if not).
  gen.py internal SRCDIR         fails (exit 1, a list of the places) when
                                 code of mpi/, coll/, rma/, io/, adi/ or datatype/
                                 names an entry point of the table (PMPI_X
                                 or MPI_X) instead of its implementation.

Only the Python 3 standard library is used.
"""
import glob
import os
import re
import sys

# ------------------------------------------------------------------ table
CHECKED_KINDS = ('comm', 'count', 'datatype', 'type', 'buffer', 'rank', 'source', 'tag', 'rtag',
                 'request', 'out', 'group', 'op')
KNOWN_KINDS = CHECKED_KINDS + (
    'status', 'info', 'win', 'file', 'session', 'errhandler', 'string', 'array',
    'callback', 'value', 'pointer', 'root', 'handle', 'message', 'keyval', 'attr')
# Error objects other than a communicator that the entry point checks and
# resolves: kind -> (resolved C type, validity check, out-pointer check).
OBJ_KINDS = {'win': ('struct rma_win', 'mpi_check_win', 'mpi_check_win_ptr_arg'),
             'file': ('struct ADIOI_FileD', 'mpi_check_file', 'mpi_check_file_ptr_arg')}


class Param:
    def __init__(self, direction, kind, decl, where):
        self.direction = direction
        m = re.match(r'(\w+)(?:\(([^)]*)\))?$', kind)
        if not m or direction not in ('in', 'out', 'inout'):
            raise SystemExit('%s: bad parameter line (direction kind declaration)' % where)
        self.kind, self.kargs = m.group(1), [a.strip() for a in (m.group(2) or '').split(',') if a.strip()]
        if self.kind not in KNOWN_KINDS:
            raise SystemExit('%s: unknown kind %r (known: %s)' % (where, self.kind, ' '.join(KNOWN_KINDS)))
        self.decl = decl
        if decl == '...':
            self.name, self.small, self.large, self.differs = '...', '...', '...', False
            self.is_array = self.is_ptr = False
            return
        if '(*' in decl:  # function pointer: written out in full
            self.name = re.search(r'\(\s*\*+\s*(\w+)\s*\)', decl).group(1)
            self.small = self.large = decl
            self.differs = False
            self.is_array = False
            self.is_ptr = True
            return
        m = re.match(r'(const\s+)?([\w ]*?\w)(?:\|(\w+))?\s*(\**)\s*(\w+)\s*((?:\[\])?(?:\[3\])?)$', decl)
        if not m:
            raise SystemExit('%s: cannot read declaration %r' % (where, decl))
        const, base, lbase, stars, name, arr = m.groups()
        const = const or ''
        self.name = name
        self.small = '%s%s %s%s%s' % (const, base, stars, name, arr)
        self.large = '%s%s %s%s%s' % (const, lbase or base, stars, name, arr)
        self.differs = lbase is not None
        self.is_array = bool(arr)
        self.is_ptr = bool(stars) or bool(arr)
        self.base, self.lbase, self.const, self.stars, self.arr = base, lbase or base, const, stars, arr

    def ctype(self, large):
        """The C type alone (for comparisons with mpi.h)."""
        d = self.large if large else self.small
        if self.name == '...':
            return '...'
        return re.sub(r'\s+', ' ', re.sub(r'\b%s\b' % self.name, '', d, count=1)).strip()


class Entry:
    def __init__(self, name, flags, chapter, fname, where):
        self.name, self.chapter, self.file, self.where = name, chapter, fname, where
        self.params = []
        self.large = self.anytime = False
        self.hand = None
        self.stub = False
        self.collective = False
        self.returns = 'int'
        self.value_return = False  # returns= given: the result is a value, not an error code
        self.impl = None
        self.impl_args = None  # impl=NAME(ARGS): a shared implementation and its arguments
        for f in flags:
            if f == 'large':
                self.large = True
            elif f == 'anytime':
                self.anytime = True
            elif f == 'stub':
                self.stub = True
            elif f == 'collective':
                self.collective = True
            elif f.startswith('hand='):
                self.hand = f[5:]
            elif f.startswith('returns='):
                self.returns = f[8:].replace('*', ' *').replace('  ', ' ').strip()
                self.value_return = True
            elif f.startswith('impl='):
                self.impl = f[5:]
                m = re.match(r'^([A-Za-z_]\w*)\((.*)\)$', self.impl)
                if m:
                    self.impl = m.group(1)
                    self.impl_args = [a for a in m.group(2).split(',')]
                    if not all(self.impl_args):
                        raise SystemExit('%s: an empty argument in %r' % (where, f))
                elif '(' in self.impl:
                    raise SystemExit('%s: impl=NAME(ARG,...) without spaces: %r' % (where, f))
            else:
                raise SystemExit('%s: unknown flag %r' % (where, f))
        if self.impl is None:
            self.impl = name.lower() + '_impl'
        if self.impl_args is not None and (self.value_return or self.stub or self.hand):
            raise SystemExit('%s: impl=NAME(ARGS) is for a generated entry point that returns '
                             'an error code' % where)

    @property
    def names(self):
        return [self.name] + ([self.name + '_c'] if self.large else [])


# table file -> the header of mpi/ that declares its functions
HEADERS = {}
# table file -> the header (from the source tree's top) that declares the
# shared implementations its impl=NAME(ARGS) entries call (`include=`)
INCLUDES = {}
# table file -> the function of its include= header through which every
# return of its entry points passes (`result=NAME`): mpiimpl.h's mpi_result
# turns the marker of a raise the user's handler cleared back into
# MPI_SUCCESS
RESULTS = {}
# the headers whose every function must have an entry (gen.py check)
CHECKED_HEADERS = ('mpi.h', 'mpi_ext.h')


def read_table(src):
    chapters, entries = [], []
    for path in sorted(glob.glob(os.path.join(src, 'mpi', 'api', '*.api'))):
        fname = os.path.basename(path)[:-4]
        chapter, cur = None, None
        for no, raw in enumerate(open(path), 1):
            where = '%s:%d' % (os.path.relpath(path, src), no)
            line = raw.split('#', 1)[0].rstrip()
            if not line.strip():
                continue
            if line.startswith('= '):
                num, title = (line[2:].split(' ', 1) + [''])[:2]
                # `header=FILE` among the title's words: the header of mpi/
                # that declares the file's functions (default mpi.h)
                words = title.split()
                HEADERS[fname] = next((w[7:] for w in words if w.startswith('header=')), 'mpi.h')
                # `include=FILE`: the header of the shared implementations
                inc = next((w[8:] for w in words if w.startswith('include=')), None)
                if inc is not None:
                    INCLUDES[fname] = inc
                res = next((w[7:] for w in words if w.startswith('result=')), None)
                if res is not None:
                    # (NAME is mpiimpl.h's mpi_result, or a function of include=)
                    if inc is None and res != 'mpi_result':
                        raise SystemExit('%s: result=%s without include=' % (where, res))
                    RESULTS[fname] = res
                title = ' '.join(w for w in words
                                 if not w.startswith(('header=', 'include=', 'result=')))
                chapter = (num, title.strip(), fname)
                chapters.append(chapter)
            elif not line[0].isspace():
                if chapter is None:
                    raise SystemExit('%s: an entry before the "= N Title" line' % where)
                words = line.split()
                cur = Entry(words[0], words[1:], chapter, fname, where)
                entries.append(cur)
            else:
                if cur is None:
                    raise SystemExit('%s: a parameter outside an entry' % where)
                words = line.split(None, 2)
                if len(words) != 3:
                    raise SystemExit('%s: a parameter is "direction kind declaration"' % where)
                cur.params.append(Param(words[0], words[1], words[2], where))
    return chapters, entries


def read_header(src, header='mpi.h'):
    """name -> (return type, [parameter types]) from mpi/HEADER."""
    h = re.sub(r'/\*.*?\*/', '', open(os.path.join(src, 'mpi', header)).read(), flags=re.S)
    out = {}
    for m in re.finditer(r'^([A-Za-z_][\w ]*?\**)\s*\b((?:MPI|MPIX|QMPI)_\w+)\s*\(([^;]*?)\)\s*;', h, re.M):
        if m.group(1).startswith('typedef'):  # a function type (MPIX_Recv_alloc_function)
            continue
        ps = []
        text = ' '.join(m.group(3).split())
        depth, cur = 0, ''
        for ch in text:
            depth += ch == '('
            depth -= ch == ')'
            if ch == ',' and depth == 0:
                ps.append(cur.strip())
                cur = ''
            else:
                cur += ch
        if cur.strip() and cur.strip() != 'void':
            ps.append(cur.strip())
        out.setdefault(m.group(2), (m.group(1).strip(), ps))
    return out


def norm(t):
    t = re.sub(r'\s+', ' ', t.replace('*', ' * ').replace('[', ' [').replace(']', '] ')).strip()
    return t.replace('[ ]', '[]').replace('] [', '][')

# ------------------------------------------------------------------ entries


def c_params(e, large):
    return ', '.join(p.large if large else p.small for p in e.params) or 'void'


def arrays_differ(e):
    return any(p.differs and p.is_array for p in e.params)


def impl_params(e):
    """The implementation function's parameters: the large form's types,
    except that arrays whose element type differs between the forms are
    passed as void pointers with an `int large` flag; then `fn`."""
    out = []
    ep = errh_param(e)
    for p in e.params:
        if p.name == '...':  # variable arguments (MPI_Pcontrol) stay with the entry point
            continue
        if p is ep and p.kind == 'comm' and not e.value_return and not e.stub:
            out.append('mpi_comm_t *%s' % p.name)  # checked and resolved by the entry point
        elif p is ep and p.kind in OBJ_KINDS and not e.value_return and not e.stub:
            out.append('%s *%s' % (OBJ_KINDS[p.kind][0], p.name))  # likewise
        elif p in resolved_groups(e):
            out.append('struct mpi_group *%s' % p.name)  # likewise (mpi_check_group_arg)
        elif p.differs and p.is_array:
            out.append('%svoid *%s' % ('const ' if p.const else '', p.name))
        else:
            out.append(p.large if e.large else p.small)
    if e.value_return:
        return ', '.join(out) or 'void'
    if arrays_differ(e):
        out.append('int large')
    out.append('const char *fn')
    return ', '.join(out)


def resolved_groups(e):
    """The `in group` parameters that the entry point checks and resolves
    (as `struct mpi_group *`, mpi_check_group_arg) for the implementation:
    those of entries whose error object is a communicator or none; a window's
    (MPI_Win_post, MPI_Win_start) are the implementation's."""
    if e.value_return or e.stub or e.hand or e.collective:
        return []
    ep = errh_param(e)
    if ep is not None and ep.kind != 'comm':
        return []
    return [p for p in e.params if p.kind == 'group' and p.direction == 'in' and not p.is_ptr]


def errh_param(e):
    for p in e.params:
        if p.direction == 'in' and p.kind in ('comm', 'win', 'file', 'session'):
            return p
    return None


def index_of(e, p):
    return next(i for i, q in enumerate(e.params) if q is p)


def checks(e, large):
    """The checks of the entry point, in the order MPICH makes them: the
    object, the groups and an op first (MPICH's handles), then each
    parameter in order, a buffer right after its count and datatype (MPICH
    checks them together where the buffer is, before a rank or a tag).
    Returns the checks, the resolved object's variable, and the same checks
    in the order of the hot path's tests (the buffers last). Each is a pair: a C
    expression returning an MPI error code (raised through the error
    handler) or MPI_SUCCESS, and the fast test of the hot path, a condition
    without side effects (but the resolved object's assignment) that is
    true only when the check passes, or None when there is none (then the
    entry has no fast path). See entry_code."""
    ep = errh_param(e)
    # MPICH's first phase looks at the kind bits of a handle before the
    # communicator or window (mpi_check_*_kind): an `info(first)` (window
    # creation) and a window's `group` (MPI_Win_post, MPI_Win_start) that is
    # no handle of its kind at all (MPI_GROUP_NULL included) is their error
    # even when the communicator or window is bad too
    first = [p for p in e.params
             if p.direction == 'in' and not p.is_ptr and index_of(e, p) < index_of(e, ep)
             and ((p.kind == 'info' and 'first' in p.kargs)
                  or (p.kind == 'group' and ep.kind == 'win'))] if ep is not None else []
    pre = [('mpi_check_%s_kind(%s, %s, fn, "%s")' % (p.kind, p.name,
                                                      ep.name if ep.kind == 'win' else 'MPI_WIN_NULL',
                                                      p.name),
            ('(%s == MPI_INFO_NULL || mpi_handle_is_kind(%s, MPI_OBJ_INFO))' % (p.name, p.name)
             if p.kind == 'info' else 'mpi_handle_is_kind(%s, MPI_OBJ_GROUP)' % p.name))
           for p in first]
    if ep is not None and ep.kind in OBJ_KINDS:
        # a window or a file: its validity and the out-pointers here, through
        # its own handler; the rest is the implementation's
        otype, ocheck, pcheck = OBJ_KINDS[ep.kind]
        cobj = 'c_' + ep.name
        fast = ('(%s = mpi_win_fast(%s)) != NULL' % (cobj, ep.name)) if ep.kind == 'win' else None
        out = pre + [('%s(%s, fn, &%s)' % (ocheck, ep.name, cobj), fast)]
        for p in e.params:
            if p.kind in ('request', 'out') and p.is_ptr and p.direction in ('out', 'inout'):
                out.append(('%s(%s, %s, fn, "%s")' % (pcheck, cobj, p.name, p.name),
                            '%s != NULL' % p.name))
        return out, cobj, out
    if ep is not None and ep.kind != 'comm':
        return [], None, []  # session handlers: the implementation checks
    cobj = 'c_' + ep.name if ep is not None else 'NULL'
    out = list(pre)
    if ep is not None:
        out.append(('mpi_check_comm(%s, fn, &%s)' % (ep.name, cobj),
                    '(%s = mpi_comm_fast(%s)) != NULL' % (cobj, ep.name)))
    if e.collective:
        return out, (cobj if ep is not None else None), out  # the rest: the implementation
    # MPICH's first phase: the handles (communicator, groups, an op) before
    # any other argument, in parameter order
    for p in e.params:
        if p in resolved_groups(e):
            out.append(('mpi_check_group_arg(%s, %s, fn, "%s", &g_%s)' % (cobj, p.name, p.name, p.name),
                        None))
        elif p.kind == 'op' and p.direction == 'in' and not p.is_ptr and p.kargs:
            # op(datatype): a reduction's op against its datatype (MPICH's order)
            out.append(('mpi_check_op_type_arg(%s, %s, %s, fn, "%s")' %
                        (cobj, p.name, p.kargs[0], p.name), None))
        elif p.kind == 'op' and p.direction == 'in' and not p.is_ptr:
            out.append(('mpi_check_op_arg(%s, %s, fn, "%s")' % (cobj, p.name, p.name), None))
    byname = {p.name: p for p in e.params}
    index = {p.name: i for i, p in enumerate(e.params)}
    # a buffer is checked right after the later of its count and datatype
    # (MPICH checks count, datatype, buffer together, before the rank)
    bufs = {}
    for i, p in enumerate(e.params):
        if p.kind == 'buffer' and len(p.kargs) == 2:
            at = max([i] + [index[x] for x in p.kargs if x in index])
            bufs.setdefault(at, []).append(p)
    late = []
    for i, p in enumerate(e.params):
        k, a = p.kind, p.kargs
        n = p.name
        if k == 'count' and not p.is_ptr:
            out.append(('mpi_check_count_arg(%s, %s, fn, "%s")' % (cobj, n, n), '%s >= 0' % n))
        elif k == 'datatype' and p.direction == 'in' and not p.is_ptr:
            cnt = a[0] if a else 'MPI_CANAL_ANY_COUNT'
            # (&n: a datatype of a message of count 0 is replaced by MPI_BYTE
            # for the implementation, mpi/check.c)
            out.append(('mpi_check_datatype_arg(%s, &%s, %s, fn, "%s")' % (cobj, n, cnt, n),
                        'mpi_dt_is_predefined(%s)' % n))
        elif k == 'type' and p.direction == 'in' and not p.is_ptr:
            out.append(('mpi_check_type_arg(%s, %s, fn, "%s")' % (cobj, n, n),
                        'mpi_dt_is_predefined(%s)' % n))
        elif k == 'status' and p.direction == 'in' and p.is_ptr:
            out.append(('mpi_check_ptr_arg(%s, %s, fn, "%s")' % (cobj, n, n), '%s != NULL' % n))
        elif k in ('rank', 'source') and a and a[0] in byname and ep is not None and a[0] == ep.name:
            out.append(('mpi_check_rank_arg(%s, %s, %d, fn, "%s")' % (cobj, n, k == 'source', n),
                        '((unsigned)%s < (unsigned)%s->peer_size || %s == MPI_PROC_NULL%s)' % (
                            n, cobj, n, ' || %s == MPI_ANY_SOURCE' % n if k == 'source' else '')))
        elif k in ('tag', 'rtag') and not p.is_ptr:
            out.append(('mpi_check_tag_arg(%s, %s, %d, fn, "%s")' % (cobj, n, k == 'rtag', n),
                        '((unsigned)%s <= (unsigned)MPI_CANAL_TAG_UB%s)' % (
                            n, ' || %s == MPI_ANY_TAG' % n if k == 'rtag' else '')))
        elif k in ('request', 'out') and p.is_ptr and p.direction in ('out', 'inout') and e.anytime:
            out.append(('mpi_check_ptr_anytime(%s, fn, "%s")' % (n, n), '%s != NULL' % n))
        elif k in ('request', 'out') and p.is_ptr and p.direction in ('out', 'inout'):
            out.append(('mpi_check_ptr_arg(%s, %s, fn, "%s")' % (cobj, n, n), '%s != NULL' % n))
        for b in bufs.get(i, []):
            late.append(len(out))
            # (not NULL and not MPI_IN_PLACE, (void *)-1, in one test)
            out.append(('mpi_check_buf(%s, %s, %s, %s, fn)' % (cobj, b.name, b.kargs[0], b.kargs[1]),
                        '((uintptr_t)%s + 1 > 1 || %s <= 0)' % (b.name, b.kargs[0])))
    # the hot path tests the buffers last, as before (its order does not
    # change an error: a failed test only sends the call to the checked path)
    fast = [x for j, x in enumerate(out) if j not in late] + [out[j] for j in late]
    return out, (cobj if ep is not None else None), fast


def result_of(e, expr):
    """What the entry point returns for expr, an error code of its checks or
    of its implementation: NAME(expr) in a file with result=NAME."""
    return '%s(%s)' % (RESULTS[e.file], expr) if e.file in RESULTS else expr


def check_result_of(e, expr):
    """What the entry point returns for expr, the error code of a failed
    check: result_of, and in a file without result=NAME mpi_result(expr),
    since the shared checks that raise with mpi_err_fail (mpi_check_op_arg,
    mpi_check_group_arg) return MPI_CANAL_HANDLED for a code the user's
    handler cleared. Only the checked path pays for it (never a hot path)."""
    return result_of(e, expr) if e.file in RESULTS else 'mpi_result(%s)' % expr


def entry_code(e, large):
    name = e.name + ('_c' if large else '')
    pname = name if name.startswith('QMPI_') else 'P' + name
    params = [p.large if large else p.small for p in e.params]
    lines = ['%s %s(%s)' % (e.returns, pname, ', '.join(params) or 'void'), '{']
    if e.stub:
        for p in e.params:
            if p.name != '...':
                lines.append('    (void)%s;' % p.name)
        lines.append('    return mpi_err_unimplemented("%s");' % name)
        lines.append('}')
    elif e.value_return:
        lines.append('    return %s(%s);' % (e.impl, ', '.join(p.name for p in e.params)))
        lines.append('}')
    else:
        lines.append('    static const char fn[] = "%s";' % name)
        pairs, cobj, fast_pairs = checks(e, large)
        cks = [c for c, _ in pairs]
        fasts = [f for _, f in pairs]
        if cobj is not None:
            ep = errh_param(e)
            otype = OBJ_KINDS[ep.kind][0] if ep.kind in OBJ_KINDS else 'mpi_comm_t'
            lines.append('    %s *%s = NULL;' % (otype, cobj))
        groups = resolved_groups(e)
        for p in groups:
            lines.append('    struct mpi_group *g_%s = NULL;' % p.name)
        # out-pointers of the int form that the implementation fills in the large type
        temps = [p for p in e.params if e.large and not large and p.differs and not p.is_array
                 and p.stars]
        for p in temps:
            lines.append('    %s %s_l = 0;' % (p.lbase, p.name))
        if not e.anytime or cks or temps:  # an anytime entry without checks has no err
            lines.append('    int err;')
        lines.append('')
        if not e.anytime:
            # mpi_state inline: the call only when MPI is not running (the fast paths)
            lines.append('    if (__builtin_expect(mpi_state != MPI_STATE_INITIALIZED, 0) &&')
            lines.append('        (err = mpi_enter(fn)) != MPI_SUCCESS)')
            lines.append('        return err;')
        if cks:
            # each check stops the call when it failed, also when the user's
            # handler cleared its code (mpi_err_cleared moved): what the
            # handler left is returned, and nothing after the check runs
            lines.append('    unsigned cleared = mpi_err_cleared;')
            lines.append('')
            lines.append('    if ((err = ' + ') != MPI_SUCCESS || mpi_err_cleared != cleared ||\n        (err = '.join(cks) +
                         ') != MPI_SUCCESS || mpi_err_cleared != cleared)')
            lines.append('        return %s;' % check_result_of(e, 'err'))
        args = []
        for p in e.params:
            if p.name == '...':
                continue
            if p in temps:
                if p.direction == 'inout':
                    lines.append('    if (%s != NULL)' % p.name)
                    lines.append('        %s_l = *%s;' % (p.name, p.name))
                args.append('%s != NULL ? &%s_l : NULL' % (p.name, p.name))
            elif cobj is not None and p.name == cobj[2:]:
                args.append(cobj)
            elif p in groups:
                args.append('g_' + p.name)
            else:
                args.append(p.name)
        if arrays_differ(e):
            args.append('1' if large else '0')
        if e.impl_args is not None:
            # impl=NAME(ARGS): a parameter's name stands for what the
            # implementation function would get; anything else is a constant
            byname = {p.name: a for p, a in zip([p for p in e.params if p.name != '...'], args)}
            if arrays_differ(e):
                raise SystemExit('%s: impl=NAME(ARGS) with arrays of two types' % e.where)
            args = [byname.get(a, a) for a in e.impl_args]
        args.append('fn')
        call = '%s(%s)' % (e.impl, ', '.join(args))
        if temps:
            # the out-parameters only when the call succeeded (not when the
            # user's handler cleared its code: MPI_CANAL_HANDLED, mapped after)
            lines.append('    err = %s;' % call)
            lines.append('    if (err == MPI_SUCCESS) {')
            for p in temps:
                lines.append('        if (%s != NULL)' % p.name)
                if p.base == 'int':
                    lines.append('            *%s = %s_l > INT_MAX || %s_l < INT_MIN ? MPI_UNDEFINED : (int)%s_l;'
                                 % (p.name, p.name, p.name, p.name))
                else:
                    lines.append('            *%s = (%s)%s_l;' % (p.name, p.base, p.name))
            lines.append('    }')
            lines.append('    return %s;' % result_of(e, 'err'))
        else:
            lines.append('    return %s;' % result_of(e, call))
        lines.append('}')
        if (not e.anytime or cks) and not temps and None not in fasts and \
                all(p.name != '...' for p in e.params):
            lines = fast_entry(name, lines, params, [p.name for p in e.params], fast_pairs, cobj,
                               otype if cobj else None, result_of(e, call), e.anytime)
    qid = QMPI_IDS.get(name.upper() + '_T')
    if qid is not None and not e.stub and not e.value_return and e.returns == 'int' and \
            not name.startswith('QMPI_') and all(p.name != '...' for p in e.params):
        return qmpi_entry(e, name, pname, params, lines, qid)
    if not name.startswith('QMPI_'):
        lines.append('#pragma weak %s = %s' % (name, pname))
    return '\n'.join(lines) + '\n'


def fast_entry(name, lines, params, pnames, pairs, cobj, otype, call, anytime):
    """Split an entry point into a hot path and its checked path: the hot
    path tests that MPI is running and every argument's fast test in one
    condition and calls the implementation; anything else (MPI not running,
    an error, a case the fast tests do not decide: another communicator than
    a direct one, MPI_DATATYPE_NULL with count 0, a derived datatype)
    calls the complete entry point made above, renamed entry_X_checked
    (out of line and cold), which makes every check again from the start and
    raises the error as before. The hot path therefore saves no registers
    and raises nothing: errors, classes and messages are the checked
    path's. Returns the lines of both functions, the entry point's last
    (its signature, the old lines[0], unchanged)."""
    checked = 'entry_%s_checked' % name
    head = lines[0]
    plist = ', '.join(params) or 'void'
    slow = ['static __attribute__((noinline, cold)) int %s(%s)' % (checked, plist)] + lines[1:]
    conds = ([] if anytime else ['mpi_state == MPI_STATE_INITIALIZED']) + [f for _, f in pairs]
    names = ', '.join(pnames)
    fast = ['', head, '{', '    static const char fn[] = "%s";' % name]
    if cobj is not None:
        fast.append('    %s *%s = NULL;' % (otype, cobj))
    fast += ['',
             '    if (__builtin_expect(' + ' &&\n                         '.join(conds) + ', 1))',
             '        return %s;' % call,
             '    return %s(%s);' % (checked, names),
             '}']
    return slow + fast


# QMPI (MPICH's tool interface): name of the function identifier
# (MPI_SEND_T ...) -> its value, from the enum QMPI_Functions_enum of mpi.h.
QMPI_IDS = {}
# The calls that start the tools of the tool list before their own work (as
# MPICH does), so that tools intercept them too.
QMPI_PRESTART = ('MPI_Init', 'MPI_Init_thread')


def read_qmpi_ids(src):
    text = open(os.path.join(src, 'mpi', 'mpi.h')).read()
    m = re.search(r'enum QMPI_Functions_enum\s*\{(.*?)\};', text, re.S)
    if m:
        for k, v in re.findall(r'(\w+)\s*=\s*(\d+)', m.group(1)):
            QMPI_IDS[k] = int(v)


def qmpi_entry(e, name, pname, params, lines, qid):
    """The entry point of a function that QMPI tools can intercept: the
    checking body is entry_X; PMPI_X is an alias of it (profiling tools and
    tools' calls skip QMPI, as in MPICH); MPI_X (weak) goes through the
    registered tools when there are any, else straight to the body."""
    body = 'entry_%s' % name
    head = lines.index('%s %s(%s)' % (e.returns, pname, ', '.join(params) or 'void'))
    lines[head] = 'static inline __attribute__((always_inline)) int %s(%s)' % (
        body, ', '.join(params) or 'void')
    names = [p.name for p in e.params]
    plist = ', '.join(params) or 'void'
    out = ['\n'.join(lines),
           'int %s(%s) __attribute__((alias("%s_noinline")));' % (pname, plist, body),
           'int %s_noinline(%s);' % (body, plist),
           'int %s_noinline(%s)' % (body, plist),
           '{',
           '    return %s(%s);' % (body, ', '.join(names)),
           '}',
           '/* The last of the QMPI chain (QMPI_Get_function gives it to the last tool). */',
           'int mpi_qmpi_base_%s(QMPI_Context context, int tool_id%s)' % (
               name, ''.join(', ' + x for x in params)),
           '{',
           '    (void)context;',
           '    (void)tool_id;',
           '    return %s(%s);' % (body, ', '.join(names)),
           '}',
           '/* Out of line, so that MPI_X saves no registers when no tool runs. */',
           'static __attribute__((noinline, cold)) int qmpi_%s(void *ra%s)' % (
               name, ''.join(', ' + x for x in params)),
           '{',
           '    QMPI_Context context;',
           '    int tool_id;',
           '    int (*f)(QMPI_Context, int%s) = (int (*)(QMPI_Context, int%s))' % (
               ''.join(', ' + x for x in params), ''.join(', ' + x for x in params)),
           '        mpi_qmpi_first(%d, ra, &context, &tool_id);' % qid,
           '    if (f != NULL)',
           '        return f(context, tool_id%s);' % ''.join(', ' + n for n in names),
           '    return %s(%s);' % (body, ', '.join(names)),
           '}',
           'int %s(%s) __attribute__((weak));' % (name, plist),
           'int %s(%s)' % (name, plist),
           '{'] + (['    mpi_qmpi_prestart();'] if name in QMPI_PRESTART else []) + [
           '    if (__builtin_expect(mpi_qmpi_active, 0))',
           '        return qmpi_%s(__builtin_return_address(0)%s);' % (
               name, ''.join(', ' + n for n in names)),
           '    return %s(%s);' % (body, ', '.join(names)),
           '}']
    return '\n'.join(out) + '\n'


HEADER = '''/*
 * Generated by mpi/api/gen.py from mpi/api/%s.api -- do not edit.
 *
 * The MPI_/PMPI_ entry points of "%s": each checks that MPI is
 * initialized, checks its arguments by kind (mpi/check.c), and calls its
 * implementation function (declared in mpi/api_impl.h), which raises its
 * own errors through the error handler. MPI_X is a weak alias of PMPI_X, as
 * in MPICH, so that profiling libraries can interpose MPI_X.
 */
#include <limits.h>

#include "mpiimpl.h"
#include "mpi/api_impl.h"
'''


def write_if_changed(path, text):
    try:
        if open(path).read() == text:
            return
    except OSError:
        pass
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.replace(tmp, path)


def cmd_entries(src, out):
    chapters, entries = read_table(src)
    read_qmpi_ids(src)
    os.makedirs(os.path.join(out, 'mpi'), exist_ok=True)
    impl = ['/* Generated by mpi/api/gen.py from the .api files of mpi/api/ -- do not edit.',
            ' *',
            ' * The implementation functions that the generated entry points call.',
            ' * The library calls these, never its own PMPI_ entry points. */',
            '#ifndef CANAL_API_IMPL_H', '#define CANAL_API_IMPL_H', '', '#include "mpi.h"'] + \
           ['#include "%s"' % h for h in sorted(set(HEADERS.values()) - {'mpi.h'})] + ['',
            '/* the resolved error objects of the OBJ_KINDS (rma/rma_impl.h, io/io_impl.h) */',
            'struct rma_win;', 'struct ADIOI_FileD;',
            '/* the groups the entry points resolve (mpi_check_group_arg, mpi/group.c) */',
            'struct mpi_group;', '']
    for num, title, fname in chapters:
        text = [HEADER % (fname, title)]
        if HEADERS[fname] != 'mpi.h':
            text.append('#include "%s"\n' % HEADERS[fname])
        if fname in INCLUDES:
            text.append('#include "%s"\n' % INCLUDES[fname])
        for e in entries:
            if e.file != fname or e.hand:
                continue
            if e.impl_args is not None:
                if fname not in INCLUDES:
                    raise SystemExit('%s: impl=NAME(ARGS) in a file without include=' % e.where)
            elif not e.stub:
                impl.append('%s %s(%s);' % (e.returns, e.impl, impl_params(e)))
            text.append('\n' + entry_code(e, False))
            if e.large:
                text.append('\n' + entry_code(e, True))
        write_if_changed(os.path.join(out, 'mpi', 'api_%s.c' % fname.replace('-', '_')), ''.join(text))
    # QMPI: the library's own end of each chain, by function id
    base = ['/* Generated by mpi/api/gen.py -- do not edit. The library end of the QMPI chain',
            ' * of every function a QMPI tool can intercept (mpi/qmpi.c), by function id. */',
            '#include "mpiimpl.h"', '#include "mpi/api_impl.h"', '',
            'const mpi_qmpi_fn_t mpi_qmpi_base[MPI_LAST_FUNC_T] = {']
    for e in entries:
        if e.hand or e.stub or e.value_return or e.returns != 'int' or e.name.startswith('QMPI_') \
                or any(p.name == '...' for p in e.params):
            continue
        for large in ([False, True] if e.large else [False]):
            name = e.name + ('_c' if large else '')
            if name.upper() + '_T' not in QMPI_IDS:
                continue
            params = [p.large if large else p.small for p in e.params]
            impl.append('int mpi_qmpi_base_%s(QMPI_Context context, int tool_id%s);' % (
                name, ''.join(', ' + x for x in params)))
            base.append('    [%s_T] = (mpi_qmpi_fn_t)mpi_qmpi_base_%s,' % (name.upper(), name))
    base += ['};', '']
    write_if_changed(os.path.join(out, 'mpi', 'api_qmpi.c'), '\n'.join(base))
    impl += ['', '#endif', '']
    write_if_changed(os.path.join(out, 'mpi', 'api_impl.h'), '\n'.join(impl))


def cmd_check(src):
    chapters, entries = read_table(src)
    hdrs = {h: read_header(src, h) for h in sorted(set(HEADERS.values()) | set(CHECKED_HEADERS))}
    bad = []
    seen = set()
    for e in entries:
        header = HEADERS[e.file]
        hdr = hdrs[header]
        for large, name in ((False, e.name), (True, e.name + '_c')):
            if large and not e.large:
                continue
            if name in seen:
                bad.append('%s: %s is listed twice' % (e.where, name))
            seen.add(name)
            if name not in hdr:
                bad.append('%s: %s is not declared in mpi/%s' % (e.where, name, header))
                continue
            ret, hps = hdr[name]
            mine = [p.ctype(large) for p in e.params]
            theirs = []
            for hp in hps:
                if '(*' in hp or hp == '...':
                    theirs.append(hp if hp == '...' else None)
                    continue
                m = re.match(r'(.*?)(\w+)\s*((?:\[\])?(?:\[3\])?)$', hp)
                theirs.append(m.group(1).strip() + (' ' + m.group(3) if m.group(3) else ''))
            if len(mine) != len(theirs):
                bad.append('%s: %s has %d parameters in the table, %d in %s' % (e.where, name, len(mine), len(theirs), header))
                continue
            for p, a, b in zip(e.params, mine, theirs):
                if b is None:
                    continue
                if norm(a) != norm(b):
                    bad.append('%s: %s parameter %s is %r in the table, %r in %s' % (e.where, name, p.name, a, b, header))
            if norm(ret) != norm(e.returns):
                bad.append('%s: %s returns %r in the table, %r in %s' % (e.where, name, e.returns, ret, header))
    for header, hdr in hdrs.items():
        for name in hdr:
            if name not in seen:
                bad.append('mpi/%s: %s has no entry in mpi/api/*.api' % (header, name))
    bad += check_qmpi_types(src, hdrs['mpi.h'])
    for b in bad:
        print(b)
    print('gen.py check: %d entries, %d functions, %d problems' % (len(entries), len(seen), len(bad)))
    return 1 if bad else 0


def check_qmpi_types(src, hdr):
    """Every QMPI function identifier MPI_X_T of mpi.h has its tool function
    type QMPI_X_t (MPICH's), whose parameters are MPI_X's after the context
    and the tool id."""
    if not QMPI_IDS:
        read_qmpi_ids(src)
    text = re.sub(r'/\*.*?\*/', '', open(os.path.join(src, 'mpi', 'mpi.h')).read(), flags=re.S)
    types = {}
    for m in re.finditer(r'typedef\s+([\w ]+?\**)\s*\(Q((?:MPI|MPIX)_\w+)_t\)\s*\(([^;]*)\)\s*;', text):
        types[m.group(2)] = (norm(m.group(1)), norm(' '.join(m.group(3).split())))
    byupper = {n.upper(): n for n in hdr}
    bad = []
    for qid in QMPI_IDS:
        if qid == 'MPI_LAST_FUNC_T':
            continue
        name = byupper.get(qid[:-2])
        if name is None:
            bad.append('mpi/mpi.h: %s names no function' % qid)
            continue
        ret, ps = hdr[name]
        want = (norm(ret), norm(', '.join(['QMPI_Context context', 'int tool_id'] + ps)))
        if types.get(name) != want:
            bad.append('mpi/mpi.h: Q%s_t is %r, not %r' % (name, types.get(name), want))
    return bad


# The library's inside: its code calls the implementation functions, never
# the entry points (which would check the arguments again, and name another
# call than the user's in errors). The public headers declare the entry
# points; the generated files (of an in-tree build) define them.
INSIDE_DIRS = ('mpi', 'coll', 'rma', 'io', 'adi', 'datatype')
PUBLIC_HEADERS = ('mpi/mpi.h', 'mpi/mpio.h', 'mpi/mpi_ext.h')
GENERATED_MARK = 'Generated by mpi/api/gen.py'
# comments, string and character literals: not code
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def code_only(text):
    """text with its comments and literals blanked, lines kept."""
    return NOT_CODE.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)


def cmd_internal(src):
    chapters, entries = read_table(src)
    hdr = open(os.path.join(src, 'mpi', 'mpi.h')).read()
    macros = set(re.findall(r'^\s*#\s*define\s+(\w+)\(', hdr, re.M))
    called = {}  # identifier -> (entry, implementation)
    for e in entries:
        for name in e.names:
            for ident in (name, 'P' + name) if name.startswith('MPI') else (name,):
                if ident not in macros:
                    called[ident] = e
    ident_re = re.compile(r'\b(P?(?:MPIX?|QMPI)_\w+)\b')
    bad = []
    nfiles = 0
    for d in INSIDE_DIRS:
        for path in sorted(glob.glob(os.path.join(src, d, '*.[ch]'))):
            rel = os.path.relpath(path, src)
            text = open(path, errors='replace').read()
            if rel in PUBLIC_HEADERS or GENERATED_MARK in text[:200]:
                continue
            nfiles += 1
            for no, line in enumerate(code_only(text).split('\n'), 1):
                if re.match(r'\s*#\s*pragma\s+weak\b', line):
                    continue
                for m in ident_re.finditer(line):
                    e = called.get(m.group(1))
                    if e is None:
                        continue
                    # an entry point still written by hand, in its own file
                    if e.hand == rel and not line[:1].isspace():
                        continue
                    if e.hand:
                        bad.append('%s:%d: %s is an entry point of the library (by hand in %s); '
                                   'call the function behind it' % (rel, no, m.group(1), e.hand))
                    else:
                        bad.append('%s:%d: %s is an entry point of the library; call %s(..., fn)'
                                   % (rel, no, m.group(1), e.impl))
    for b in bad:
        print(b)
    print('gen.py internal: %d files of %s, %d calls of entry points' %
          (nfiles, ', '.join(d + '/' for d in INSIDE_DIRS), len(bad)))
    return 1 if bad else 0


def cmd_status(src):
    chapters, entries = read_table(src)
    out = ['# Implementation status', '',
           'Generated by `mpi/api/gen.py status .` from the API table (`mpi/api/*.api`);',
           '`test/check-api.sh` fails when this file is out of date. Do not edit by hand.', '',
           'Every function of `mpi.h` exists in libmpi. A function is *implemented* unless the',
           'table marks it `stub`: a stub raises `MPI_ERR_UNSUPPORTED_OPERATION` through the',
           'error handler with the message "MPI_X is not implemented in Canal yet". Large-count',
           '(`_c`) forms are listed separately; every function also has its `PMPI_` profiling',
           'twin (QMPI_ functions excepted). *generated* entry points come from the table;',
           '*by hand* ones are still written out in the file named (the table is their',
           'description, and they move to generated entries as their chapter is converted).', '',
           '| Chapter | Implemented | Not implemented | Total | Entry points by hand |',
           '| --- | ---: | ---: | ---: | ---: |']
    tot = [0, 0, 0, 0]
    body = []
    for num, title, fname in chapters:
        es = [e for e in entries if e.file == fname]
        rows = []
        impl = stub = hand = 0
        for e in es:
            for name in e.names:
                how = 'stub' if e.stub else 'implemented'
                where = ('by hand in `%s`' % e.hand) if e.hand else 'generated'
                rows.append('- `%s`: %s, %s' % (name, how, where))
                stub += e.stub
                impl += not e.stub
                hand += bool(e.hand)
        label = ('%s. %s' % (num, title)) if num[0].isdigit() else title
        out.append('| %s | %d | %d | %d | %d |' % (label, impl, stub, impl + stub, hand))
        for i, v in enumerate((impl, stub, impl + stub, hand)):
            tot[i] += v
        body += ['', '## %s (%d of %d implemented)' % (label, impl, impl + stub), ''] + sorted(rows)
    out.append('| **All** | **%d** | **%d** | **%d** | **%d** |' % tuple(tot))
    print('\n'.join(out + body))
    return 0


def main(argv):
    if len(argv) < 3 or argv[1] not in ('entries', 'status', 'check', 'internal') or (argv[1] == 'entries' and len(argv) != 4):
        sys.stderr.write(__doc__)
        return 2
    if argv[1] == 'entries':
        cmd_entries(argv[2], argv[3])
        return 0
    if argv[1] == 'status':
        return cmd_status(argv[2])
    if argv[1] == 'internal':
        return cmd_internal(argv[2])
    return cmd_check(argv[2])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
