// The style sheets parse as blocks: every rule closed, none closed twice. A rule left open (a
// merge once did it) makes the browser drop every rule after it, silently: the embedded layout
// and the questions lost their styles and only an e2e far away noticed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sheets(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sheets(join(dir, e.name)) : e.name.endsWith('.css') ? [join(dir, e.name)] : [],
  );
}

/** Where the first block is left open or closed twice, or null when every block is closed. */
function unbalanced(css: string): string | null {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/'[^'\n]*'|"[^"\n]*"/g, (q) => ' '.repeat(q.length));
  let line = 1;
  let prelude = '';
  // The open blocks: the line each opened on and whether it is an at-rule (@media, @supports,
  // @keyframes: the only blocks our sheets nest rules in).
  const open: { line: number; at: boolean }[] = [];
  for (const ch of text) {
    if (ch === '\n') line++;
    if (ch === '{') {
      const outer = open[open.length - 1];
      if (outer && !outer.at) return `line ${line}: a rule opened inside the rule of line ${outer.line}, which is never closed`;
      open.push({ line, at: prelude.trim().startsWith('@') });
      prelude = '';
    } else if (ch === '}') {
      if (!open.pop()) return `line ${line}: a block closed twice`;
      prelude = '';
    } else if (ch === ';') prelude = '';
    else prelude += ch;
  }
  return open.length === 0 ? null : `line ${open[open.length - 1].line}: a block never closed`;
}

describe('style sheets', () => {
  const files = sheets(new URL('.', import.meta.url).pathname);
  it('finds them', () => expect(files.length).toBeGreaterThan(3));
  for (const f of files) it(`${f.split('/src/')[1]}: every block closed`, () => expect(unbalanced(readFileSync(f, 'utf8'))).toBeNull());
  it('catches a rule left open', () => {
    expect(unbalanced('a {\n  color: red;\n\nb {\n  color: blue;\n}\n')).toMatch(/line 4: a rule opened inside the rule of line 1, which is never closed/);
    expect(unbalanced('@media (x) {\n a { b: c; }\n}\n')).toBeNull();
    expect(unbalanced("a { content: '}'; }\n/* } */\n")).toBeNull();
    expect(unbalanced('a { b: c; }\n}\n')).toBe('line 2: a block closed twice');
    expect(unbalanced('@media (x) {\n a { b: c; }\n')).toBe('line 1: a block never closed');
  });
});
