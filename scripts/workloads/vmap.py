#!/usr/bin/env python3
"""A workload class kept apart from vmw.py's: io_uring rings (their pages vmap'd), classic socket
filters (BPF programs made by the kernel from cBPF) and large xattrs (kvmalloc'd values).
No rule of the capture replay was found on it: its captures are replayed only to check the rules.

usage: vmap.py SEED     (under scripts/capture.sh, as root)
"""
import ctypes, os, random, socket, struct, sys, tempfile
libc = ctypes.CDLL(None, use_errno=True)
rng = random.Random(int(sys.argv[1]))

def uring(entries):
    params = ctypes.create_string_buffer(120)
    return libc.syscall(425, entries, params)

def sockfilter(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ins = b"".join(struct.pack("HBBI", 0x06, 0, 0, 0xFFFF) for _ in range(n))  # ret #k
    prog = ctypes.create_string_buffer(ins)
    fprog = struct.pack("HxxxxxxQ", n, ctypes.addressof(prog))
    try:
        s.setsockopt(socket.SOL_SOCKET, 26, fprog)  # SO_ATTACH_FILTER
    except OSError:
        pass
    return s

d = tempfile.mkdtemp(dir="/dev/shm")
live = []
for i in range(1500):
    r = rng.random()
    if live and r < 0.45:
        o = live.pop(rng.randrange(len(live)))
        o.close() if hasattr(o, "close") else os.close(o)
    elif r < 0.7:
        fd = uring(rng.choice([64, 256, 1024, 4096, 8192, 16384, 32768]))
        if fd >= 0:
            live.append(fd)
    elif r < 0.9:
        live.append(sockfilter(rng.choice([1, 16, 200, 1000, 4096])))
    else:
        p = os.path.join(d, "f%d" % i)
        open(p, "w").close()
        try:
            os.setxattr(p, "user.v", os.urandom(rng.choice([5000, 20000, 60000])))
        except OSError:
            pass
        os.unlink(p)
for o in live:
    o.close() if hasattr(o, "close") else os.close(o)
os.rmdir(d)
