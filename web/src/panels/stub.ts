// The workbench's shell: its heading and tabs, drawn with the page. The workbench itself (its
// chunk, its own wasm build with the workloads, importers and charts, and its worker) is about
// as large as the rest of the page together, so it loads on first use: when the pointer or the
// keyboard focus enters it, or a tab is clicked. Then the shell hands over to it.
//
//   host[data-panels-state]: idle → loading → ready, or error (with a Retry button)
import './shell.css';
import { button, h } from './dom';
import { savedTab, TABS, WORKBENCH_NOTE, type TabId } from './tabs';

/** What the shell hands to the workbench when it loads: the tab to show and whether to focus it. */
export interface Handover {
  tab: TabId;
  focus: boolean;
}

export class WorkbenchStub {
  private state: 'idle' | 'loading' | 'ready' | 'error' = 'idle';
  private readonly status: HTMLElement;
  private readonly off: () => void;
  private hand: Handover = { tab: 'workloads', focus: false };
  /** The keyboard focus is in the workbench (kept while its shell is replaced by the real one). */
  private focusInside = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly load: (h: Handover) => Promise<unknown>,
  ) {
    const current = savedTab();
    const tablist = h('div', { class: 'wb-tabs', role: 'tablist', 'aria-label': 'Workbench' });
    for (const [id, title] of TABS) {
      const on = id === current;
      const tab = h('button', { type: 'button', role: 'tab', class: 'wb-tab', 'data-tab': id, 'aria-selected': String(on), tabindex: on ? 0 : -1 }, title);
      tab.addEventListener('click', () => this.start({ tab: id, focus: true }));
      tablist.append(tab);
    }
    this.status = h('p', { class: 'wb-stub-status', role: 'status', 'data-testid': 'workbench-status' }, 'The workbench loads when you point at it or tab into it.');
    host.classList.add('workbench');
    host.replaceChildren(
      h('div', { class: 'panel-head' }, h('h2', { id: 'workbench-title' }, 'Workbench'), h('p', { class: 'panel-note' }, WORKBENCH_NOTE)),
      this.status,
      tablist,
    );
    host.setAttribute('aria-labelledby', 'workbench-title');
    host.dataset.panelsState = 'idle';
    const intent = (e: Event) => {
      const tab = (e.target as Element | null)?.closest?.<HTMLElement>('[data-tab]');
      this.start({ tab: (tab?.dataset.tab as TabId | undefined) ?? current, focus: e.type === 'focusin' && !!tab }, !!tab);
    };
    host.addEventListener('pointerenter', intent);
    host.addEventListener('focusin', intent);
    const inside = () => {
      this.focusInside = true;
    };
    const outside = (e: FocusEvent) => {
      // Focus that moves elsewhere on the page; a removed element's focusout has no target.
      if (e.relatedTarget instanceof Node && !host.contains(e.relatedTarget)) this.focusInside = false;
    };
    host.addEventListener('focusin', inside);
    host.addEventListener('focusout', outside);
    // Tab while it loads: the shell has nothing after its tabs, so the focus would leave the
    // page (to <body>). It stays on the tab; the workbench takes it over when it is ready.
    host.addEventListener('keydown', (e) => {
      if (this.state === 'loading' && e.key === 'Tab' && !e.shiftKey) {
        e.preventDefault();
        this.hand.focus = true;
      }
    });
    this.off = () => {
      host.removeEventListener('pointerenter', intent);
      host.removeEventListener('focusin', intent);
    };
  }

  /**
   * Load the workbench (once; again after a failure). A tab chosen while it loads replaces the
   * one asked for first: the workbench reads the handover when it mounts.
   */
  start(hand: Handover, fromTab = true): void {
    if (this.state === 'ready') return;
    if (this.state === 'loading') {
      if (fromTab) Object.assign(this.hand, hand);
      return;
    }
    this.hand = { ...hand };
    hand = this.hand;
    this.state = 'loading';
    this.host.dataset.panelsState = 'loading';
    this.status.dataset.state = 'loading';
    this.status.textContent = 'Loading the workbench…';
    this.load(hand).then(
      () => {
        this.state = 'ready';
        this.off();
        this.host.dataset.panelsState = 'ready';
        // The shell the focus was in is gone: keep the focus in the workbench, on its tab.
        const at = document.activeElement;
        if (this.focusInside && (at === null || at === document.body || !at.isConnected)) {
          this.host.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus();
        }
      },
      (e: unknown) => {
        this.state = 'error';
        this.host.dataset.panelsState = 'error';
        this.status.dataset.state = 'error';
        const retry = button('Retry', 'retry-workbench', 'Load the workbench again');
        retry.addEventListener('click', () => this.start(hand));
        this.status.replaceChildren(`The workbench could not load (${e instanceof Error ? e.message : String(e)}). The views above work without it. `, retry);
      },
    );
  }
}
