// The offer to undo an action that replaced the trace (an import, a scenario or a workload opened
// over the user's trace): a toast with an Undo button that restores the previous trace and the
// step it was at. It stays until the next replacement, a click on ×, or UNDO_MS.
import { el } from './common';

const UNDO_MS = 20_000;

export class UndoToast {
  readonly root: HTMLElement;
  private readonly text: HTMLElement;
  private readonly undo: HTMLButtonElement;
  private action: (() => void) | null = null;
  private timer: number | null = null;

  constructor(host: HTMLElement) {
    this.root = host.appendChild(el('div', 'undo-toast'));
    this.root.setAttribute('role', 'status');
    this.root.dataset.testid = 'undo-toast';
    this.root.hidden = true;
    this.text = this.root.appendChild(el('span', 'undo-text'));
    this.undo = this.root.appendChild(el('button', 'btn btn-small primary', 'Undo'));
    this.undo.type = 'button';
    this.undo.addEventListener('click', () => {
      const a = this.action;
      this.hide();
      a?.();
    });
    const close = this.root.appendChild(el('button', 'btn btn-small undo-close', '×'));
    close.type = 'button';
    close.title = 'Keep the new trace';
    close.setAttribute('aria-label', 'Keep the new trace');
    close.addEventListener('click', () => this.hide());
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** Offer `undo` under `text` (replacing any earlier offer). */
  show(text: string, undo: () => void): void {
    this.action = undo;
    this.text.textContent = text;
    this.root.hidden = false;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.hide(), UNDO_MS);
  }

  hide(): void {
    this.root.hidden = true;
    this.action = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
