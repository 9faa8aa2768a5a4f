// Positions on the timeline of a trace. Step k (0..N) is the state before operation k, as the
// core reports it (`state(k)`); between step k and step k+1 lie the micro-steps of operation k
// (`frames(k).frames`). A position is `{ op: k, frame: -1 }` for step k itself, or
// `{ op: k, frame: f }` for micro-step f of operation k:
//
//   S0  F0.0 F0.1 … F0.n  S1  F1.0 …  SN
//
// Every position is drawn from the core's own snapshots, so stepping back is exact.

export interface Pos {
  op: number;
  /** -1 at the step itself; otherwise the micro-step (frame) of operation `op`. */
  frame: number;
}

/** How many frames operation k has (may fetch them). */
export type FrameCount = (op: number) => number;

export const at = (op: number, frame = -1): Pos => ({ op, frame });

export function samePos(a: Pos, b: Pos): boolean {
  return a.op === b.op && a.frame === b.frame;
}

/** Clamp a position into a trace of `length` operations. */
export function clampPos(p: Pos, length: number, count: FrameCount): Pos {
  const op = Math.max(0, Math.min(length, Math.trunc(p.op)));
  if (op === length || p.frame < 0) return at(op);
  const n = count(op);
  return n === 0 ? at(op) : at(op, Math.min(n - 1, Math.trunc(p.frame)));
}

/** One micro-step forward, or null at the end. */
export function nextFrame(p: Pos, length: number, count: FrameCount): Pos | null {
  if (p.op >= length) return null;
  const n = count(p.op);
  return p.frame + 1 < n ? at(p.op, p.frame + 1) : at(p.op + 1);
}

/** One micro-step back, or null at the start. */
export function prevFrame(p: Pos, count: FrameCount): Pos | null {
  if (p.frame > 0) return at(p.op, p.frame - 1);
  if (p.frame === 0) return at(p.op);
  if (p.op === 0) return null;
  const n = count(p.op - 1);
  return n > 0 ? at(p.op - 1, n - 1) : at(p.op - 1);
}

/** To the end of the current operation (the next step), or null at the end. */
export function nextOp(p: Pos, length: number): Pos | null {
  return p.op >= length ? null : at(p.op + 1);
}

/** To the start of the current operation, or of the previous one when already there. */
export function prevOp(p: Pos): Pos | null {
  if (p.frame >= 0) return at(p.op);
  return p.op > 0 ? at(p.op - 1) : null;
}

/** Where a position sits on a scrubber of operations: k, plus a fraction inside operation k. */
export function scrubValue(p: Pos, frames: number): number {
  if (p.frame < 0) return p.op;
  return p.op + (p.frame + 1) / (frames + 1);
}

/** `step=N` and `frame=F` of a permalink for a position. */
export function linkParts(p: Pos, length: number): { step: number | 'end'; frame: number | null } {
  return { step: p.op === length && p.frame < 0 ? 'end' : p.op, frame: p.frame >= 0 ? p.frame : null };
}
