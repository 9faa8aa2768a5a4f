// Writes that happen only when they change something. A frame of the player redraws views whose
// state mostly stays as it was; every `setAttribute` (even of the same value), every `textContent`
// (it replaces the text node) and every `classList.add` of a class already there is a mutation
// and a style invalidation, so the address views write through these.
import type { State } from '../bridge';

/** Set an attribute when its value differs; `null` removes it when present. */
export function setAttr(e: Element, name: string, value: string | number | null): void {
  if (value === null) {
    if (e.hasAttribute(name)) e.removeAttribute(name);
    return;
  }
  const v = String(value);
  if (e.getAttribute(name) !== v) e.setAttribute(name, v);
}

/** Set several attributes (see `setAttr`). */
export function setAttrs(e: Element, attrs: Record<string, string | number | null>): void {
  for (const k in attrs) setAttr(e, k, attrs[k]);
}

/** Set an element's text when it differs. */
export function setText(e: Element, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

/** Add or remove a class when that changes the element. */
export function setClass(e: Element, name: string, on: boolean): void {
  if (e.classList.contains(name) !== on) e.classList.toggle(name, on);
}

/** Set a data attribute of an element when it differs. */
export function setData(e: HTMLElement | SVGElement, key: string, value: string): void {
  if (e.dataset[key] !== value) e.dataset[key] = value;
}

/**
 * What the address views draw of a state, by identity: the free tree's nodes, the busy, lazy
 * and pooled areas, the bump chunks, the managed space. The frames of one operation share these
 * arrays while they do not change (the core's snapshots: a frame's index or areas), so two states
 * whose parts are the same objects draw the same, whatever else differs (a maple-rfc frame's
 * occupied tree, say, which the address views do not draw).
 */
export function drawnParts(s: State): unknown[] {
  return [s.index.kind === 'free_tree' ? s.index.nodes : null, s.busy, s.lazy, s.pools, s.chunks ?? null, s.space[0], s.space[1], s.initialized];
}

/** Whether two lists of `drawnParts` are the same, part for part. */
export function sameParts(a: unknown[] | null, b: unknown[]): boolean {
  return a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}
