// Small helpers shared by the views.
import { transition, type BaseType, type Transition } from 'd3';

let counter = 0;

/** A document-unique id prefix, so two instances of a widget never share SVG ids. */
export function nextId(name: string): string {
  counter += 1;
  return `vz-${name}-${counter}`;
}

/** Transition length: `ms`, or 0 when the user prefers reduced motion. */
export function motionMs(ms: number): number {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : ms;
}

/** Create an element with a class and optional text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * A named transition of `ms` milliseconds (0 under reduced motion), to pass to
 * `selection.transition(...)`. Using d3's `transition` export here also keeps d3-transition in
 * the bundle (d3 is marked side-effect free, and the bundler would otherwise drop the module
 * that adds `selection.transition`).
 */
export function tx(name: string, ms: number): Transition<BaseType, unknown, null, undefined> {
  return transition(name).duration(motionMs(ms));
}
