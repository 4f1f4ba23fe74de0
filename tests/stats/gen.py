#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Synthetic runs for tests/stats/verdicts.table, written in cyclictest's -h
# text format (what `cyclictest -h RANGE -q` prints), so the verdict tests go
# through the same parser as real runs.  Every answer is known by
# construction: a run is two threads of samples from a body (a few µs of
# lognormal jitter) plus a bounded tail (0.5 % of samples, uniform over a
# band), with run-to-run variation in the body's position and the tail's
# weight, as reruns of one kernel show.  Seeds are fixed (derived from the
# file name), so the files are the same on every machine.
#
#   tests/stats/gen.py [OUTDIR]      (default: tests/stats/syn)

import math
import os
import random
import sys
import zlib

RANGE_US = 200           # -h 200
SAMPLES = 50000          # per thread (50 s at 1 kHz)
THREADS = 2
RUNS = 6                 # per side


def run_samples(rng, body_shift=0.0, tail_lo=25, tail_hi=40, tail_frac=0.005,
                n=SAMPLES, wander=0.25, spikes=None):
    """One thread's samples (µs, truncated like cyclictest); spikes =
    (count, lo, hi) adds that many rare latencies at the end."""
    # per-run variation: the body wanders a little, the tail weight more
    shift = body_shift + rng.gauss(0.0, wander)
    frac = tail_frac * max(0.2, 1.0 + rng.gauss(0.0, 0.15))
    out = []
    for _ in range(n):
        if rng.random() < frac:
            v = rng.uniform(tail_lo, tail_hi)
        else:
            v = 10.0 + shift + rng.lognormvariate(math.log(4.0), 0.35)
        out.append(max(0, int(v)))
    if spikes:
        out[:spikes[0]] = [int(rng.uniform(spikes[1], spikes[2]))
                           for _ in range(spikes[0])]
    return out


def write_hist(path, threads, range_us=RANGE_US):
    """threads: list of sample lists, or of ('overflow', n, lo, hi)."""
    counts, ovf, mins, maxs, avgs = [], [], [], [], []
    for t in threads:
        c = [0] * range_us
        o = 0
        for v in t:
            if v < range_us:
                c[v] += 1
            else:
                o += 1
        counts.append(c)
        ovf.append(o)
        mins.append(min(t) if t else 0)
        maxs.append(max(t) if t else 0)
        avgs.append(int(sum(t) / len(t)) if t else 0)
    with open(path, 'w') as f:
        f.write('# /dev/cpu_dma_latency set to 0us\n# Histogram\n')
        for i in range(range_us):
            f.write('%06d ' % i + '\t'.join('%06d' % c[i] for c in counts)
                    + '\n')
        f.write('# Total: ' + ' '.join('%09d' % sum(c) for c in counts)
                + '\n')
        f.write('# Min Latencies: ' + ' '.join('%05d' % v for v in mins)
                + '\n')
        f.write('# Avg Latencies: ' + ' '.join('%05d' % v for v in avgs)
                + '\n')
        f.write('# Max Latencies: ' + ' '.join('%05d' % v for v in maxs)
                + '\n')
        f.write('# Histogram Overflows: ' + ' '.join('%05d' % v for v in ovf)
                + '\n')


def seeded(name):
    return random.Random(zlib.crc32(name.encode()))


# name prefix -> how each thread of each run is drawn
SCENARIOS = {
    # the reference kernel; two independent sets of reruns of it
    'ref-a': lambda r: run_samples(r),
    'ref-b': lambda r: run_samples(r),
    # the tail band moved up by 30 µs: p99.9, max and tail rate regress
    'tail30': lambda r: run_samples(r, tail_lo=55, tail_hi=70),
    # tail up 2 µs, body up 0.5 µs: real but below the 5 µs floor
    'small': lambda r: run_samples(r, body_shift=0.5, tail_lo=27, tail_hi=42),
    # the whole distribution moved up by 8 µs
    'body8': lambda r: run_samples(r, body_shift=8.0, tail_lo=33, tail_hi=48),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'syn')
    os.makedirs(out, exist_ok=True)
    for name, draw in SCENARIOS.items():
        for i in range(1, RUNS + 1):
            fn = '%s-%d.hist' % (name, i)
            rng = seeded(fn)
            write_hist(os.path.join(out, fn),
                       [draw(rng) for _ in range(THREADS)])
    # one rerun of the reference whose CPU 1 caught 0.3 % spikes of
    # 80-120 µs: a single bad run, not a regression of the kernel
    rng = seeded('outlier-1.hist')
    t0 = run_samples(rng)
    t1 = run_samples(rng, tail_lo=80, tail_hi=120, tail_frac=0.008)
    write_hist(os.path.join(out, 'outlier-1.hist'), [t0, t1])
    # a run that recorded nothing (measurement died at once)
    write_hist(os.path.join(out, 'empty-1.hist'), [[], []])
    # a run whose every sample overflowed the range (-h too small)
    rng = seeded('overflow-1.hist')
    write_hist(os.path.join(out, 'overflow-1.hist'),
               [[int(rng.uniform(300, 900)) for _ in range(5000)]
                for _ in range(THREADS)])
    # a body shift near the 5 us floor whose runs disagree: the point
    # estimate is beyond the floor (+6 us), its lower bound is not
    for i, shift in enumerate([6.0, 5.5, 7.0, 2.0, 6.5], 1):
        fn = 'nearfloor-%d.hist' % i
        rng = seeded(fn)
        write_hist(os.path.join(out, fn),
                   [run_samples(rng, body_shift=shift, tail_lo=25 + shift,
                                tail_hi=40 + shift)
                    for _ in range(THREADS)])
    # reruns of the reference where one run holds most of the tail: 2 % of
    # its samples at 45-60 us, the others clean
    for i in range(1, 6):
        fn = 'burst-%d.hist' % i
        rng = seeded(fn)
        write_hist(os.path.join(out, fn),
                   [run_samples(rng) if i > 1 else
                    run_samples(rng, tail_lo=45, tail_hi=60, tail_frac=0.02)
                    for _ in range(THREADS)])
    # maxima 270-295 us against 90-100 us: a clear improvement of the
    # worst case, while the candidate's body wanders so much from run to
    # run that its other metrics stay unsettled
    for i in range(1, 6):
        for name, kw in (('spiky', dict(spikes=(4, 270, 296))),
                         ('calm', dict(spikes=(4, 90, 101), wander=6.0))):
            fn = '%s-%d.hist' % (name, i)
            rng = seeded(fn)
            write_hist(os.path.join(out, fn),
                       [run_samples(rng, **kw) for _ in range(THREADS)],
                       range_us=400)


if __name__ == '__main__':
    main()
