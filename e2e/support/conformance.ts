// Reading the shared conformance vectors (../shared/conformance, relative to the repo root):
// the trace, and the `dump`/`busy` blocks of its expected output, aligned with the trace's ops.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared/conformance` from the repository root. */
export const CONFORMANCE = fileURLToPath(new URL('../../../shared/conformance', import.meta.url));

/** One `node START END MAX C depth=D` line, as the data attributes of a tree node carry it. */
export interface DumpNode {
  vaStart: string;
  vaEnd: string;
  subtreeMaxSize: string;
  color: 'red' | 'black';
  depth: number;
}

/** One area of a `busy` block: `busy S E`, `busy S E lazy` (5.2) or `lazy S E` (6.1 purge tree). */
export interface BusyLine {
  state: 'busy' | 'lazy';
  vaStart: string;
  vaEnd: string;
}

export interface Check {
  /** 0-based index of the `dump`/`busy` op among the trace's operations. */
  op: number;
  kind: 'dump' | 'busy';
  nodes: DumpNode[];
  areas: BusyLine[];
}

export function readVector(name: string): { trace: string; expected: string } {
  return {
    trace: readFileSync(join(CONFORMANCE, `${name}.trace`), 'utf8'),
    expected: readFileSync(join(CONFORMANCE, `${name}.expected`), 'utf8'),
  };
}

/** The operations of a trace: every line that is not blank or a comment (as the core counts them). */
export function traceOps(trace: string): string[] {
  return trace
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l.length > 0);
}

export function parseNode(line: string): DumpNode {
  const m = /^node (0x[0-9a-f]+) (0x[0-9a-f]+) (0x[0-9a-f]+) ([RB]) depth=(\d+)$/.exec(line.trim());
  if (!m) throw new Error(`not a dump line: ${line}`);
  return { vaStart: m[1], vaEnd: m[2], subtreeMaxSize: m[3], color: m[4] === 'R' ? 'red' : 'black', depth: Number(m[5]) };
}

export function parseBusy(line: string): BusyLine {
  const m = /^(busy|lazy) (0x[0-9a-f]+) (0x[0-9a-f]+)( lazy)?$/.exec(line.trim());
  if (!m) throw new Error(`not a busy line: ${line}`);
  return { state: m[1] === 'lazy' || m[4] ? 'lazy' : 'busy', vaStart: m[2], vaEnd: m[3] };
}

/** Lines each operation prints (dump and busy print a block ending with `end`). */
const ONE_LINE = new Set(['alloc', 'free', 'vfree', 'purge']);

/** Walk the trace's ops and the expected output together; return every dump and busy block. */
export function checks(trace: string, expected: string): Check[] {
  const out = expected.split('\n').filter((l) => l.length > 0 && !l.startsWith('#'));
  let at = 0;
  const result: Check[] = [];
  traceOps(trace).forEach((op, index) => {
    const word = op.split(/\s+/)[0];
    if (word === 'dump' || word === 'busy') {
      const block: string[] = [];
      while (at < out.length && out[at] !== 'end') block.push(out[at++]);
      if (out[at++] !== 'end') throw new Error(`op ${index} (${word}): no \`end\` in the expected output`);
      result.push({
        op: index,
        kind: word,
        nodes: word === 'dump' ? block.map(parseNode) : [],
        areas: word === 'busy' ? block.map(parseBusy) : [],
      });
    } else if (ONE_LINE.has(word)) {
      at++;
    }
  });
  if (at !== out.length) throw new Error(`expected output has ${out.length - at} lines no op accounts for`);
  return result;
}

/** The last dump of an expected output (its `node` lines). */
export function lastDump(expected: string): DumpNode[] {
  const lines = expected.split('\n');
  const end = lines.lastIndexOf('end');
  let start = end;
  while (start > 0 && lines[start - 1].startsWith('node ')) start--;
  return lines.slice(start, end).map(parseNode);
}
