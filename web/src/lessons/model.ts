// What a lesson is: an ordered list of stops, each on a micro-step of a trace the core replays
// (so every picture is the core's own), with two or three sentences, the event kind the stop
// claims to sit on (checked against the core's events: lessons.test.ts) and the panels to look at.
import type { EventKind } from '../player/events';
import type { Ask } from './question';

/**
 * The panels a stop points the audience to (outlined while the stop is shown): `list` is
 * linux-5.1's busy list, `nodes` linux-6.9's vmap nodes (web/src/views/eraPanel.ts).
 */
export type Look = 'bar' | 'tree' | 'narration' | 'code' | 'list' | 'nodes';

/** Where a stop sits: a micro-step of an operation, or the n-th event of a kind in it (resolved on load). */
export type Target = { op: number; frame: number } | { op: number; find: EventKind; nth?: number; where?: Record<string, unknown> };

export interface Stop {
  title: string;
  /** The trace's name in the lesson's `traces`. */
  trace: string;
  /** `op` counts from 0 (the page's "op 1" is op 0). */
  at: Target;
  /** Two or three sentences. */
  text: string;
  /**
   * The event the stop sits on: its kind and, optionally, fields of the contract's event; or, for
   * a lecturer's stop on an event no kind names (authored.ts), the core's own tag (`visit`).
   */
  claim: { kind: EventKind; where?: Record<string, unknown> } | { tag: string; where?: Record<string, unknown> };
  look: Look[];
  /** "Your turn": a question asked before the step is shown (answered from the core's events). */
  ask?: Ask;
}

export interface Lesson {
  id: string;
  title: string;
  /** One line for the picker. */
  summary: string;
  /** Minutes it takes to teach, measured by walking its stops (docs/lecturers.md, "Timing"). */
  minutes: number;
  traces: Record<string, string>;
  stops: Stop[];
}
