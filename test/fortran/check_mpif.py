#!/usr/bin/env python3
"""check_mpif.py OURS THEIRS -- compare the PARAMETER values of two mpif.h.

Every named constant of THEIRS (Debian's MPICH mpif.h) must exist in OURS
with the same value; values may be written as expressions of integers and
other constants (MPI_MAX_ERROR_STRING=512-1, MPI_INTEGER16=MPI_DATATYPE_NULL).
Prints the differences; exit 1 if there are any."""
import re
import sys


def params(path):
    text = open(path).read()
    # join fixed-form continuation lines (a non-blank in column 6)
    text = re.sub(r'\n     [^ \n]', ' ', text)
    out = {}
    for m in re.finditer(r'^\s*PARAMETER\s*\((.*)\)\s*$', text, re.M | re.I):
        for item in m.group(1).split(','):
            if '=' in item:
                k, v = item.split('=', 1)
                out[k.strip().upper()] = v.strip()
    return out


def value(table, v, depth=0):
    v = v.strip()
    if v.upper() in ('.TRUE.', '.FALSE.'):
        return v.upper()
    if depth > 10:
        raise ValueError(v)
    expr = re.sub(r'[A-Za-z_][A-Za-z0-9_]*', lambda m: '(%s)' % value(table, table[m.group(0).upper()], depth + 1), v)
    if not re.fullmatch(r'[-+*/() 0-9]*', expr):
        raise ValueError(v)
    return int(eval(expr))


def main():
    ours, theirs = params(sys.argv[1]), params(sys.argv[2])
    bad = 0
    for k, v in sorted(theirs.items()):
        if k not in ours:
            print('missing: %s (%s in %s)' % (k, v, sys.argv[2]))
            bad += 1
            continue
        a, b = value(ours, ours[k]), value(theirs, v)
        if a != b:
            print('differs: %s = %s here, %s in %s' % (k, a, b, sys.argv[2]))
            bad += 1
    print('mpif.h: %d constants compared, %d differ or are missing' % (len(theirs), bad))
    return 1 if bad else 0


sys.exit(main())
