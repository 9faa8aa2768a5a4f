#!/usr/bin/env python3
"""More vmalloc users, for capture.sh (run as root): areas of sizes and kinds vmw.py does not make.

usage: vmx.py CLASS SEED

  ringbuf  BPF ring buffers of 1-512 data pages: vmap() of the pages with the data mapped
           twice, so every area is 2n + meta pages (bpf_ringbuf_area_alloc)
  hash     BPF hash, LRU-hash and per-CPU hash maps of 500-60,000 entries: each map is
           several vmalloc'd areas at once (buckets, preallocated elements, free lists)
  mmap     mmapable BPF array maps (BPF_F_MMAPABLE): vmalloc_user-style areas whose size is
           the values plus the map's header page, rounded up
  users    all three at once with thread bursts, from four threads

Every choice comes from random.Random(SEED).
"""
import os, random, struct, sys, threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vmw import Live, bpf, threads, BPF_MAP_CREATE  # noqa: E402

BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_PERCPU_HASH = 1, 2, 5
BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_RINGBUF = 9, 27
BPF_F_MMAPABLE = 1 << 10


def create(kind, key, value, entries, flags=0):
    return bpf(BPF_MAP_CREATE, struct.pack("IIIII", kind, key, value, entries, flags))


def ringbuf(rng):
    return create(BPF_MAP_TYPE_RINGBUF, 0, 0, 4096 << rng.randint(0, 9))


def hashmap(rng):
    kind = rng.choice([BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_LRU_HASH, BPF_MAP_TYPE_PERCPU_HASH])
    return create(kind, 8, rng.choice([8, 64, 200, 1000]), rng.choice([500, 2000, 7000, 20000, 60000]))


def mmap_array(rng):
    return create(BPF_MAP_TYPE_ARRAY, 4, rng.choice([8, 64, 512, 4096]),
                  rng.choice([1, 3, 17, 100, 511, 2000, 9000]), BPF_F_MMAPABLE)


def churn(make, cap, steps):
    def run(rng):
        live = Live(rng, cap)
        for _ in range(steps):
            if live.fds and rng.random() < 0.45:
                live.close_one()
            else:
                live.add(make(rng))
        live.close_all()
    return run


def run_users(rng):
    def bursts(r):
        for _ in range(80):
            threads(r.randint(1, 40))

    work = (churn(ringbuf, 60, 600), churn(hashmap, 20, 300), churn(mmap_array, 60, 600), bursts)
    ws = [threading.Thread(target=f, args=(random.Random(rng.randrange(1 << 30)),)) for f in work]
    for w in ws:
        w.start()
    for w in ws:
        w.join()


CLASSES = {
    "ringbuf": churn(ringbuf, 100, 1500), "hash": churn(hashmap, 30, 600),
    "mmap": churn(mmap_array, 100, 1500), "users": run_users,
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CLASSES:
        sys.exit("usage: vmx.py {%s} SEED" % "|".join(CLASSES))
    CLASSES[sys.argv[1]](random.Random(int(sys.argv[2])))
