// Always visible above the workbench tabs: the lazy-freeing gauge (vmap_lazy_nr against
// lazy_max_pages(), the purge threshold), the CPU count that sets lazy_max_pages(), the current
// CPU (a `cpu N` line), and a purge / reclaim by hand. Each control appends a trace line.
import type { State } from '../bridge';
import { eraOf, type Era } from '../eras';
import type { Mirror } from './context';
import { button, grouped, h } from './dom';

const MAX_CPU_BUTTONS = 16;

export class StatusStrip {
  readonly root: HTMLElement;
  private readonly fill: HTMLElement;
  private readonly gaugeText: HTMLElement;
  private readonly gauge: HTMLElement;
  private readonly cpusInput: HTMLInputElement;
  private readonly cpuButtons: HTMLElement;
  private readonly cpuNow: HTMLElement;
  private readonly reclaim: HTMLButtonElement;
  private readonly error: HTMLElement;
  private readonly nodesNote: HTMLElement;

  constructor(
    private readonly mirror: Mirror,
    private readonly eras: readonly Era[],
  ) {
    this.fill = h('div', { class: 'wb-gauge-fill' });
    this.gauge = h(
      'div',
      {
        class: 'wb-gauge',
        role: 'meter',
        'aria-label': 'Lazily freed pages against the purge threshold',
        'aria-valuemin': 0,
        'data-testid': 'lazy-gauge',
      },
      this.fill,
      h('div', { class: 'wb-gauge-threshold', title: 'lazy_max_pages(): a vfree that goes past it purges' }),
    );
    this.gaugeText = h('div', { class: 'wb-gauge-text', 'data-testid': 'lazy-gauge-text' });

    this.cpusInput = h('input', {
      type: 'number',
      min: 1,
      max: 65536,
      class: 'wb-input wb-cpus-input',
      name: 'cpus',
      'aria-label': 'Number of CPUs',
      'data-testid': 'cpus-input',
    });
    const setCpus = button('Set', 'set-cpus', 'Append `cpus N`: lazy_max_pages() = fls(N) × 8192 pages');
    const cpusForm = h('form', { class: 'wb-inline' }, this.cpusInput, setCpus);
    setCpus.type = 'submit';
    cpusForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const n = Math.trunc(Number(this.cpusInput.value));
      this.run(`cpus ${n}`);
    });

    this.cpuNow = h('strong', { class: 'wb-cpu-now', 'data-testid': 'current-cpu' });
    this.cpuButtons = h('div', { class: 'wb-cpu-buttons', role: 'group', 'aria-label': 'Current CPU' });
    this.cpuButtons.addEventListener('click', (e) => {
      const b = (e.target as HTMLElement).closest<HTMLButtonElement>('button[data-cpu]');
      if (b && !b.disabled) this.run(`cpu ${b.dataset.cpu}`);
    });
    const cpuSelect = h('select', { class: 'wb-input wb-cpu-select', 'aria-label': 'Current CPU (many CPUs)' });
    cpuSelect.addEventListener('change', () => this.run(`cpu ${cpuSelect.value}`));

    const purge = button('Purge', 'purge', 'Append `purge`: free the lazy areas now');
    purge.addEventListener('click', () => this.run('purge'));
    this.reclaim = button('Reclaim', 'reclaim', 'Append `reclaim` (the eras with vmap nodes): a purge with full decay of the pools');
    this.reclaim.addEventListener('click', () => this.run('reclaim'));

    this.error = h('p', { class: 'wb-error', role: 'alert', 'data-testid': 'strip-error' });
    this.error.hidden = true;
    this.nodesNote = h('small', { class: 'wb-muted' });

    this.root = h(
      'div',
      { class: 'wb-strip', 'data-widget': 'status-strip' },
      h(
        'div',
        { class: 'wb-card wb-lazy' },
        h('div', { class: 'wb-card-title' }, 'Lazy freeing ', h('code', {}, 'vmap_lazy_nr'), ' / ', h('code', {}, 'lazy_max_pages()')),
        this.gauge,
        this.gaugeText,
      ),
      h(
        'div',
        { class: 'wb-card wb-cpus' },
        h('div', { class: 'wb-card-title' }, 'CPUs online'),
        cpusForm,
        this.nodesNote,
      ),
      h(
        'div',
        { class: 'wb-card wb-cpu' },
        h('div', { class: 'wb-card-title' }, 'Current CPU ', this.cpuNow),
        this.cpuButtons,
        cpuSelect,
      ),
      h('div', { class: 'wb-card wb-actions' }, h('div', { class: 'wb-card-title' }, 'By hand'), h('div', { class: 'wb-inline' }, purge, this.reclaim)),
      this.error,
    );
    this.cpuSelect = cpuSelect;
  }

  private readonly cpuSelect: HTMLSelectElement;
  private lastCpus = -1;

  private run(line: string): void {
    const err = this.mirror.append(line);
    this.error.hidden = err === null;
    this.error.textContent = err ? `${line}: ${err}` : '';
  }

  render(state: State | null): void {
    if (!state) return;
    const pct = state.lazyMax > 0 ? Math.min(100, (100 * state.lazyNr) / state.lazyMax) : 0;
    this.fill.style.width = `${pct}%`;
    this.gauge.setAttribute('aria-valuemax', String(state.lazyMax));
    this.gauge.setAttribute('aria-valuenow', String(state.lazyNr));
    this.gauge.dataset.lazyNr = String(state.lazyNr);
    this.gauge.dataset.lazyMax = String(state.lazyMax);
    this.gauge.classList.toggle('near', pct >= 75);
    this.gaugeText.textContent = `${grouped(state.lazyNr)} of ${grouped(state.lazyMax)} pages (${pct.toFixed(pct > 0 && pct < 1 ? 2 : 0)} %) · purge when a vfree goes past ${grouped(state.lazyMax)} = fls(${state.cpus}) × 8192`;

    if (document.activeElement !== this.cpusInput) this.cpusInput.value = String(state.cpus);
    const nodes = eraOf(this.eras, state.profile)?.vmapNodes === true;
    this.nodesNote.textContent = nodes
        ? `${state.nrNodes} vmap node${state.nrNodes === 1 ? '' : 's'} (fixed at init from the CPU count then)`
        : `lazy_max_pages() grows with fls(CPUs)`;
    this.cpuNow.textContent = `${state.cpu} of ${state.cpus}`;
    this.cpuNow.dataset.cpu = String(state.cpu);
    if (state.cpus !== this.lastCpus) {
      this.lastCpus = state.cpus;
      const n = Math.min(state.cpus, MAX_CPU_BUTTONS);
      this.cpuButtons.replaceChildren(
        ...Array.from({ length: n }, (_, i) =>
          h('button', { type: 'button', class: 'btn wb-cpu-btn', 'data-cpu': i, title: `Append \`cpu ${i}\`` }, String(i)),
        ),
      );
      this.cpuSelect.hidden = state.cpus <= MAX_CPU_BUTTONS;
      if (state.cpus > MAX_CPU_BUTTONS) {
        this.cpuSelect.replaceChildren(
          ...Array.from({ length: Math.min(state.cpus, 1024) }, (_, i) => h('option', { value: i }, `CPU ${i}`)),
        );
      }
    }
    for (const b of this.cpuButtons.querySelectorAll<HTMLButtonElement>('button')) {
      const on = Number(b.dataset.cpu) === state.cpu;
      b.classList.toggle('on', on);
      b.setAttribute('aria-pressed', String(on));
    }
    this.cpuSelect.value = String(state.cpu);
    this.reclaim.hidden = !nodes;
  }
}
