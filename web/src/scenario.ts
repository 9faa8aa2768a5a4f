// The scenario the page opens on: a few vmalloc-sized requests in the vmalloc window, then
// frees that leave holes (so the free tree has several nodes), a reuse of a hole and a lazy
// vfree (linux-5.2: the area stays in the busy tree, marked lazy, until a purge).
export const DEFAULT_TRACE = `# vmapviz default scenario: vmalloc() calls, frees that leave holes, one lazy vfree.
# alloc SIZE ALIGN VSTART VEND  (SIZE includes the guard page: vmalloc(4096) asks for 0x2000)
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x5000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x9000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x11000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x4000 0x1 0xffffc90000000000 0xffffe8ffffffffff
free 0xffffc90000002000
free 0xffffc9000000a000
free 0xffffc90000015000
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
vfree 0xffffc90000005000
`;

/** Where the first open shows it: mid-scenario, the reuse of a hole at its fit (op 12, micro-step 5). */
export const DEFAULT_AT = [11, 4] as const;
