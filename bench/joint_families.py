#!/usr/bin/env python3
"""Declarations of real program families for bench/joint_bench.sh (issue 41).

A family is the modules one application's run dumped into one xla_dump folder
(MANIFEST.tsv's source), in dump order (module_NNNN).  The dumps do not say
which arrays the calls hand on, so shared arrays are inferred, and the bench
says so: an output of a program whose shape and layout are a later program's
parameter is that parameter (an output of one program read by the next);
a parameter of one shape and layout in two programs that neither donates is
one array read by both (weights).  Rank-0 arrays and tuples are left out;
a parameter a program donates is declared written back into the output
input_output_alias names.  The declarations name the modules where they are
(never copied); they go to OUTDIR/<family>.txt.

Usage: joint_families.py XLA_BA_DIR OUTDIR [MAX_PROGRAMS]
"""
import os
import re
import sys


def split_top(s):
    """Splits s at commas outside brackets and braces."""
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def entry_layout(head):
    """The parameters' and outputs' shapes of a module's first line."""
    i = head.find('entry_computation_layout={')
    if i < 0:
        return None
    i += len('entry_computation_layout={')
    depth, j = 1, i
    while depth:
        depth += {'{': 1, '}': -1}.get(head[j], 0)
        j += 1
    text = re.sub(r'/\*.*?\*/', '', head[i:j - 1])
    arrow = text.rfind(')->')
    params = split_top(text[1:arrow])
    res = text[arrow + 3:]
    outs = split_top(res[1:-1]) if res.startswith('(') else [res]
    return params, outs, res.startswith('(')


def aliases(head):
    """input_output_alias: {param: output index text}."""
    m = re.search(r'input_output_alias=\{(.*?)\}\s*,\s*[a-z_]+=', head)
    if not m:
        m = re.search(r'input_output_alias=\{(.*)\}', head)
    got = {}
    if m:
        for out, p, pidx in re.findall(
                r'\{([0-9,]*)\}:\s*\((\d+),\s*\{([0-9,]*)\}', m.group(1)):
            if pidx == '':
                got[int(p)] = out
    return got


def is_array(s):
    return not s.startswith('(') and re.match(r'[a-z0-9]+\[[0-9,]+\]', s)


def family_decl(name, files):
    progs, lines, used_out, used_par = [], [], set(), set()
    for k, f in enumerate(files):
        with open(f) as fh:
            head = fh.readline()
        lay = entry_layout(head)
        if not lay:
            continue
        base = re.sub(r'^module_[0-9a-f]+\.|\.sm_.*$', '', os.path.basename(f))
        pname = 'p%d_%s' % (len(progs), re.sub(r'[^A-Za-z0-9_]', '_', base))
        progs.append((pname, f, lay, aliases(head)))
        lines.append('program %s %s' % (pname, f))
    shared = []
    # An output of an earlier program read by a later one.
    for b, (pb, _, (bpar, _, _), bal) in enumerate(progs):
        for p, shape in enumerate(bpar):
            if not is_array(shape) or (b, p) in used_par:
                continue
            for a in range(b - 1, -1, -1):
                pa, _, (_, aout, atup), _ = progs[a]
                hit = [o for o, s in enumerate(aout)
                       if s == shape and (a, o) not in used_out]
                if not hit:
                    continue
                o = hit[0]
                used_out.add((a, o))
                used_par.add((b, p))
                w = ' out{%s}' % bal[p] if p in bal else ''
                shared.append('%s %s, %s param %d%s' % (
                    pa, 'out{%d}' % o if atup else 'out', pb, p, w))
                break
    # One parameter read by several programs (weights).
    for b, (pb, _, (bpar, _, _), bal) in enumerate(progs):
        for p, shape in enumerate(bpar):
            if not is_array(shape) or (b, p) in used_par or p in bal:
                continue
            uses = ['%s param %d' % (pb, p)]
            for c in range(b + 1, len(progs)):
                pc, _, (cpar, _, _), cal = progs[c]
                for q, s2 in enumerate(cpar):
                    if s2 == shape and (c, q) not in used_par and \
                            q not in cal:
                        uses.append('%s param %d' % (pc, q))
                        used_par.add((c, q))
                        break
            if len(uses) > 1:
                used_par.add((b, p))
                shared.append(', '.join(uses))
    for i, s in enumerate(shared):
        lines.append('shared s%d %s' % (i, s))
    return lines, len(progs), len(shared)


def main():
    ba, outdir = sys.argv[1], sys.argv[2]
    most = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    fams = {}
    with open(os.path.join(ba, 'MANIFEST.tsv')) as fh:
        next(fh)
        for row in fh:
            col = row.rstrip('\n').split('\t')
            src = col[9]
            order = re.search(r'module_(\d+)', os.path.basename(src))
            fams.setdefault(os.path.dirname(src), []).append(
                (int(order.group(1)) if order else 0,
                 os.path.join(os.path.abspath(ba), col[8])))
    os.makedirs(outdir, exist_ok=True)
    for d in sorted(fams):
        mods = [f for _, f in sorted(fams[d])][:most]
        if len(mods) < 2:
            continue
        name = re.sub(r'[^A-Za-z0-9]+', '_', d.replace('/xla_dump', ''))
        name = re.sub(r'^runs_', '', name).strip('_')
        lines, n, s = family_decl(name, mods)
        with open(os.path.join(outdir, name + '.txt'), 'w') as fh:
            fh.write('# %s: %d programs, %d shared arrays (inferred)\n' %
                     (d, n, s))
            fh.write('\n'.join(lines) + '\n')
        print(name)


if __name__ == '__main__':
    main()
