// The checks every parser of the facade's JSON reads values through (web/src/bridge.ts,
// web/src/maple/bridge.ts, web/src/panels/api.ts): each names what it expected and where.
import { parseBig } from '../format';

/**
 * A contract object before it is checked: its keys are the contract's (a misspelt key does not
 * compile), its values still unknown (each is checked as it is read).
 */
export type Unchecked<T> = { [K in keyof T]?: unknown };

export function obj<T = Record<string, unknown>>(v: unknown, what: string): Unchecked<T> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError(`${what}: expected an object`);
  return v as Unchecked<T>;
}

export function arr(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new TypeError(`${what}: expected an array`);
  return v;
}

export function num(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${what}: expected a number`);
  return v;
}

export function optNum(v: unknown, what: string): number | null {
  return v === null || v === undefined ? null : num(v, what);
}

export function str(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new TypeError(`${what}: expected a string`);
  return v;
}

/** A number the core may send either as a JSON number or as hex (u64 fields). */
export function count(v: unknown, what: string): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  let b: bigint;
  try {
    b = parseBig(v);
  } catch {
    throw new TypeError(`${what}: expected a number`);
  }
  if (b > BigInt(Number.MAX_SAFE_INTEGER)) throw new TypeError(`${what}: too large`);
  return Number(b);
}

export function optCount(v: unknown, what: string): number | null {
  return v === null || v === undefined ? null : count(v, what);
}

/** A `field` of `what` that must be one of `allowed` (a contract's string union). */
export function oneOf<T extends string>(v: unknown, allowed: readonly T[], what: string, field: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) throw new TypeError(`${what}: unknown ${field} ${String(v)}`);
  return v as T;
}
