// The docs' links and images lead somewhere: every relative link or image in README.md,
// BENCHMARKS.md and docs/*.md names a file of the repository, and every `#anchor` into a
// Markdown file (the same one or another) names one of its headings, as GitHub makes them.
// Links to the web (http:, https:, mailto:) are not fetched.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The text outside fenced code blocks and inline code spans, line for line (so line numbers hold). */
function prose(md: string): string[] {
  let fence: string | null = null;
  return md.split('\n').map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
      return '';
    }
    if (open) {
      fence = open[1];
      return '';
    }
    return line.replace(/(`+)[\s\S]*?\1/g, (c) => ' '.repeat(c.length));
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text defines: one per heading (repeats get -1, -2, ...), and explicit ids. */
export function anchors(md: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
      continue;
    }
    if (open) {
      fence = open[1];
      continue;
    }
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

/** Every link or image target in a Markdown text, with its line: inline, reference definitions, and HTML src/href. */
export function targets(md: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(md).forEach((text, i) => {
    const add = (t: string) => out.push({ line: i + 1, target: t.trim().replace(/^<(.*)>$/, '$1') });
    for (const m of text.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\s*\)/g)) add(m[1]);
    const def = /^\s{0,3}\[[^\]]+\]:\s*(\S+)/.exec(text);
    if (def) add(def[1]);
    for (const m of text.matchAll(/\s(?:src|href)="([^"]*)"/g)) add(m[1]);
  });
  return out;
}

/** How the check sees files: the disk, or a few files in memory for its own test. */
interface Files {
  read(path: string): string;
  exists(path: string): boolean;
  isFile(path: string): boolean;
}

const DISK: Files = {
  read: (p) => readFileSync(p, 'utf8'),
  exists: (p) => existsSync(p),
  isFile: (p) => statSync(p).isFile(),
};

/** What is wrong with the links of `file` (a path under `root`), one message per dead link. */
export function deadLinks(root: string, file: string, fs: Files = DISK): string[] {
  const md = fs.read(file);
  const errors: string[] = [];
  const where = (line: number) => `${relative(root, file)}:${line}`;
  for (const { line, target } of targets(md)) {
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const dest = path === '' ? file : resolve(dirname(file), path);
    if (dest !== root && !dest.startsWith(root + sep)) {
      errors.push(`${where(line)}: ${target} leads out of the repository`);
      continue;
    }
    if (!fs.exists(dest)) {
      errors.push(`${where(line)}: ${target}: no such file`);
      continue;
    }
    if (anchor !== null && dest.endsWith('.md') && fs.isFile(dest) && !anchors(fs.read(dest)).has(anchor)) {
      errors.push(`${where(line)}: ${target}: no heading makes #${anchor} in ${relative(root, dest)}`);
    }
  }
  return errors;
}

function docs(): string[] {
  const dir = join(ROOT, 'docs');
  const inDocs = readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => join(dir, f));
  return [join(ROOT, 'README.md'), join(ROOT, 'BENCHMARKS.md'), ...inDocs];
}

describe('the docs link only to what exists', () => {
  it('finds the docs', () => {
    const files = docs().map((f) => relative(ROOT, f));
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'using.md'));
  });

  for (const file of docs()) {
    it(`${relative(ROOT, file)}: every relative link, image and anchor resolves`, () => {
      expect(deadLinks(ROOT, file)).toEqual([]);
    });
  }
});

describe('the link check itself', () => {
  const root = '/repo';
  const files: Record<string, string> = {
    '/repo/README.md': [
      '# Title',
      '## The core against the kernel’s C (x)',
      '![shot](docs/shot.png) [guide](docs/guide.md#keys) [gone](docs/gone.md) [far](../elsewhere.md)',
      '[self](#title) [bad self](#nope) [web](https://example.org/x) [ok anchor](#the-core-against-the-kernels-c-x)',
      '[missing image]: docs/missing.png',
      '```sh',
      '[in code](docs/none.md)',
      '```',
      'and `[inline](docs/none.md)` too; [wrong anchor](docs/guide.md#mouse)',
    ].join('\n'),
    '/repo/docs/guide.md': '# Guide\n\n## Keys\n\n## Keys\n',
    '/repo/docs/shot.png': '',
  };
  const mem: Files = {
    read: (p) => {
      if (!(p in files)) throw new Error(`no ${p}`);
      return files[p];
    },
    exists: (p) => p in files || Object.keys(files).some((f) => f.startsWith(p + '/')),
    isFile: (p) => p in files,
  };

  it('makes anchors as GitHub does', () => {
    expect(slug('Round 11: the lowest match’s answer in a register')).toBe('round-11-the-lowest-matchs-answer-in-a-register');
    expect(slug('`pcpu_get_vm_areas` against linux-6.9')).toBe('pcpu_get_vm_areas-against-linux-69');
    expect([...anchors(files['/repo/docs/guide.md'])]).toEqual(['guide', 'keys', 'keys-1']);
  });

  it('finds every target outside code, with its line', () => {
    expect(targets(files['/repo/README.md']).map((t) => `${t.line}:${t.target}`)).toEqual([
      '3:docs/shot.png',
      '3:docs/guide.md#keys',
      '3:docs/gone.md',
      '3:../elsewhere.md',
      '4:#title',
      '4:#nope',
      '4:https://example.org/x',
      '4:#the-core-against-the-kernels-c-x',
      '5:docs/missing.png',
      '9:docs/guide.md#mouse',
    ]);
  });

  it('reports each dead link, image and anchor, and only those', () => {
    expect(deadLinks(root, '/repo/README.md', mem)).toEqual([
      'README.md:3: docs/gone.md: no such file',
      'README.md:3: ../elsewhere.md leads out of the repository',
      'README.md:4: #nope: no heading makes #nope in README.md',
      'README.md:5: docs/missing.png: no such file',
      'README.md:9: docs/guide.md#mouse: no heading makes #mouse in docs/guide.md',
    ]);
    expect(deadLinks(root, '/repo/docs/guide.md', mem)).toEqual([]);
  });
});
