#!/usr/bin/env python3
"""A workload class kept apart from vmw.py's: per-CPU memory. BPF per-CPU array maps of up to
256 entries of up to 32 KiB each fill the per-CPU allocator's chunks, so it makes new ones and,
once they are empty again, destroys them: each chunk's metadata is vmalloc'd (traced) and its
units are mapped by pcpu_get_vm_areas, top down from VMALLOC_END, which no event traces (its
free is traced). Between them, BPF ring buffers (their pages vmap'd twice over) and array maps.
1,500 steps: enough lazy pages for a dozen purges.

usage: pcpu.py SEED [STEPS]     (under scripts/capture.sh, as root)
"""
import ctypes, os, random, struct, sys

libc = ctypes.CDLL(None, use_errno=True)
SYS_BPF, BPF_MAP_CREATE = 321, 0  # x86-64
ARRAY, PERCPU_ARRAY, RINGBUF = 2, 6, 27


def map_create(kind, key_size, value_size, max_entries):
    attr = struct.pack("IIIII", kind, key_size, value_size, max_entries, 0)
    buf = ctypes.create_string_buffer(attr + b"\0" * (128 - len(attr)))
    return libc.syscall(SYS_BPF, BPF_MAP_CREATE, buf, 128)


rng = random.Random(int(sys.argv[1]))
live = []
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1500):
    r = rng.random()
    if live and r < 0.45:
        os.close(live.pop(rng.randrange(len(live))))
        continue
    if r < 0.65:
        fd = map_create(PERCPU_ARRAY, 4, rng.choice([8, 256, 4096, 16384, 32768]),
                        rng.choice([1, 4, 16, 64, 256]))
    elif r < 0.8:
        fd = map_create(RINGBUF, 0, 0, 4096 << rng.randrange(0, 10))
    else:
        fd = map_create(ARRAY, 4, 4096, rng.randrange(1, 600))
    if fd >= 0:
        live.append(fd)
for fd in live:
    os.close(fd)
