// The narration line: what the current micro-step does, in words, with the operation it
// belongs to. Hooks: `data-event-kind` (the core's event kind, `step` between operations),
// `data-frame` (the micro-step, -1 between operations), `data-op`.
import type { Narration } from '../narrate/narrate';
import { el } from './common';

export interface NarrationView {
  /** The operation shown (the next one at a step, the running one during its micro-steps). */
  op: number;
  frame: number;
  frames: number;
  /**
   * The operation's text, when there is one. Operations are named only by their number (op N
   * = the Nth operation of the trace, as the transport and the list count them), never by a
   * line of the trace text: that would change with the comments a link keeps or drops.
   */
  opText: string | null;
  narration: Narration | null;
  /** Said between operations. */
  idle: string;
  /**
   * The kernel's WARNING of the operation (its last micro-step, or just done): on screen, not
   * only in the operations list that lecture mode hides.
   */
  warning?: string | null;
  /** A question is open: what the step decides is withheld, these words say so. */
  withheld?: string | null;
}

export class NarrationPanel {
  private readonly head: HTMLElement;
  private readonly title: HTMLElement;
  private readonly text: HTMLElement;
  private readonly warning: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    root.classList.add('narration');
    root.setAttribute('aria-live', 'polite');
    this.head = root.appendChild(el('div', 'narration-op'));
    this.title = root.appendChild(el('div', 'narration-title'));
    this.text = root.appendChild(el('p', 'narration-text'));
    this.text.dataset.testid = 'narration-text';
    // Before the title: a long narration (lecture mode's large type) does not push it off screen.
    this.warning = root.insertBefore(el('p', 'narration-warning'), this.title);
    this.warning.dataset.testid = 'narration-warning';
    this.warning.hidden = true;
  }

  render(v: NarrationView): void {
    const r = this.root;
    r.dataset.eventKind = v.narration ? v.narration.kind : 'step';
    r.dataset.frame = String(v.frame);
    r.dataset.op = String(v.op);
    this.head.replaceChildren();
    if (v.opText !== null) {
      this.head.append(
        el('span', 'op-index', `op ${v.op + 1}`),
        el('code', 'op-text', v.opText),
      );
      if (v.frame >= 0) this.head.append(el('span', 'op-frame', `micro-step ${v.frame + 1} of ${v.frames}`));
    }
    r.dataset.withheld = String(!!v.withheld);
    if (v.withheld) {
      this.title.textContent = 'Your turn';
      this.title.className = 'narration-title kind-step';
      this.text.textContent = v.withheld;
    } else if (v.narration) {
      this.title.textContent = v.narration.title;
      this.title.className = `narration-title kind-${v.narration.kind}`;
      this.text.textContent = v.narration.text;
    } else {
      this.title.textContent = v.frame < 0 && v.opText !== null ? 'Ready' : 'State';
      this.title.className = 'narration-title kind-step';
      this.text.textContent = v.idle;
    }
    this.warning.hidden = !v.warning;
    this.warning.textContent = v.warning ?? '';
    r.dataset.warning = v.warning ? 'true' : 'false';
  }
}
