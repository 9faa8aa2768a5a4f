// Reading the operation forms: numbers as the kernel's callers write them, and the trace line a
// form stands for. Validation here is about the input only (is it a number, is the window
// empty); whether the allocator accepts the request is the core's to say.
import { PAGE_SIZE } from '../constants';
import { hex } from '../format';

const UNIT: Record<string, bigint> = { '': 1n, K: 1n << 10n, M: 1n << 20n, G: 1n << 30n, T: 1n << 40n, P: 1n << 50n, E: 1n << 60n };
const MAX = (1n << 64n) - 1n;

/** `4096`, `0x1000`, `4K`, `4 KiB`, `2M` → bigint; throws an Error with a message for the form. */
export function parseAmount(text: string, what: string): bigint {
  const t = text.trim().replace(/_/g, '');
  if (!t) throw new Error(`${what}: enter a number (like 4096, 0x1000 or 4K)`);
  let v: bigint;
  const m = /^(\d+)\s*([KMGTPE])?(?:i?B)?$/i.exec(t);
  if (/^0x[0-9a-f]+$/i.test(t)) v = BigInt(t);
  else if (m) v = BigInt(m[1]) * UNIT[(m[2] ?? '').toUpperCase()];
  else throw new Error(`${what}: "${text.trim()}" is not a number (write 4096, 0x1000 or 4K)`);
  if (v > MAX) throw new Error(`${what}: ${hex(v)} does not fit in 64 bits`);
  return v;
}

export interface AllocInput {
  size: string;
  align: string;
  vstart: string;
  vend: string;
  /** As vmalloc() does: round the size up to pages and add the guard page. */
  vmalloc: boolean;
}

/** The `alloc` line of the form, or an Error naming the field. */
export function allocLine(f: AllocInput): { line: string; note: string } {
  let size = parseAmount(f.size, 'size');
  const align = parseAmount(f.align, 'align');
  const vstart = parseAmount(f.vstart, 'vstart');
  const vend = parseAmount(f.vend, 'vend');
  if (size === 0n) throw new Error('size: must be more than 0');
  if (align === 0n) throw new Error('align: must be at least 1');
  if (vstart >= vend) throw new Error(`the window is empty: vstart ${hex(vstart)} must be below vend ${hex(vend)}`);
  let note = `alloc_vmap_area(size ${hex(size)}, align ${hex(align)})`;
  if (f.vmalloc) {
    const pages = (size + PAGE_SIZE - 1n) / PAGE_SIZE;
    const asked = size;
    size = (pages + 1n) * PAGE_SIZE;
    if (size > MAX) throw new Error('size: too large');
    note = `vmalloc(${asked}): ${pages} page${pages === 1n ? '' : 's'} + a guard page = ${hex(size)}`;
  }
  return { line: `alloc ${hex(size)} ${hex(align)} ${hex(vstart)} ${hex(vend)}`, note };
}

/** The `free`/`vfree` line of the form. */
export function freeLine(addr: string, how: 'free' | 'vfree'): string {
  return `${how} ${hex(parseAmount(addr, 'address'))}`;
}

/** The core's message without its `line N: ` prefix (the form has no line). */
export function coreMessage(msg: string): string {
  return msg.replace(/^line \d+: /, '');
}

/**
 * The core's message for a line typed into a one-line field: its `line N:` counts the trace's
 * lines, which mean nothing to someone who typed one line, so it says "this line:" instead.
 */
export function typedLineMessage(msg: string): string {
  return msg.replace(/^line \d+: /, 'this line: ');
}
