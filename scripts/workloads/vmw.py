#!/usr/bin/env python3
"""Workloads that drive the kernel's vmalloc allocator, for capture.sh (run as root).

usage: vmw.py CLASS SEED

  forks    fork and thread bursts: kernel stacks (THREAD_SIZE, aligned to it), freed after RCU
  maps     BPF array maps of every size class: 1-256 pages, then up to 2,048 (the area is
           the map's values, rounded up to pages)
  progs    BPF programs of 2-8,000 instructions: the program image and the verifier's scratch
           arrays are vmalloc'd and freed at load time
  mixed    maps, programs, forks and threads at once, from three threads
  netns    network namespaces made and torn down (unshare -n): per-namespace tables
  large    maps of 2-16 MiB made and closed until the lazy pages pass lazy_max_pages (purges
           by threshold)
  idle     short bursts of maps and threads between idle stretches of 1-4 s (the pools'
           decay runs from the drain work, not from a timer: the idle pools stay)
  shrink   maps and thread bursts, and now and then the shrinkers run (drop_caches 2, as
           memory pressure does): the vmap node shrinker gives back every pool whole, which
           only its vmscan event traces

Every choice comes from random.Random(SEED): the same seed makes the same requests (the
kernel's own allocations around them differ from run to run).
"""
import ctypes, os, random, struct, subprocess, sys, threading, time

libc = ctypes.CDLL(None, use_errno=True)
SYS_BPF = 321  # x86-64
BPF_MAP_CREATE, BPF_PROG_LOAD = 0, 5
BPF_MAP_TYPE_ARRAY, BPF_PROG_TYPE_SOCKET_FILTER = 2, 1


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr + b"\0" * (128 - len(attr)))
    return libc.syscall(SYS_BPF, cmd, buf, 128)


def map_create(pages):
    """An array map whose values fill `pages` pages: one vmalloc'd area of that size."""
    return bpf(BPF_MAP_CREATE, struct.pack("IIIII", BPF_MAP_TYPE_ARRAY, 4, 4096, pages, 0))


_license = ctypes.create_string_buffer(b"GPL")


def prog_load(insns):
    """A socket filter of `insns` instructions: r0 = i, ..., exit."""
    code = b"".join(struct.pack("<BBhi", 0xB7, 0, 0, i & 0x7FFF) for i in range(insns - 1))
    code += struct.pack("<BBhi", 0x95, 0, 0, 0)
    buf = ctypes.create_string_buffer(code)
    attr = struct.pack("IIQQ", BPF_PROG_TYPE_SOCKET_FILTER, insns,
                       ctypes.addressof(buf), ctypes.addressof(_license))
    return bpf(BPF_PROG_LOAD, attr)


def threads(n, sleep=0.01):
    ts = [threading.Thread(target=time.sleep, args=(sleep,)) for _ in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def forks(n):
    pids = []
    for _ in range(n):
        pid = os.fork()
        if pid == 0:
            time.sleep(0.01)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)


def netns():
    subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], check=False)


MAP_SIZES = list(range(1, 17)) + [24, 31, 32, 33, 48, 63, 64, 65, 96, 127, 128, 129, 192, 255, 256,
                                   257, 300, 511, 512, 513, 1023, 1024, 1025, 2048]


class Live:
    """Open BPF objects, closed in a random order; at most `cap` at once."""

    def __init__(self, rng, cap):
        self.rng, self.cap, self.fds = rng, cap, []

    def add(self, fd):
        if fd >= 0:
            self.fds.append(fd)
        while len(self.fds) > self.cap:
            self.close_one()

    def close_one(self):
        if self.fds:
            os.close(self.fds.pop(self.rng.randrange(len(self.fds))))

    def close_all(self):
        while self.fds:
            self.close_one()


def run_forks(rng):
    for _ in range(300):
        if rng.random() < 0.5:
            threads(rng.randint(1, 64))
        else:
            forks(rng.randint(1, 24))


def run_maps(rng):
    live = Live(rng, 200)
    for _ in range(3000):
        if live.fds and rng.random() < 0.45:
            live.close_one()
        else:
            live.add(map_create(rng.choice(MAP_SIZES)))
    live.close_all()


def run_progs(rng):
    live = Live(rng, 60)
    for _ in range(700):
        if live.fds and rng.random() < 0.4:
            live.close_one()
        else:
            live.add(prog_load(rng.choice([2, 8, 60, 200, 500, 1000, 2000, 4000, 8000])))
    live.close_all()


def run_mixed(rng):
    seeds = [rng.randrange(1 << 30) for _ in range(3)]
    ws = [threading.Thread(target=f, args=(random.Random(s),))
          for f, s in zip((run_maps_short, run_progs_short, run_forks_short), seeds)]
    for w in ws:
        w.start()
    for w in ws:
        w.join()


def run_maps_short(rng):
    live = Live(rng, 150)
    for _ in range(1500):
        if live.fds and rng.random() < 0.45:
            live.close_one()
        else:
            live.add(map_create(rng.choice(MAP_SIZES)))
    live.close_all()


def run_progs_short(rng):
    live = Live(rng, 40)
    for _ in range(250):
        if live.fds and rng.random() < 0.4:
            live.close_one()
        else:
            live.add(prog_load(rng.choice([2, 60, 500, 2000, 4000])))
    live.close_all()


def run_forks_short(rng):
    for _ in range(120):
        if rng.random() < 0.5:
            threads(rng.randint(1, 40))
        else:
            forks(rng.randint(1, 12))


def run_netns(rng):
    for _ in range(40):
        for _ in range(rng.randint(1, 4)):
            netns()
        time.sleep(rng.random() * 0.2)
    time.sleep(2)  # cleanup_net runs from a workqueue


def run_large(rng):
    live = Live(rng, 6)
    for _ in range(160):
        if live.fds and rng.random() < 0.5:
            live.close_one()
        else:
            live.add(map_create(rng.choice([512, 1000, 1024, 2048, 3000, 4096])))
        if rng.random() < 0.3:
            live.add(map_create(rng.choice(MAP_SIZES[:20])))
    live.close_all()


def run_idle(rng):
    live = Live(rng, 80)
    for _ in range(8):
        for _ in range(rng.randint(20, 120)):
            if live.fds and rng.random() < 0.45:
                live.close_one()
            else:
                live.add(map_create(rng.choice(MAP_SIZES)))
        threads(rng.randint(1, 30))
        time.sleep(1 + 3 * rng.random())
    live.close_all()


def run_shrink(rng):
    live = Live(rng, 150)
    for _ in range(2000):
        if live.fds and rng.random() < 0.45:
            live.close_one()
        else:
            live.add(map_create(rng.choice(MAP_SIZES)))
        if rng.random() < 0.03:
            threads(rng.randint(1, 30))
        if rng.random() < 0.004:
            with open("/proc/sys/vm/drop_caches", "w") as f:
                f.write("2\n")
    live.close_all()


CLASSES = {
    "forks": run_forks, "maps": run_maps, "progs": run_progs, "mixed": run_mixed,
    "netns": run_netns, "large": run_large, "idle": run_idle, "shrink": run_shrink,
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CLASSES:
        sys.exit("usage: vmw.py {%s} SEED" % "|".join(CLASSES))
    CLASSES[sys.argv[1]](random.Random(int(sys.argv[2])))
