#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/gemm_ws_protocol.py: a model of the warp-specialised gemm_wgmma's
slot hand-over (cl_kernels/gemm.cl, WG_WS; docs/gemm.md), checked here
because the kernel itself runs only on Hopper GPUs.

One producer party (128 items) and two consumer parties (the warpgroups,
128 each, not in lockstep) on named barriers of 384 items: a barrier
completes when the parties' items sum to 384; bar.sync blocks until then,
bar.arrive does not.  Over random interleavings, for 2..5 stages, WG_DEPTH
0 and 1 and 0..29 K tiles: no deadlock; no party counted twice in one
barrier generation (which would complete it without the third); every
consumer reads a slot only while it holds the tile the producer last wrote
there; the producer never refills a slot whose products may be pending;
no barrier left half-arrived at the end.  Then two broken protocols (a
producer one tile deeper, consumers releasing the last tiles too) must
fail.  Keep the model in step with the kernel's loops.  (The persistent
kernel, WG_PERSIST, runs these loops over one stream of the K tiles of all
its tiles, the consumers storing C between tiles without touching a
barrier: ktiles here is that stream's length.)
"""
import random, sys

def run(ktiles, S, D, seed, N_OFF=0, REL_OFF=0):
    rnd = random.Random(seed)
    N = S - 1 + N_OFF
    bars = {}  # id -> list of (party, items) in the current generation
    gen = {}   # id -> completed generations
    def arrive(bid, party):
        cur = bars.setdefault(bid, [])
        assert party not in [p for p, _ in cur], ("party twice in one generation", bid, party)
        cur.append((party, 128))
        if sum(n for _, n in cur) == 384:
            bars[bid] = []
            gen[bid] = gen.get(bid, 0) + 1
            return True
        return False
    slot = {}        # slot -> tile written (complete)
    reading = {}     # (party, tile) in flight (wgmma not waited)
    # programs as generators yielding ('arrive', id) / ('sync', id) / ('act', fn)
    def producer():
        inflight = []
        for j in range(ktiles):
            if j >= N:
                t = j - N
                slot[t % S] = t
                yield ('arrive', 1 + t % S)
            s = j % S
            if j >= S:
                yield ('sync', 1 + S + s)
            # writing tile j into s: no consumer may read s now
            for (p, t), _ in list(reading.items()):
                assert t % S != s or t >= j, ("overwrite while read", p, t, j)
            yield ('act', None)
        for t in range(max(ktiles - N, 0), ktiles):
            slot[t % S] = t
            yield ('arrive', 1 + t % S)
    def consumer(name):
        pending = []
        for kt in range(ktiles):
            s = kt % S
            yield ('sync', 1 + s)
            assert slot.get(s) == kt, ("stale slot", name, kt, slot.get(s))
            reading[(name, kt)] = True
            pending.append(kt)
            while len(pending) > D:
                reading.pop((name, pending.pop(0)))
            done = kt - D
            if 0 <= done < ktiles - S + REL_OFF:
                yield ('arrive', 1 + S + done % S)
    progs = {'P': producer(), 'C1': consumer('C1'), 'C2': consumer('C2')}
    waiting = {}  # party -> (bid, gen at sync)
    live = dict(progs)
    steps = 0
    while live:
        ready = [p for p in live if p not in waiting or gen.get(waiting[p][0], 0) > waiting[p][1]]
        if not ready:
            raise AssertionError(("deadlock", ktiles, S, D, waiting))
        p = rnd.choice(ready)
        waiting.pop(p, None)
        try:
            op, bid = next(live[p])
        except StopIteration:
            del live[p]
            continue
        if op == 'arrive':
            arrive(bid, p)
        elif op == 'sync':
            g0 = gen.get(bid, 0)
            if not arrive(bid, p):
                waiting[p] = (bid, g0)
        steps += 1
    for bid, cur in bars.items():
        assert not cur, ("barrier left incomplete", bid, cur)

n = 0
for S in (2, 3, 4, 5):
    for D in (0, 1):
        for k in range(0, 30):
            for seed in range(20):
                run(k, S, D, seed)
                n += 1
print("ok", n, "runs")
# The model can fail: a deeper producer (WS_N = STAGES), or releases of the
# last tiles the producer never waits for.
for kw in ({"N_OFF": 1}, {"REL_OFF": 1}):
    try:
        for k in range(1, 12):
            for seed in range(20):
                run(k, 3, 1, seed, **kw)
        sys.exit("broken protocol %s NOT caught" % kw)
    except AssertionError as e:
        print("broken protocol", kw, "caught:", e.args[0][0])
