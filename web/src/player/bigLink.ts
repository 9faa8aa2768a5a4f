// A link whose trace holds more operations than the player keeps (LARGE_OPS, as for an import)
// opens in the workbench's large-trace navigator: the player keeps about 7.5 KB per operation,
// and a 143 KB `#z=` link of 555,000 allocations grew the page to 4 GB. This module, loaded
// only for a long link, reads the link off the main thread (web/src/workers/linkRead.ts) and
// words what the page says about it.
import { errorMessage } from '../bridge';
import type { StepRef } from '../permalink';
import type { Workbench } from '../panels';
import { LARGE_OPS } from '../panels/limits';
import { readText, type LinkRead } from '../workers/linkRead';

export type { LinkRead };

export class LinkCancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

const n = (x: number) => x.toLocaleString('en-US');

/**
 * Where a link's trace opens. A `#z=` text is decompressed and counted in the link worker; a
 * plain trace (at most the 2 MB of an address) is counted here, in a few milliseconds.
 */
export function readLink(src: { z: string } | { text: string }, largeOps: number, signal: AbortSignal): Promise<LinkRead> {
  if ('text' in src) return Promise.resolve(readText(src.text, largeOps, false));
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('../workers/link.worker.ts', import.meta.url), { type: 'module', name: 'vmapviz-link' });
    signal.addEventListener('abort', () => {
      w.terminate();
      reject(new LinkCancelled());
    });
    w.onmessage = (e: MessageEvent<LinkRead>) => {
      w.terminate();
      resolve(e.data);
    };
    w.onerror = (e) => {
      e.preventDefault();
      w.terminate();
      reject(new Error(`the link worker stopped (${e.message || 'out of memory?'})`));
    };
    w.postMessage({ z: src.z, largeOps });
  });
}

/** Said before the navigator starts. */
export function intro(ops: number, largeOps: number): string {
  return `The link's trace has ${n(ops)} operations, more than the player holds (${n(largeOps)}): opening it in the large-trace navigator…`;
}

/** The progress line while the navigator's worker reads and replays it. */
export function progress(ops: number, largeOps: number, done: number, total: number): string {
  return `${intro(ops, largeOps)} replayed ${n(done)} / ${n(total)}`;
}

/** Said once it is open; `standIn`: the player shows the default scenario (a first load). */
export function opened(total: number, largeOps: number, step: number, standIn: boolean): string {
  return (
    `The link's trace has ${n(total)} operations, more than the player holds (${n(largeOps)}): it is open in the ` +
    `large-trace navigator (the workbench's “Large trace” tab, below) at step ${n(step)}. ` +
    (standIn ? 'The player shows the default scenario.' : 'The player keeps the trace it showed.')
  );
}

/** A message of any length cut to one readable line. */
export function bounded(msg: string, max = 300): string {
  return msg.length <= max ? msg : `${msg.slice(0, max)}… (${n(msg.length)} characters)`;
}

/** What the app lends the opening (web/src/app.ts `openBig`). */
export interface BigHost {
  /** Still the opening the page waits for (not cancelled, not replaced by another link). */
  live(): boolean;
  /** The progress line. */
  label: HTMLElement;
  /** Open a trace the player holds, as any link. */
  player(text: string): void;
  /**
   * Say how it ended: open in the navigator (`open`), or not opened (the page keeps what it
   * showed, or opens the default scenario).
   */
  end(msg: string, open: boolean): void;
  /**
   * The workbench, loaded if it is not yet; before it, on a first load, the default scenario in
   * the player (then the first of the pair is true).
   */
  workbench(): [boolean, Promise<Workbench> | null];
}

/** Read the link, then open it where it fits. */
export async function openBig(host: BigHost, src: { z: string } | { text: string }, step: StepRef, signal: AbortSignal): Promise<void> {
  try {
    const r = await readLink(src, LARGE_OPS, signal);
    if (!host.live()) return;
    if (r.kind === 'small') return host.player(r.text);
    if (r.kind === 'refused') return host.end(r.message, false);
    host.label.textContent = intro(r.ops, LARGE_OPS);
    const [standIn, bench] = host.workbench();
    const wb = await bench;
    if (!host.live()) return;
    if (!wb) return host.end('This page has no large-trace navigator: the link is not opened.', false);
    const source = r.bytes ? { kind: 'link' as const, bytes: r.bytes } : { kind: 'text' as const, text: 'text' in src ? src.text : '' };
    const o = await wb.openLink(source, step, (d, t) => host.live() && (host.label.textContent = progress(r.ops, LARGE_OPS, d, t)), signal);
    if (!host.live()) return;
    if (o.text !== null) host.player(o.text);
    else host.end(opened(o.total, LARGE_OPS, o.step, standIn), true);
  } catch (e) {
    if (host.live()) host.end(`Could not load the trace from the link: ${bounded(errorMessage(e))}`, false);
  }
}
