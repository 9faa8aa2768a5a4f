// The struct panel (issue 15, spec §11.2.1 and §11.11 "memory"): `struct vmap_area` field by
// field at 72 bytes (linux-6.9) and 48 bytes (maple-rfc, no rb_node and no union), and, for the
// state the main view shows, what each design's index takes: the objects, the free-block
// objects 6.9 keeps and maple-rfc does not, the 256-byte maple nodes and the bump chunks'
// descriptors that replace the 24 bytes saved per object, and the bytes per live area the core
// computes (core/src/memory.rs, the figure vmap-bench prints). The current trace is replayed
// under the other design too, so both columns describe the same operations.
import { bytesPerLiveArea, errorMessage, Session, type IndexMemory } from '../bridge';
import { defaultProfile, eraOf, type Era } from '../eras';
import { Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import { forProfile, traceProfile } from './api';
import type { AppApi } from './context';
import { grouped, h } from './dom';

export interface StructField {
  name: string;
  type: string;
  bytes: number;
  /** What the field is for (our words). */
  note: string;
  /** Gone from maple-rfc's struct. */
  gone?: boolean;
}

/** `struct vmap_area` of linux-6.9 (include/linux/vmalloc.h), 64-bit. */
export const VMAP_AREA_69: StructField[] = [
  { name: 'va_start', type: 'unsigned long', bytes: 8, note: 'first address' },
  { name: 'va_end', type: 'unsigned long', bytes: 8, note: 'one past the last address' },
  { name: 'rb_node', type: 'struct rb_node', bytes: 24, note: 'parent+colour, right, left: the node in the free or busy rbtree', gone: true },
  { name: 'list', type: 'struct list_head', bytes: 16, note: 'address-sorted list (free, busy, purge)' },
  {
    name: 'subtree_max_size / vm',
    type: 'union',
    bytes: 8,
    note: 'free tree: largest free block below this node; busy tree: the vm_struct',
  },
  { name: 'flags', type: 'unsigned long', bytes: 8, note: 'vm_map_ram type, vmap node id' },
];

/** `struct vmap_area` of the maple-rfc profile (spec §11.2.1), 64-bit. */
export const VMAP_AREA_RFC: StructField[] = [
  { name: 'va_start', type: 'unsigned long', bytes: 8, note: 'first address' },
  { name: 'va_end', type: 'unsigned long', bytes: 8, note: 'one past the last address' },
  { name: 'list', type: 'struct list_head', bytes: 16, note: 'pool, purge and lazy lists' },
  { name: 'vm', type: 'struct vm_struct *', bytes: 8, note: 'the vm_struct (no union: no subtree_max_size)' },
  { name: 'flags', type: 'unsigned long', bytes: 8, note: 'VMAP_RAM, VMAP_BLOCK, VA_FROM_BUMP_CHUNK, node id' },
];

export const MAPLE_NODE_BYTES = 256;
export const CHUNK_DESCRIPTOR_BYTES = 128 * 1024 + 64;

/** Each field's offset (naturally aligned 8-byte words: no padding) and the struct's size. */
export function layout(fields: StructField[]): { offsets: number[]; size: number } {
  const offsets: number[] = [];
  let at = 0;
  for (const f of fields) {
    offsets.push(at);
    at += f.bytes;
  }
  return { offsets, size: at };
}

/** One line of the memory table: a label, a count and the bytes it takes. */
export interface MemoryRow {
  key: string;
  label: string;
  count: number;
  each: number;
  bytes: number;
}

/** The rows of the memory table for one state's `IndexMemory` (bytes summing to `indexBytes`). */
export function memoryRows(m: IndexMemory): MemoryRow[] {
  const row = (key: string, label: string, count: number, each: number): MemoryRow => ({ key, label, count, each, bytes: count * each });
  const areas = m.objects - m.freeBlocks;
  return [
    row('areas', 'vmap_area objects of live areas (busy, lazy, pooled)', areas, m.vmapAreaBytes),
    row('free-blocks', 'vmap_area objects of free blocks', m.freeBlocks, m.vmapAreaBytes),
    row('occupied-nodes', 'maple nodes: occupied tree', m.occupiedNodes, MAPLE_NODE_BYTES),
    row('busy-nodes', 'maple nodes: busy trees (one per vmap node)', m.busyTreeNodes, MAPLE_NODE_BYTES),
    row('free-nodes', 'maple nodes: stale free tree', m.freeTreeNodes, MAPLE_NODE_BYTES),
    row('chunks', 'bump chunk descriptors (page_va[16384])', m.chunks, CHUNK_DESCRIPTOR_BYTES),
  ];
}

/** Bytes as text: exact below 10 KiB, else with one decimal in KiB/MiB. */
export function bytesText(b: number): string {
  if (b < 10 * 1024) return `${grouped(b)} B`;
  if (b < 10 * 1024 * 1024) return `${(b / 1024).toFixed(1)} KiB`;
  return `${(b / (1024 * 1024)).toFixed(1)} MiB`;
}

interface Column {
  profile: string;
  memory: IndexMemory | null;
  error: string | null;
}

export class StructPanel {
  readonly root: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly summary: HTMLElement;
  private readonly note: HTMLElement;
  /** The other design's replay of the app's trace (the trace text it was loaded from). */
  private other: { trace: string; profile: string; session: Session | null; raw: Vmapviz | null; error: string | null; offset: number } | null = null;

  constructor(
    private readonly app: AppApi,
    private readonly eras: readonly Era[],
  ) {
    this.table = h('table', { class: 'wb-table wb-struct-memory', 'data-testid': 'struct-memory' });
    this.summary = h('p', { class: 'wb-struct-summary', 'data-testid': 'struct-summary' });
    this.note = h('p', { class: 'wb-muted' });
    this.root = h(
      'div',
      { class: 'wb-struct', 'data-widget': 'struct' },
      h('h3', {}, 'struct vmap_area: 72 bytes in linux-6.9, 48 in maple-rfc'),
      h(
        'p',
        { class: 'wb-muted' },
        'The RFC drops the rbtree node (24 bytes) and the union that held subtree_max_size: the area no longer sits in any tree of its own. Its range is a slot of a maple tree instead, and free space is a NULL range there, not an object. Field by field, 64-bit:',
      ),
      this.structFigure('linux-6.9', VMAP_AREA_69),
      this.structFigure('maple-rfc', VMAP_AREA_RFC),
      this.fieldTable(),
      h('h3', {}, 'What replaces the difference, in the state shown above'),
      this.note,
      this.table,
      this.summary,
    );
  }

  /** A byte ruler: one block per field, as wide as its bytes. */
  private structFigure(profile: string, fields: StructField[]): HTMLElement {
    const { offsets, size } = layout(fields);
    return h(
      'div',
      { class: 'wb-struct-row', 'data-struct': profile, 'data-bytes': size },
      h('span', { class: 'wb-struct-name' }, h('code', {}, profile), ` ${size} B`),
      h(
        'div',
        { class: 'wb-struct-bytes', style: `grid-template-columns: repeat(${size / 8}, minmax(0, 1fr)); width: ${(size / 72) * 100}%` },
        ...fields.map((f, i) =>
          h(
            'div',
            {
              class: `wb-struct-field${f.gone ? ' gone' : ''}`,
              style: `grid-column: span ${f.bytes / 8}`,
              title: `${f.type} ${f.name}: offset ${offsets[i]}, ${f.bytes} bytes: ${f.note}${f.gone ? ' (gone in maple-rfc)' : ''}`,
              'data-field': f.name,
              'data-offset': offsets[i],
              'data-size': f.bytes,
            },
            h('code', {}, f.name),
            h('small', {}, `${f.bytes} B`),
          ),
        ),
      ),
    );
  }

  private fieldTable(): HTMLElement {
    const { offsets: o69 } = layout(VMAP_AREA_69);
    const { offsets: oRfc } = layout(VMAP_AREA_RFC);
    const rfcByName = new Map(VMAP_AREA_RFC.map((f, i) => [f.name, i]));
    const rows = VMAP_AREA_69.map((f, i) => {
      const j = rfcByName.get(f.name) ?? (f.name.endsWith('/ vm') ? rfcByName.get('vm') : undefined);
      return h(
        'tr',
        { 'data-field': f.name },
        h('th', { scope: 'row' }, h('code', {}, f.name)),
        h('td', { class: 'wb-left' }, h('code', {}, f.type)),
        h('td', {}, String(f.bytes)),
        h('td', {}, String(o69[i])),
        h('td', {}, j === undefined ? '—' : String(oRfc[j])),
        h('td', { class: 'wb-left' }, j === undefined ? `${f.note}: gone` : j !== undefined && VMAP_AREA_RFC[j].name !== f.name ? `${f.note}; maple-rfc keeps vm only` : f.note),
      );
    });
    return h(
      'table',
      { class: 'wb-table wb-struct-fields', 'data-testid': 'struct-fields' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'field'), h('th', {}, 'type'), h('th', {}, 'bytes'), h('th', {}, 'offset in 6.9'), h('th', {}, 'offset in maple-rfc'), h('th', {}, 'what for')),
      ),
      h('tbody', {}, ...rows),
    );
  }

  /** The app's trace or step changed (called while the tab is shown). */
  render(memory: IndexMemory | null | undefined, profile: string | null): void {
    const trace = this.app.currentTrace();
    const step = this.app.currentStep();
    const own: Column = { profile: profile ?? defaultProfile(this.eras), memory: memory ?? null, error: memory ? null : 'no vmalloc state' };
    const otherProfile = own.profile === 'maple-rfc' ? 'linux-6.9' : 'maple-rfc';
    const other = this.otherColumn(trace, otherProfile, step);
    const cols = own.profile === 'maple-rfc' ? [other, own] : [own, other];
    this.root.dataset.step = String(step);
    this.note.textContent = `The main view's trace at step ${grouped(step)} (${own.profile}), and the same operations replayed under ${otherProfile}. Each object counts ${own.profile === 'maple-rfc' || otherProfile === 'maple-rfc' ? '72 bytes in the rbtree eras, 48 in maple-rfc' : '72 bytes'}; maple nodes are 256 bytes.`;
    this.renderTable(cols);
  }

  private otherColumn(trace: string, profile: string, step: number): Column {
    if (!this.other || this.other.trace !== trace || this.other.profile !== profile) {
      this.other?.raw?.free();
      const named = traceProfile(trace);
      const o = { trace, profile, session: null as Session | null, raw: null as Vmapviz | null, error: null as string | null, offset: named === null ? 1 : 0 };
      try {
        o.raw = Vmapviz.load(forProfile(trace, profile, eraOf(this.eras, profile)?.bumpOverlay === true));
        o.session = new Session(o.raw);
      } catch (e) {
        o.error = errorMessage(e);
        o.raw?.free();
        o.raw = null;
      }
      this.other = o;
    }
    const o = this.other;
    if (!o.session) return { profile, memory: null, error: o.error ?? 'does not replay' };
    const st = o.session.state(Math.min(step + o.offset, o.session.length));
    return { profile, memory: st.memory ?? null, error: null };
  }

  private renderTable(cols: Column[]): void {
    const head = h(
      'thead',
      {},
      h('tr', {}, h('th', {}, 'at this step'), ...cols.map((c) => h('th', { colspan: 2, 'data-profile': c.profile }, h('code', {}, c.profile)))),
    );
    const rowsOf = cols.map((c) => (c.memory ? memoryRows(c.memory) : null));
    const keys = memoryRows({ vmapAreaBytes: 0, objects: 0, freeBlocks: 0, liveAreas: 0, occupiedNodes: 0, busyTreeNodes: 0, freeTreeNodes: 0, chunks: 0, indexBytes: 0 });
    const body = keys.map((k, i) =>
      h(
        'tr',
        { 'data-row': k.key },
        h('th', { scope: 'row' }, k.label),
        ...cols.flatMap((c, j) => {
          const r = rowsOf[j]?.[i];
          return r
            ? [
                h('td', { 'data-profile': c.profile, 'data-kind': 'count' }, r.count === 0 ? '0' : `${grouped(r.count)} × ${grouped(r.each)} B`),
                h('td', { 'data-profile': c.profile, 'data-kind': 'bytes', 'data-value': r.bytes }, bytesText(r.bytes)),
              ]
            : [h('td', { colspan: 2, class: 'wb-left wb-muted', 'data-profile': c.profile }, i === 0 ? (c.error ?? '—') : '')];
        }),
      ),
    );
    const total = h(
      'tr',
      { 'data-row': 'total', class: 'wb-total' },
      h('th', { scope: 'row' }, 'the index in all'),
      ...cols.flatMap((c) =>
        c.memory
          ? [
              h('td', { 'data-profile': c.profile, 'data-kind': 'count' }, `${grouped(c.memory.liveAreas)} live areas`),
              h('td', { 'data-profile': c.profile, 'data-kind': 'bytes', 'data-value': c.memory.indexBytes }, bytesText(c.memory.indexBytes)),
            ]
          : [h('td', { colspan: 2, 'data-profile': c.profile }, '')],
      ),
    );
    const per = h(
      'tr',
      { 'data-row': 'per-area', class: 'wb-total' },
      h('th', { scope: 'row' }, 'bytes per live area'),
      ...cols.map((c) =>
        h(
          'td',
          { colspan: 2, 'data-profile': c.profile, 'data-kind': 'per-area', 'data-value': c.memory ? bytesPerLiveArea(c.memory).toFixed(1) : '' },
          c.memory ? `${bytesPerLiveArea(c.memory).toFixed(1)} B` : '—',
        ),
      ),
    );
    this.table.replaceChildren(head, h('tbody', {}, ...body, total, per));
    const rfc = cols.find((c) => c.profile === 'maple-rfc')?.memory;
    const tree = cols.find((c) => c.profile !== 'maple-rfc')?.memory;
    if (rfc && tree) {
      const saved = (tree.vmapAreaBytes - rfc.vmapAreaBytes) * rfc.objects;
      const nodes = (rfc.occupiedNodes + rfc.busyTreeNodes + rfc.freeTreeNodes) * MAPLE_NODE_BYTES;
      const freeObjects = tree.freeBlocks * tree.vmapAreaBytes;
      this.summary.textContent =
        `maple-rfc saves ${tree.vmapAreaBytes - rfc.vmapAreaBytes} B on each of its ${grouped(rfc.objects)} objects (${bytesText(saved)}) and keeps no free-block objects ` +
        `(6.9's ${grouped(tree.freeBlocks)} take ${bytesText(freeObjects)}); its maple nodes take ${bytesText(nodes)}` +
        (rfc.chunks ? ` and its ${rfc.chunks} bump chunk descriptor${rfc.chunks === 1 ? '' : 's'} ${bytesText(rfc.chunks * CHUNK_DESCRIPTOR_BYTES)}` : '') +
        `: ${bytesPerLiveArea(rfc).toFixed(1)} against ${bytesPerLiveArea(tree).toFixed(1)} bytes per live area.`;
    } else this.summary.textContent = '';
  }

  dispose(): void {
    this.other?.raw?.free();
    this.other = null;
  }
}
