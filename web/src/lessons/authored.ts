// A lesson a lecturer writes: stops saved on micro-steps of any trace, each claiming the core's
// event there, with the traces' text. It travels as one link (`#lesson=authored.<base64url of
// the deflate-raw JSON>`) or as a JSON file. This module packs, unpacks and checks the shape of
// that JSON; authoredCheck.ts checks its claims against the core. Every refusal is a typed error
// with a plain message, never a throw.
import type { AskKind } from './question';

export const AUTHORED_FORMAT = 'vmapviz-lesson';
export const AUTHORED_VERSION = 1;
/** A lesson id (and link) that carries an authored lesson: the prefix, then the packed JSON. */
export const AUTHORED_PREFIX = 'authored.';
/** The lesson's JSON at most, unpacked (a link's or a file's). */
export const MAX_JSON = 256 * 1024;
/** A link's packed part at most: MAX_JSON stored (deflate's worst case), in base64. */
export const MAX_PACKED = 4 * Math.ceil((MAX_JSON + 2048) / 3);
export const MAX_STOPS = 64;
const MAX_TRACES = 16;
export const MAX_TITLE = 120;
export const MAX_TEXT = 600;
const ASK_KINDS: readonly AskKind[] = ['land', 'visit', 'store', 'slot'];

export type Scalar = string | number | boolean | null;

/** A stop as written: where it sits, the event it claims, and its question with the core's answer. */
export interface AuthoredStop {
  title: string;
  text: string;
  /** The trace's name in the lesson's `traces`. */
  trace: string;
  /** The operation (from 0, as a lesson's `at`) and its micro-step (from 0). */
  op: number;
  frame: number;
  /** The core's event there: its tag (the maple tree's own when wrapped) and its scalar fields. */
  claim: { event: string; where: Record<string, Scalar> };
  /** A question (question.ts) and the answer the core gave when the stop was saved. */
  ask?: { ask: AskKind; nth: number; answer: Record<string, Scalar> };
}

export interface AuthoredLesson {
  format: typeof AUTHORED_FORMAT;
  version: number;
  title: string;
  traces: Record<string, string>;
  stops: AuthoredStop[];
}

export type AuthoredErrorKind = 'base64' | 'deflate' | 'size' | 'json' | 'shape' | 'version' | 'replay' | 'claim';

/** Why a lesson is refused: the kind of fault and a sentence saying it. */
export interface AuthoredError {
  error: AuthoredErrorKind;
  message: string;
}

export function isAuthoredError(x: unknown): x is AuthoredError {
  return typeof x === 'object' && x !== null && 'error' in x && 'message' in x;
}

function fail(error: AuthoredErrorKind, message: string): AuthoredError {
  return { error, message };
}

/** At most 24 characters of a value, quoted. */
export function quote(v: unknown): string {
  const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);
}

const KB = (n: number) => `${Math.ceil(n / 1024)} KB`;

// ---------- the link ----------

/** The link's part after `authored.`: the lesson's JSON, deflated, in base64url. */
export async function packLesson(doc: AuthoredLesson): Promise<string | AuthoredError> {
  const json = new TextEncoder().encode(JSON.stringify(doc));
  if (json.length > MAX_JSON) return fail('size', `The lesson is ${KB(json.length)}, more than the ${KB(MAX_JSON)} a lesson can hold (its traces' text counts).`);
  const packed = await readAll(new Blob([json as BlobPart]).stream().pipeThrough(new CompressionStream('deflate-raw')), Infinity);
  return toBase64url(packed as Uint8Array);
}

/** A packed lesson read back: its shape checked (not yet its claims: authoredCheck.ts). */
export async function unpackLesson(packed: string): Promise<AuthoredLesson | AuthoredError> {
  if (packed.length > MAX_PACKED) return fail('size', `The lesson's link is ${packed.length} characters, more than a lesson of ${KB(MAX_JSON)} needs.`);
  const bad = /[^A-Za-z0-9_-]/.exec(packed);
  if (bad) return fail('base64', `The lesson's link is not base64url: ${quote(bad[0])} at character ${bad.index + 1}.`);
  if (packed.length === 0 || packed.length % 4 === 1) return fail('base64', `The lesson's link is not base64url: ${packed.length} characters cannot be a whole number of bytes.`);
  const bytes = fromBase64url(packed);
  let json: Uint8Array | null;
  try {
    json = await readAll(new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('deflate-raw')), MAX_JSON);
  } catch (e) {
    return fail('deflate', `The lesson's link does not unpack: it is not deflate-raw data (${e instanceof Error ? e.message : String(e)}).`);
  }
  if (json === null) return fail('size', `The lesson's link unpacks to more than ${KB(MAX_JSON)}: refused.`);
  return parseBytes(json);
}

/** A lesson's JSON file (its bytes), its shape checked. */
export function parseLessonFile(bytes: Uint8Array): AuthoredLesson | AuthoredError {
  if (bytes.length > MAX_JSON) return fail('size', `The file is ${KB(bytes.length)}, more than the ${KB(MAX_JSON)} a lesson can hold.`);
  return parseBytes(bytes);
}

function parseBytes(bytes: Uint8Array): AuthoredLesson | AuthoredError {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('json', 'The lesson is not UTF-8 text.');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return fail('json', `The lesson is not JSON: ${e instanceof Error ? e.message.slice(0, 120) : 'it does not parse'}.`);
  }
  return checkShape(v);
}

/** The bytes a stream gives, or null past `limit` (the stream is then cancelled: no bomb unpacks). */
async function readAll(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > limit) {
      reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function toBase64url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// ---------- the shape ----------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.trim().length > 0 && v.length <= max;

/** The fields of a claim or an answer: at most 32, each a short scalar. */
function scalars(v: unknown): string | null {
  if (!isObj(v)) return 'is not an object';
  const entries = Object.entries(v);
  if (entries.length > 32) return `has ${entries.length} fields (at most 32)`;
  for (const [k, x] of entries) {
    const ok = x === null || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)) || (typeof x === 'string' && x.length <= 64);
    if (!ok || k.length > 32) return `has a field ${quote(k)} that is not a short number, word or flag`;
  }
  return null;
}

/** A parsed JSON value as an authored lesson, or what is wrong with its shape. */
export function checkShape(v: unknown): AuthoredLesson | AuthoredError {
  const shape = (m: string) => fail('shape', `The lesson's JSON is not a lesson: ${m}.`);
  if (!isObj(v)) return shape('it is not an object');
  if (v.format !== AUTHORED_FORMAT) return shape(`its "format" is ${quote(v.format ?? 'missing')}, not "${AUTHORED_FORMAT}"`);
  if (v.version !== AUTHORED_VERSION) return fail('version', `The lesson is of schema version ${quote(v.version ?? 'none')}; this page reads version ${AUTHORED_VERSION}.`);
  if (!isText(v.title, MAX_TITLE)) return shape(`its "title" is not a text of 1 to ${MAX_TITLE} characters`);
  if (!isObj(v.traces)) return shape('its "traces" is not an object of named traces');
  const names = Object.keys(v.traces);
  if (names.length === 0 || names.length > MAX_TRACES) return shape(`it has ${names.length} traces (1 to ${MAX_TRACES})`);
  for (const n of names) {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(n)) return shape(`the trace name ${quote(n)} is not a short word`);
    if (typeof v.traces[n] !== 'string' || (v.traces[n] as string).trim() === '') return shape(`the trace ${quote(n)} is not a trace's text`);
  }
  if (!Array.isArray(v.stops) || v.stops.length === 0 || v.stops.length > MAX_STOPS) return shape(`its "stops" is not a list of 1 to ${MAX_STOPS} stops`);
  const stops: AuthoredStop[] = [];
  for (const [i, s] of (v.stops as unknown[]).entries()) {
    const at = `stop ${i + 1}`;
    if (!isObj(s)) return shape(`${at} is not an object`);
    const named = isText(s.title, MAX_TITLE) ? `${at} (${quote(s.title)})` : at;
    if (!isText(s.title, MAX_TITLE)) return shape(`${at}'s "title" is not a text of 1 to ${MAX_TITLE} characters`);
    if (!isText(s.text, MAX_TEXT)) return shape(`${named}'s "text" is not a text of 1 to ${MAX_TEXT} characters`);
    if (typeof s.trace !== 'string' || !names.includes(s.trace)) return shape(`${named} names the trace ${quote(s.trace ?? 'none')}, which the lesson does not carry`);
    if (!isInt(s.op, 10_000_000)) return shape(`${named}'s "op" is not a whole number from 0`);
    if (!isInt(s.frame, 10_000_000)) return shape(`${named}'s "frame" is not a whole number from 0`);
    const c = s.claim;
    if (!isObj(c) || typeof c.event !== 'string' || !/^[a-z_]{1,40}$/.test(c.event)) return shape(`${named}'s "claim" has no event tag`);
    const w = scalars(c.where);
    if (w) return shape(`${named}'s claim ${w}`);
    const stop: AuthoredStop = { title: s.title, text: s.text, trace: s.trace, op: s.op, frame: s.frame, claim: { event: c.event, where: c.where as Record<string, Scalar> } };
    if (s.ask !== undefined) {
      const q = s.ask;
      if (!isObj(q) || !ASK_KINDS.includes(q.ask as AskKind)) return shape(`${named}'s question is not one of ${ASK_KINDS.join(', ')}`);
      if (!isInt(q.nth, 999)) return shape(`${named}'s question's "nth" is not a whole number from 0`);
      const a = scalars(q.answer);
      if (a) return shape(`${named}'s question's answer ${a}`);
      stop.ask = { ask: q.ask as AskKind, nth: q.nth, answer: q.answer as Record<string, Scalar> };
    }
    stops.push(stop);
  }
  return { format: AUTHORED_FORMAT, version: AUTHORED_VERSION, title: v.title, traces: v.traces as Record<string, string>, stops };
}
