// The eras the core models, as its registry describes them (`eras()` of either wasm build: the
// contract's `EraInfo`, core/src/profile.rs): every list of profiles the page offers (import,
// compare, the charts), their colours and the per-era views are built from these constants, in
// the registry's order, so an era added to the core shows in each of them with no edit here.
import type { EraInfo } from './contract/contract';

/** One era, parsed (`EraInfo` with the page's names). */
export interface Era {
  name: string;
  /** `[major, minor]` of its first kernel release; null: not a release (an RFC). */
  firstRelease: [number, number] | null;
  /** The era of a trace that names none. */
  isDefault: boolean;
  /** An augmented free tree (false: 5.1's list walk over the busy areas). */
  freeTree: boolean;
  lazyInBusy: boolean;
  /** Per-CPU vmap nodes with their size pools (`reclaim`: a full decay). */
  vmapNodes: boolean;
  /** Where an allocation lands depends on the CPU (`cpu N`). */
  perCpu: boolean;
  /** `bump on|off` switches a per-CPU bump overlay. */
  bumpOverlay: boolean;
  bugOnBadRequest: boolean;
  moduleTests: number;
}

// The value checks of ./contract/json, written out: the first screen reads this module, and a
// chunk shared with the workbench would cost its first open a request.
function bool(v: unknown, what: string): boolean {
  if (typeof v !== 'boolean') throw new TypeError(`${what}: expected true or false`);
  return v;
}
function num(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${what}: expected a number`);
  return v;
}
function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new TypeError(`${what}: expected a string`);
  return v;
}
function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new TypeError(`${what}: expected an array`);
  return v;
}
function obj(v: unknown, what: string): { [K in keyof EraInfo]?: unknown } {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError(`${what}: expected an object`);
  return v;
}

/** Parse `eras()`'s JSON; throws a TypeError naming the field on anything else. */
export function parseEras(json: string): Era[] {
  const list = arr(JSON.parse(json), 'eras').map((v, i): Era => {
    const o = obj(v, `era ${i}`);
    const name = str(o.name, `era ${i}: name`);
    const w = (f: string) => `era ${name}: ${f}`;
    const rel = o.first_release === null ? null : arr(o.first_release, w('first_release'));
    if (rel && rel.length !== 2) throw new TypeError(`${w('first_release')}: expected [major, minor]`);
    return {
      name,
      firstRelease: rel ? [num(rel[0], w('first_release')), num(rel[1], w('first_release'))] : null,
      isDefault: bool(o.default, w('default')),
      freeTree: bool(o.free_tree, w('free_tree')),
      lazyInBusy: bool(o.lazy_in_busy, w('lazy_in_busy')),
      vmapNodes: bool(o.vmap_nodes, w('vmap_nodes')),
      perCpu: bool(o.per_cpu, w('per_cpu')),
      bumpOverlay: bool(o.bump_overlay, w('bump_overlay')),
      bugOnBadRequest: bool(o.bug_on_bad_request, w('bug_on_bad_request')),
      moduleTests: num(o.module_tests, w('module_tests')),
    };
  });
  if (list.length === 0) throw new TypeError('eras: the core names no era');
  return list;
}

/** The era named `name` (a state's or a trace's profile), or undefined (`maple-tree`, unknown). */
export function eraOf(eras: readonly Era[], name: string | null | undefined): Era | undefined {
  return eras.find((e) => e.name === name);
}

/** The profile of a trace that names none. */
export function defaultProfile(eras: readonly Era[]): string {
  return (eras.find((e) => e.isDefault) ?? eras[0]).name;
}

/**
 * The import's profile choice: "as the input says", then every era that is a kernel release
 * (what is imported is a kernel's output: ftrace, /proc/vmallocinfo, a capture).
 */
export function importProfiles(eras: readonly Era[]): [string, string][] {
  return [['', 'as the input says'], ...eras.filter((e) => e.firstRelease !== null).map((e): [string, string] => [e.name, e.name])];
}

/** Compare mode's columns: every era. */
export function compareProfiles(eras: readonly Era[]): string[] {
  return eras.map((e) => e.name);
}

/**
 * The columns compare mode opens with: the first era without a free tree beside the first with
 * one (the list walk and the tree that replaced it), else the first two eras.
 */
export function compareChecked(eras: readonly Era[]): string[] {
  const walk = eras.find((e) => !e.freeTree);
  const tree = eras.find((e) => e.freeTree);
  return walk && tree ? [walk.name, tree.name] : eras.slice(0, 2).map((e) => e.name);
}
