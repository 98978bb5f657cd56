#!/usr/bin/env python3
"""XLA's buffer assignment, summed: for each *-buffer-assignment.txt named,
one line: the file; XLA's temporary allocation (bytes), the peak of what is
live in it by XLA's own live ranges (HloLiveRange's BufferLiveRange) and
their difference (what XLA's packing leaves unused at its own peak); the
sum of all allocations, the peak of what is live in all of them at once,
and their difference (bytes XLA holds that none of its values use at its
peak: packing, and allocations kept apart).  Values that share bytes
(aliases, in place) count once: at any time, an offset of an allocation
holds the largest value live there.
    bench/xla_assignment.py FILE..."""
import re
import sys

VALUE = re.compile(r'^ value: <\d+ (\S+) @\d+> \(size=(\d+),offset=(\d+)\)')
ALLOC = re.compile(r'^allocation (\d+): size (\d+), (.*)$')
RANGE = re.compile(r'^    (\S+):(\d+)-(\d+)$')


def key(name):
    return name if '{' in name else name + '{}'


def peak_of(values, ranges):
    events = []
    for name, size, where in values:
        if name in ranges and size > 0:
            s, e = ranges[name]
            events.append((s, 1, where, size))
            events.append((e + 1, 0, where, size))
    events.sort()
    live, at, peak, k = 0, {}, 0, 0
    while k < len(events):
        t = events[k][0]
        while k < len(events) and events[k][0] == t:
            _, kind, where, size = events[k]
            sizes = at.setdefault(where, [])
            live -= max(sizes) if sizes else 0
            if kind == 1:
                sizes.append(size)
            else:
                sizes.remove(size)
            live += max(sizes) if sizes else 0
            k += 1
        peak = max(peak, live)
    return peak


def summary(path):
    temp, total, cur = None, 0, None
    every = []
    values, ranges, in_ranges = [], {}, False
    with open(path) as f:
        for line in f:
            m = ALLOC.match(line)
            if m:
                total += int(m.group(2))
                cur = int(m.group(1))
                if 'preallocated-temp' in m.group(3):
                    temp = (cur, int(m.group(2)))
                continue
            m = VALUE.match(line)
            if m:
                v = (key(m.group(1)), int(m.group(2)), int(m.group(3)))
                every.append((v[0], v[1], (cur, v[2])))
                if temp and cur == temp[0]:
                    values.append(v)
                continue
            if line.startswith('  BufferLiveRange:'):
                in_ranges = True
                continue
            if in_ranges:
                m = RANGE.match(line)
                if m:
                    ranges[m.group(1)] = (int(m.group(2)), int(m.group(3)))
                elif not line.startswith('    '):
                    in_ranges = False
    all_peak = peak_of(every, ranges)
    if not temp:
        return 0, 0, total, all_peak
    return temp[1], peak_of(values, ranges), total, all_peak

for p in sys.argv[1:]:
    size, peak, total, all_peak = summary(p)
    print('%s\t%d\t%d\t%d\t%d\t%d\t%d' % (p, size, peak, size - peak,
                                          total, all_peak, total - all_peak))
