// Machine constants of the modelled kernel (x86_64, 4-level paging, no KASLR; spec §0).
export const PAGE_SIZE = 0x1000n;
export const VMALLOC_START = 0xffffc90000000000n;
export const VMALLOC_END = 0xffffe8ffffffffffn;
