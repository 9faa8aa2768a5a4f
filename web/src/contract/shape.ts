// A run-time check of JSON against the generated declarations of contract.ts (written by
// core/wasm/tests/contract.rs from the Rust types). TypeScript's types vanish at run time, so
// this reads the declarations themselves, in the small subset of TypeScript that ts-rs writes
// for our types, and walks a value against one of them. Objects must have exactly the declared
// keys: a field renamed, added or removed on the Rust side, or one whose kind changed (an
// `Addr` that became a number), fails here until contract.ts is regenerated.
//
// Grammar (what ts-rs emits for the contract's types):
//   decl   := 'export' 'type' Name '=' type ';'
//   type   := prim ('|' prim)*
//   prim   := '{' (key ':' type (',' | ';'))* '}' | Name '<' type '>' | '[' type (',' type)* ']'
//           | "literal" | `0x${string}` | number | string | boolean | null | Name
// `/** ... */` comments may stand anywhere between tokens.

export type Shape =
  | { t: 'number' | 'string' | 'boolean' | 'null' | 'hex' }
  | { t: 'literal'; value: string }
  | { t: 'ref'; name: string }
  | { t: 'array'; of: Shape }
  | { t: 'tuple'; of: Shape[] }
  | { t: 'object'; fields: Map<string, Shape> }
  | { t: 'union'; of: Shape[] };

/** Every `export type` of a declarations file, by name. */
export function parseDeclarations(source: string): Map<string, Shape> {
  const tokens = tokenize(source);
  let i = 0;
  const peek = () => tokens[i] ?? '';
  const take = (want?: string): string => {
    const tok = tokens[i++];
    if (tok === undefined || (want !== undefined && tok !== want)) {
      throw new SyntaxError(`contract: expected ${want ?? 'a token'} at token ${i - 1}, got ${tok ?? 'the end'}`);
    }
    return tok;
  };
  const type = (): Shape => {
    const of = [prim()];
    while (peek() === '|') {
      take('|');
      of.push(prim());
    }
    return of.length === 1 ? of[0] : { t: 'union', of };
  };
  const prim = (): Shape => {
    const tok = take();
    if (tok === '{') {
      const fields = new Map<string, Shape>();
      while (peek() !== '}') {
        const key = unquote(take());
        take(':');
        fields.set(key, type());
        if (peek() === ',' || peek() === ';') take();
      }
      take('}');
      return { t: 'object', fields };
    }
    if (tok === '[') {
      const of = [type()];
      while (peek() === ',') {
        take(',');
        of.push(type());
      }
      take(']');
      return { t: 'tuple', of };
    }
    if (tok.startsWith('"')) return { t: 'literal', value: unquote(tok) };
    if (tok === '`0x${string}`') return { t: 'hex' };
    if (tok === 'number' || tok === 'string' || tok === 'boolean' || tok === 'null') return { t: tok };
    if (tok === 'Array') {
      take('<');
      const of = type();
      take('>');
      return { t: 'array', of };
    }
    if (/^[A-Z]\w*$/.test(tok)) return { t: 'ref', name: tok };
    throw new SyntaxError(`contract: unexpected ${tok} at token ${i - 1}`);
  };
  const decls = new Map<string, Shape>();
  while (i < tokens.length) {
    take('export');
    take('type');
    const name = take();
    take('=');
    decls.set(name, type());
    take(';');
  }
  for (const [name, s] of decls) checkRefs(s, decls, name);
  return decls;
}

function unquote(tok: string): string {
  return tok.startsWith('"') ? (JSON.parse(tok) as string) : tok;
}

function tokenize(src: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
    } else if (src.startsWith('/*', i)) {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new SyntaxError('contract: unclosed comment');
      i = end + 2;
    } else if (src.startsWith('//', i)) {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end + 1;
    } else if ('{}[]<>|,:;='.includes(c)) {
      out.push(c);
      i++;
    } else if (c === '"' || c === '`') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new SyntaxError('contract: unclosed string');
      out.push(src.slice(i, end + 1));
      i = end + 1;
    } else {
      const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 64));
      if (!m) throw new SyntaxError(`contract: unexpected character ${JSON.stringify(c)}`);
      out.push(m[0]);
      i += m[0].length;
    }
  }
  return out;
}

function checkRefs(s: Shape, decls: Map<string, Shape>, where: string): void {
  switch (s.t) {
    case 'ref':
      if (!decls.has(s.name)) throw new SyntaxError(`contract: ${where} names ${s.name}, which is not declared`);
      return;
    case 'array':
      return checkRefs(s.of, decls, where);
    case 'tuple':
    case 'union':
      return s.of.forEach((x) => checkRefs(x, decls, where));
    case 'object':
      return s.fields.forEach((x) => checkRefs(x, decls, where));
    default:
      return;
  }
}

/** The hex text of `Addr` and `Hex`: `0x`, 1 to 16 lower-case digits. */
const HEX = /^0x[0-9a-f]{1,16}$/;

/**
 * Why `value` does not have the shape `s` (null if it does); `at` is the path so far. For a
 * union of objects told apart by a `"kind"` literal, the member whose kind matches explains.
 */
export function mismatch(value: unknown, s: Shape, decls: Map<string, Shape>, at = '$'): string | null {
  switch (s.t) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : `${at}: expected a number, got ${show(value)}`;
    case 'string':
    case 'boolean':
      return typeof value === s.t ? null : `${at}: expected a ${s.t}, got ${show(value)}`;
    case 'null':
      return value === null ? null : `${at}: expected null, got ${show(value)}`;
    case 'hex':
      return typeof value === 'string' && HEX.test(value) ? null : `${at}: expected "0x…" hex text, got ${show(value)}`;
    case 'literal':
      return value === s.value ? null : `${at}: expected ${JSON.stringify(s.value)}, got ${show(value)}`;
    case 'ref':
      return mismatch(value, decls.get(s.name)!, decls, at);
    case 'array':
      if (!Array.isArray(value)) return `${at}: expected an array, got ${show(value)}`;
      for (let i = 0; i < value.length; i++) {
        const m = mismatch(value[i], s.of, decls, `${at}[${i}]`);
        if (m) return m;
      }
      return null;
    case 'tuple':
      if (!Array.isArray(value) || value.length !== s.of.length) return `${at}: expected a ${s.of.length}-tuple, got ${show(value)}`;
      for (let i = 0; i < value.length; i++) {
        const m = mismatch(value[i], s.of[i], decls, `${at}[${i}]`);
        if (m) return m;
      }
      return null;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at}: expected an object, got ${show(value)}`;
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o)) if (!s.fields.has(k)) return `${at}: unexpected field "${k}" (not in contract.ts)`;
      for (const [k, f] of s.fields) {
        if (!(k in o)) return `${at}: missing field "${k}"`;
        const m = mismatch(o[k], f, decls, `${at}.${k}`);
        if (m) return m;
      }
      return null;
    }
    case 'union': {
      const errors = s.of.map((x) => mismatch(value, x, decls, at));
      if (errors.some((e) => e === null)) return null;
      const kind = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).kind : undefined;
      const tagged = s.of.findIndex((x) => {
        const r = x.t === 'ref' ? decls.get(x.name)! : x;
        return r.t === 'object' && r.fields.get('kind')?.t === 'literal' && (r.fields.get('kind') as { value: string }).value === kind;
      });
      return tagged >= 0 ? errors[tagged] : `${at}: matches no member of the union (${errors.join('; ')})`;
    }
  }
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
