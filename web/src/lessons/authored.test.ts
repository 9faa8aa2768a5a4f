// A lecturer's lesson: its link's codec (round trip; every kind of bad input refused with its
// message; size limits and a decompression bomb) and its check against the core (a tampered
// claim, answer, micro-step or trace refused, naming the stop). Expected values are written by
// hand from the kernel's rules on a small trace, and the bad inputs are packed with node:zlib,
// not with the code under test.
import { readFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorMessage, Session } from '../bridge';
import { MapleSession } from '../maple/bridge';
import { initSync, isMapleTrace, MapleView, Vmapviz } from '../pkg-workbench/vmapviz_wasm.js';
import type { AnyEvent, EventSource } from '../player/events';
import { checkShape, MAX_JSON, MAX_PACKED, packLesson, parseLessonFile, unpackLesson, type AuthoredLesson } from './authored';
import { checkAuthored, claimOf, offersAt, type Replay } from './authoredCheck';

beforeAll(() => {
  initSync({ module: readFileSync(new URL('../pkg-workbench/vmapviz_wasm_bg.wasm', import.meta.url)) });
});

// One free block [0x10000, 0x30000); op 0 is the profile line, op 1 the init.
const FITS = [
  'profile linux-5.2',
  'init 0x10000 0x30000',
  'alloc 0x1000 0x1000 0x10000 0x30000', // op 2: LE at 0x10000
  'alloc 0x1000 0x1000 0x2f000 0x30000', // op 3: RE at 0x2f000
  'alloc 0x1000 0x10000 0x10000 0x30000', // op 4: NE, 64 KiB aligned: 0x20000 inside [0x11000, 0x2f000)
].join('\n');

const replay: Replay = (_name, text) => {
  try {
    const s = isMapleTrace(text) ? new MapleSession(MapleView.load(text)) : new Session(Vmapviz.load(text));
    return { length: s.length, events: (op) => (s.frames(op)?.frames ?? []).map((f) => f.event as AnyEvent) };
  } catch (e) {
    return { error: errorMessage(e) };
  }
};

const src = () => replay('fits', FITS) as EventSource;
/** The micro-step of operation `op` whose event has this tag (the test finds it; the values it checks are hand-written). */
const frameOf = (op: number, tag: string) => src().events(op).findIndex((e) => e.kind === tag);

/** base64url of bytes, written out here (not the module's). */
const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const packRaw = (text: string | Buffer) => b64u(deflateRawSync(typeof text === 'string' ? Buffer.from(text) : text));

function lesson(): AuthoredLesson {
  const ne = frameOf(4, 'fit');
  const le = frameOf(2, 'fit');
  return {
    format: 'vmapviz-lesson',
    version: 1,
    title: 'Fits, my way',
    traces: { t1: FITS },
    stops: [
      {
        title: 'Where does the aligned page go?',
        text: 'A 64 KiB alignment. The block splits.',
        trace: 't1',
        op: 4,
        frame: ne,
        claim: { event: 'fit', where: { fit: 'NE', va_start: '0x11000', va_end: '0x2f000' } },
        ask: { ask: 'land', nth: 0, answer: { start: '0x20000', end: '0x21000' } },
      },
      { title: 'LE', text: 'The block shrinks from the left.', trace: 't1', op: 2, frame: le, claim: { event: 'fit', where: { fit: 'LE', va_start: '0x10000' } } },
    ],
  };
}

describe('the link', () => {
  it('round-trips a lesson, in base64url', async () => {
    const doc = lesson();
    const packed = await packLesson(doc);
    expect(typeof packed).toBe('string');
    expect(packed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await unpackLesson(packed as string)).toEqual(doc);
    // node:zlib reads it as deflate-raw of the JSON.
    expect(JSON.parse(inflateRawSync(Buffer.from(packed as string, 'base64url')).toString())).toEqual(doc);
  });

  it('reads a lesson node:zlib packed', async () => {
    expect(await unpackLesson(packRaw(JSON.stringify(lesson())))).toEqual(lesson());
  });

  it('refuses what is not base64url, naming the character', async () => {
    expect(await unpackLesson('abc$def')).toEqual({ error: 'base64', message: 'The lesson\'s link is not base64url: "$" at character 4.' });
    expect(await unpackLesson('abc+')).toMatchObject({ error: 'base64', message: expect.stringContaining('"+" at character 4') });
    expect(await unpackLesson('abcde')).toMatchObject({ error: 'base64', message: expect.stringContaining('5 characters') });
    expect(await unpackLesson('')).toMatchObject({ error: 'base64' });
  });

  it('refuses what is not deflate-raw data, or is cut short', async () => {
    // 0xff: a block of the reserved type 3.
    expect(await unpackLesson(b64u(new Uint8Array([0xff, 0xff, 0xff, 0xff])))).toMatchObject({ error: 'deflate', message: expect.stringMatching(/^The lesson's link does not unpack: it is not deflate-raw data/) });
    const whole = packRaw(JSON.stringify(lesson()));
    expect(await unpackLesson(whole.slice(0, 40))).toMatchObject({ error: 'deflate' });
  });

  it('refuses text that is not JSON, not UTF-8, or not a lesson', async () => {
    expect(await unpackLesson(packRaw('{"format": "vmapviz-lesson",'))).toMatchObject({ error: 'json', message: expect.stringMatching(/^The lesson is not JSON: /) });
    expect(await unpackLesson(packRaw(Buffer.from([0x7b, 0xff, 0x7d])))).toEqual({ error: 'json', message: 'The lesson is not UTF-8 text.' });
    expect(await unpackLesson(packRaw('[1, 2]'))).toEqual({ error: 'shape', message: 'The lesson\'s JSON is not a lesson: it is not an object.' });
  });

  it('refuses over 256 KB unpacked, and a bomb, without unpacking it all', async () => {
    expect(MAX_JSON).toBe(262_144);
    const big = { ...lesson(), traces: { t1: FITS + '\n#' + 'x'.repeat(300_000) } };
    expect(await unpackLesson(packRaw(JSON.stringify(big)))).toEqual({ error: 'size', message: 'The lesson\'s link unpacks to more than 256 KB: refused.' });
    // 64 MB of zeros packs to about 64 KB.
    const bomb = packRaw(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(MAX_PACKED);
    const t0 = performance.now();
    expect(await unpackLesson(bomb)).toMatchObject({ error: 'size' });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(await unpackLesson('A'.repeat(MAX_PACKED + 1))).toMatchObject({ error: 'size', message: expect.stringContaining(`${MAX_PACKED + 1} characters`) });
    expect(await packLesson(big)).toMatchObject({ error: 'size', message: expect.stringMatching(/^The lesson is 29\d KB, more than the 256 KB/) });
    expect(parseLessonFile(new Uint8Array(MAX_JSON + 1))).toEqual({ error: 'size', message: 'The file is 257 KB, more than the 256 KB a lesson can hold.' });
  });
});

describe('the shape', () => {
  const with_ = (f: (d: Record<string, unknown> & { stops: Record<string, unknown>[] }) => void) => {
    const d = JSON.parse(JSON.stringify(lesson())) as Record<string, unknown> & { stops: Record<string, unknown>[] };
    f(d);
    return checkShape(d);
  };
  it('names what is wrong, and the stop', () => {
    expect(with_((d) => delete d.format)).toEqual({ error: 'shape', message: 'The lesson\'s JSON is not a lesson: its "format" is "missing", not "vmapviz-lesson".' });
    expect(with_((d) => (d.version = 2))).toEqual({ error: 'version', message: 'The lesson is of schema version "2"; this page reads version 1.' });
    expect(with_((d) => (d.stops = []))).toMatchObject({ error: 'shape', message: expect.stringContaining('"stops" is not a list of 1 to 64 stops') });
    expect(with_((d) => (d.stops[1].trace = 't9'))).toEqual({ error: 'shape', message: 'The lesson\'s JSON is not a lesson: stop 2 ("LE") names the trace "t9", which the lesson does not carry.' });
    expect(with_((d) => (d.stops[0].op = -1))).toMatchObject({ error: 'shape', message: expect.stringContaining('stop 1 ("Where does the aligned p…")\'s "op" is not a whole number from 0') });
    expect(with_((d) => (d.stops[1].frame = 1.5))).toMatchObject({ error: 'shape', message: expect.stringContaining('"frame" is not a whole number') });
    expect(with_((d) => (d.stops[0].ask = { ask: 'guess', nth: 0, answer: {} }))).toMatchObject({ error: 'shape', message: expect.stringContaining('question is not one of land, visit, store, slot') });
    expect(with_((d) => (d.stops[1].claim = { event: 'fit', where: { a: { b: 1 } } }))).toMatchObject({ error: 'shape', message: expect.stringContaining('claim has a field "a" that is not') });
    expect(with_((d) => (d.stops[1].title = ''))).toMatchObject({ error: 'shape', message: expect.stringContaining('stop 2\'s "title" is not a text') });
  });
});

describe('against the core', () => {
  it('reads a micro-step into a claim and the questions answered there', () => {
    const ne = frameOf(4, 'fit');
    const claim = claimOf(src().events(4)[ne]);
    expect(claim.event).toBe('fit');
    expect(claim.where).toMatchObject({ fit: 'NE', va_start: '0x11000', va_end: '0x2f000', nva: '0x20000', size: '0x1000' });
    // The fit decides where the request lands: [0x20000, 0x21000).
    expect(offersAt(src(), 4, ne).map((o) => [o.ask, o.nth, o.answer])).toEqual([['land', 0, { start: '0x20000', end: '0x21000' }]]);
    // The micro-step before the fit answers no question about landing.
    expect(offersAt(src(), 4, ne - 1).some((o) => o.ask === 'land')).toBe(false);
  });

  it('plays a lesson whose claims hold, as the built-in lessons', () => {
    const l = checkAuthored(lesson(), 'PACKED', replay);
    expect('error' in l).toBe(false);
    if ('error' in l) return;
    expect(l.id).toBe('authored.PACKED');
    expect(l.stops.map((s) => [s.at, s.claim, s.ask ?? null])).toEqual([
      [{ op: 4, frame: frameOf(4, 'fit') }, { kind: 'fit', where: { fit: 'NE', va_start: '0x11000', va_end: '0x2f000' } }, { ask: 'land', nth: 0 }],
      [{ op: 2, frame: frameOf(2, 'fit') }, { kind: 'fit', where: { fit: 'LE', va_start: '0x10000' } }, null],
    ]);
    expect(l.stops[0].look).toEqual(['tree', 'bar', 'narration']);
  });

  const refuse = (f: (d: AuthoredLesson) => void) => {
    const d = lesson();
    f(d);
    return checkAuthored(d, 'P', replay);
  };

  it('refuses a tampered claim, naming the stop and what differs', () => {
    expect(refuse((d) => (d.stops[0].claim.where.fit = 'LE'))).toMatchObject({
      error: 'claim',
      message: 'Stop 1 ("Where does the aligned p…"): the stop claims fit "LE" but the core\'s fit event there has fit "NE".',
    });
    expect(refuse((d) => Object.assign(d.stops[1].claim.where, { va_start: '0x20000', size: '0x1000' }))).toMatchObject({
      message: 'Stop 2 ("LE"): the stop claims va_start "0x20000" but the core\'s fit event there has va_start "0x10000".',
    });
    expect(refuse((d) => (d.stops[1].claim.where.extra = 1))).toMatchObject({ message: 'Stop 2 ("LE"): the stop claims extra 1 but the core\'s fit event there has extra none.' });
    expect(refuse((d) => (d.stops[1].claim.event = 'rotate'))).toMatchObject({ error: 'claim', message: expect.stringMatching(/^Stop 2 \("LE"\): the stop claims a rotate event but the core's event there is \{"kind":"fit"/) });
  });

  it('refuses an answer that is not the core\'s', () => {
    expect(refuse((d) => (d.stops[0].ask!.answer = { start: '0x11000', end: '0x12000' }))).toEqual({
      error: 'claim',
      message: 'Stop 1 ("Where does the aligned p…"): its question\'s answer is {"start":"0x11000","end":"0x12000"} but the core\'s is {"start":"0x20000","end":"0x21000"}.',
    });
    expect(refuse((d) => (d.stops[1].ask = { ask: 'store', nth: 0, answer: { store: 'wr_append' } }))).toMatchObject({ error: 'claim', message: expect.stringContaining('Stop 2 ("LE"): its question cannot be answered: operation 3 has no event that answers a "store" question') });
  });

  it('refuses an operation or micro-step out of range, and a trace that does not replay', () => {
    expect(refuse((d) => (d.stops[1].op = 99))).toEqual({ error: 'claim', message: 'Stop 2 ("LE"): operation 100 is past the trace\'s 5.' });
    expect(refuse((d) => (d.stops[1].frame = 500))).toMatchObject({ error: 'claim', message: expect.stringMatching(/^Stop 2 \("LE"\): operation 3 has \d+ micro-steps, not 501\.$/) });
    expect(refuse((d) => (d.traces.t1 = 'profile linux-5.2\nalloc zz'))).toMatchObject({ error: 'replay', message: expect.stringMatching(/^Stop 1 \("Where does the aligned p…"\): its trace does not replay: line 2/) });
  });

  it('claims an event no kind names by its tag: the search\'s visit of the only free block, and its question', () => {
    const v = src().events(4).findIndex((e) => e.kind === 'visit');
    expect(v).toBeGreaterThan(0);
    const claim = claimOf(src().events(4)[v]);
    expect(claim).toMatchObject({ event: 'visit', where: { id: 0, va_start: '0x11000', va_end: '0x2f000' } });
    expect(offersAt(src(), 4, v).map((o) => [o.ask, o.answer])).toEqual([['visit', { node: 0 }]]);
    const doc: AuthoredLesson = { ...lesson(), stops: [{ title: 'Visit', text: 'The search starts at the root.', trace: 't1', op: 4, frame: v, claim, ask: { ask: 'visit', nth: 0, answer: { node: 0 } } }] };
    const l = checkAuthored(doc, 'P', replay);
    expect('error' in l ? l.message : l.stops[0].claim).toEqual({ tag: 'visit', where: claim.where });
    doc.stops[0].claim = { event: 'visit', where: { ...claim.where, id: 3 } };
    expect(checkAuthored(doc, 'P', replay)).toEqual({ error: 'claim', message: 'Stop 1 ("Visit"): the stop claims id 3 but the core\'s visit event there has id 0.' });
  });

  it('a maple tree trace: the store type the core picks, and a tampered one refused', () => {
    // Into the empty tree (wr_store_root), a range after it (wr_node_store), then exactly the NULL
    // slot between the two (wr_exact_fit).
    const maple = 'profile maple-tree\nstore 0x100000 0x100fff\nstore 0x102000 0x102fff\nstore 0x101000 0x101fff';
    const m = replay('m', maple) as EventSource;
    const picks = [0, 1, 2].map((op) => m.events(op).find((e) => e.kind === 'store_type')?.store);
    expect(picks).toEqual(['wr_store_root', 'wr_node_store', 'wr_exact_fit']);
    const f = m.events(2).findIndex((e) => e.kind === 'store_type');
    expect(offersAt(m, 2, f).map((o) => [o.ask, o.answer])).toEqual([['store', { store: 'wr_exact_fit' }]]);
    const doc: AuthoredLesson = {
      format: 'vmapviz-lesson',
      version: 1,
      title: 'Maple',
      traces: { m: maple },
      stops: [{ title: 'Exact', text: 'One slot changes.', trace: 'm', op: 2, frame: f, claim: claimOf(m.events(2)[f]), ask: { ask: 'store', nth: 0, answer: { store: 'wr_exact_fit' } } }],
    };
    const l = checkAuthored(doc, 'P', replay);
    expect('error' in l ? l.message : [l.stops[0].claim, l.stops[0].look]).toEqual([{ kind: 'store_type', where: expect.objectContaining({ store: 'wr_exact_fit' }) }, ['tree', 'narration']]);
    doc.stops[0].ask!.answer = { store: 'wr_append' };
    expect(checkAuthored(doc, 'P', replay)).toEqual({ error: 'claim', message: 'Stop 1 ("Exact"): its question\'s answer is {"store":"wr_append"} but the core\'s is {"store":"wr_exact_fit"}.' });
  });
});
