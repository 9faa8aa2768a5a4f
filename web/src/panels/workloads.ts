// The workloads panel: every built-in workload of the core (the kernel's lib/test_vmalloc.c
// tests, the whole module, the teaching scenarios) plus the linux-6.9 scenarios of
// ./scenarios, with the module's knobs and the test_vmalloc.sh presets. Generation runs in a
// worker (a 10^6-loop workload takes a while); small results open in the app, large ones in the
// large-trace navigator.
import { parseCatalogue, parseResolved, type Catalogue, type WorkloadInfo, type WorkloadParams } from './api';
import { button, field, grouped, h, numberInput, select } from './dom';
import { NODE_SCENARIOS, type Scenario } from './scenarios';
import { workloads, workload_params } from '../pkg-workbench/vmapviz_wasm.js';

/** What the size knob (`keep`) means for each test, and a value that keeps the trace watchable. */
const KEEP: Record<string, { label: string; kernel: number; watch: number }> = {
  long_busy_list_alloc_test: { label: 'kept busy areas', kernel: 15000, watch: 12 },
  full_fit_alloc_test: { label: 'J (interleaved areas)', kernel: 0, watch: 8 },
  pcpu_alloc_test: { label: 'percpu objects', kernel: 35000, watch: 40 },
  kvfree_rcu_1_arg_vmalloc_test: { label: 'grace period (loops)', kernel: 16, watch: 4 },
  kvfree_rcu_2_arg_vmalloc_test: { label: 'grace period (loops)', kernel: 16, watch: 4 },
  test_vmalloc: { label: 'size knob (all tests)', kernel: 0, watch: 12 },
};

/** maple-rfc's teaching scenarios S1–S5 of the spec (§11.10), `rfc_s1_…` to `rfc_s5_…` in the core. */
export function isRfcScenario(name: string): boolean {
  return /^rfc_s[1-5]_/.test(name);
}

/** Loops that keep a workload watchable in the main view (the kernel's default is 1,000,000). */
export const WATCH_LOOPS = 8;

export interface WorkloadRequest {
  /** A core workload with its parameters (JSON), or a fixed trace. */
  name: string;
  params?: string;
  trace?: string;
  title: string;
  /** Where a fixed trace opens (operations done; default 0, its start). */
  step?: number;
}

export interface WorkloadsOptions {
  /** Generate (in a worker) and open; resolves to a status line or rejects with the error. */
  run: (req: WorkloadRequest) => Promise<string>;
}

type Item = { kind: 'core'; info: WorkloadInfo } | { kind: 'scenario'; scenario: Scenario };

export class WorkloadsPanel {
  readonly root: HTMLElement;
  private readonly cat: Catalogue;
  private selected: Item;
  private readonly list: HTMLElement;
  private readonly form: HTMLFormElement;
  private readonly title: HTMLElement;
  private readonly about: HTMLElement;
  private readonly status: HTMLElement;
  private readonly inputs: {
    profile: HTMLSelectElement;
    cpus: HTMLInputElement;
    seed: HTMLInputElement;
    loops: HTMLInputElement;
    keep: HTMLInputElement;
    nrPages: HTMLInputElement;
    threads: HTMLInputElement;
    repeat: HTMLInputElement;
    mask: HTMLInputElement;
    sequential: HTMLInputElement;
    preset: HTMLSelectElement;
  };
  private readonly keepLabel: HTMLElement;
  private readonly maskRow: HTMLElement;
  private readonly knobs: HTMLElement;
  private readonly go: HTMLButtonElement;

  constructor(private readonly opts: WorkloadsOptions) {
    this.cat = parseCatalogue(workloads());
    const d = this.cat.defaults;
    this.inputs = {
      profile: select('profile', this.cat.profiles.map((p) => [p, p]), d.profile),
      cpus: numberInput('cpus', 2, 1, 65536),
      seed: numberInput('seed', 1, 0),
      loops: numberInput('loops', WATCH_LOOPS, 0, 100_000_000),
      keep: numberInput('keep', null, 0, 1 << 20),
      nrPages: numberInput('nr_pages', null, 0, 1 << 24),
      threads: numberInput('nr_threads', null, 1, 1024),
      repeat: numberInput('test_repeat_count', 1, 1, 1000),
      mask: h('input', { type: 'text', name: 'run_test_mask', class: 'wb-input wb-mono', placeholder: 'era default', spellcheck: 'false' }),
      sequential: h('input', { type: 'checkbox', name: 'sequential_test_order' }),
      preset: select('preset', [['', 'none'], ...this.cat.presets.map((p): [string, string] => [p, p])], ''),
    };
    this.list = h('div', { class: 'wb-wl-list', role: 'listbox', 'aria-label': 'Workloads', 'data-testid': 'workload-list' });
    this.title = h('h3', { class: 'wb-wl-title', 'data-testid': 'workload-title' });
    this.about = h('p', { class: 'wb-wl-about' });
    this.status = h('p', { class: 'wb-status', role: 'status', 'data-testid': 'workload-status' });
    this.keepLabel = h('span', { class: 'wb-field-name' }, 'size knob');
    this.maskRow = field('run_test_mask', this.inputs.mask, 'bit i runs test i of the table; blank: the era default');
    const keepField = h('label', { class: 'wb-field' }, this.keepLabel, this.inputs.keep, h('small', {}, 'blank: the kernel default'));

    this.go = button('Generate and open', 'generate', 'Generate the trace in the core and open it');
    this.go.type = 'submit';
    this.go.classList.add('primary');
    const kernel = button('Kernel defaults', 'kernel-defaults', 'loops = 1,000,000 and the kernel\'s sizes (a large trace)');
    kernel.addEventListener('click', () => {
      this.inputs.loops.value = String(d.loops);
      this.inputs.keep.value = '';
      this.inputs.nrPages.value = '';
    });
    const watch = button('Watchable', 'watchable', 'A few loops and a small size knob, to step through');
    watch.addEventListener('click', () => this.watchable());

    this.knobs = h(
      'div',
      { class: 'wb-knobs' },
      field('profile', this.inputs.profile),
      field('CPUs', this.inputs.cpus, 'lazy_max_pages, 6.9 nodes'),
      field('seed', this.inputs.seed),
      field('loops', this.inputs.loops, 'test_loop_count (kernel: 1,000,000)'),
      keepField,
      field('nr_pages', this.inputs.nrPages, 'blank: 1 page'),
      field('threads', this.inputs.threads, 'blank: the era default'),
      field('repeat', this.inputs.repeat, 'test_repeat_count'),
      this.maskRow,
      h('label', { class: 'wb-field wb-check' }, this.inputs.sequential, h('span', {}, 'sequential_test_order')),
      field('preset', this.inputs.preset, 'test_vmalloc.sh modes'),
    );
    this.inputs.preset.addEventListener('change', () => this.applyPreset());

    this.form = h(
      'form',
      { class: 'wb-wl-form', 'data-testid': 'workload-form' },
      this.title,
      this.about,
      this.knobs,
      h('div', { class: 'wb-row' }, this.go, watch, kernel),
      this.status,
    );
    // The core checks the knobs and says what is wrong; the browser's own checks stay out of the way.
    this.form.noValidate = true;
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.generate();
    });

    this.root = h('div', { class: 'wb-workloads', 'data-widget': 'workloads' }, this.list, this.form);
    this.renderList();
    const first = this.cat.workloads.find((w) => w.kind === 'teaching') ?? this.cat.workloads[0];
    this.selected = { kind: 'core', info: first };
    this.choose(this.selected);
  }

  private renderList(): void {
    // A listbox owns options or groups of options only (axe: aria-required-children): each group
    // is named by aria-label, and its visible heading is presentation.
    const group = (title: string, note: string, items: Item[]) =>
      h(
        'div',
        { class: 'wb-wl-group', role: 'group', 'aria-label': `${title}: ${note}` },
        h('h4', { 'aria-hidden': 'true', role: 'presentation' }, title, ' ', h('small', {}, note)),
        ...items.map((it) => {
          const name = it.kind === 'core' ? it.info.name : it.scenario.name;
          const text = it.kind === 'core' ? it.info.description : `${it.scenario.title}: ${it.scenario.description}`;
          const b = h(
            'button',
            { type: 'button', class: 'wb-wl-item', role: 'option', 'data-workload': name, 'aria-selected': 'false' },
            h('code', { class: 'wb-wl-name' }, name),
            it.kind === 'core' && it.info.bit !== null ? h('span', { class: 'wb-wl-bit' }, `bit ${Math.log2(it.info.bit)}`) : null,
            h('span', { class: 'wb-wl-desc' }, text),
          );
          b.addEventListener('click', () => this.choose(it));
          return b;
        }),
      );
    const core = (k: WorkloadInfo['kind']) =>
      this.cat.workloads.filter((w) => w.kind === k && !isRfcScenario(w.name)).map((info): Item => ({ kind: 'core', info }));
    const rfc = this.cat.workloads.filter((w) => isRfcScenario(w.name)).map((info): Item => ({ kind: 'core', info }));
    this.list.replaceChildren(
      group('Teaching scenarios', 'one mechanism each', core('teaching')),
      group('maple-rfc S1–S5', 'the June 2026 RFC: vmalloc on maple trees', rfc),
      group('vmap nodes (linux-6.9)', 'pools, decay, reclaim', NODE_SCENARIOS.map((scenario): Item => ({ kind: 'scenario', scenario }))),
      group('Kernel tests', 'lib/test_vmalloc.c', core('kernel_test')),
      group('The module', 'run order, mask, repeat', core('module')),
    );
  }

  private choose(it: Item): void {
    this.selected = it;
    const name = it.kind === 'core' ? it.info.name : it.scenario.name;
    for (const b of this.list.querySelectorAll<HTMLButtonElement>('.wb-wl-item')) {
      const on = b.dataset.workload === name;
      b.classList.toggle('on', on);
      b.setAttribute('aria-selected', String(on));
    }
    this.title.textContent = it.kind === 'core' ? it.info.name : `${it.scenario.title} (linux-6.9)`;
    this.about.textContent = it.kind === 'core' ? it.info.description : it.scenario.description;
    // S1–S5 are maple-rfc's scenarios: they open under that profile (another can still be chosen,
    // to see the same operations there; Compare profiles shows both at once).
    if (it.kind === 'core' && isRfcScenario(it.info.name) && this.cat.profiles.includes('maple-rfc')) this.inputs.profile.value = 'maple-rfc';
    this.form.dataset.workload = name;
    const fixed = it.kind === 'scenario';
    const teaching = it.kind === 'core' && it.info.kind === 'teaching';
    const module = it.kind === 'core' && it.info.kind === 'module';
    // Teaching scenarios take a profile and CPUs; the 6.9 scenarios are fixed traces.
    for (const [k, input] of Object.entries(this.inputs)) {
      const used = fixed ? false : teaching ? k === 'profile' || k === 'cpus' : k !== 'mask' || module;
      input.disabled = !used;
      input.closest('label')?.classList.toggle('off', !used);
    }
    const keep = KEEP[name];
    this.keepLabel.textContent = keep ? keep.label : 'size knob';
    this.inputs.keep.disabled = this.inputs.keep.disabled || !keep;
    this.inputs.keep.closest('label')?.classList.toggle('off', this.inputs.keep.disabled);
    this.maskRow.hidden = !module;
    this.status.textContent = '';
    this.status.classList.remove('error');
    if (keep && !this.inputs.keep.disabled && this.inputs.keep.value === '') this.inputs.keep.value = String(keep.watch);
  }

  private watchable(): void {
    this.inputs.loops.value = String(WATCH_LOOPS);
    const name = this.selected.kind === 'core' ? this.selected.info.name : '';
    const keep = KEEP[name];
    this.inputs.keep.value = keep ? String(keep.watch) : '';
    this.inputs.repeat.value = '1';
  }

  /** The knobs as `WorkloadParams` (blank fields: the core's defaults). */
  params(): WorkloadParams {
    const num = (i: HTMLInputElement): number | null => (i.value.trim() === '' ? null : Math.max(0, Math.trunc(Number(i.value))));
    const mask = this.inputs.mask.value.trim();
    return {
      seed: num(this.inputs.seed) ?? 0,
      loops: num(this.inputs.loops) ?? this.cat.defaults.loops,
      nr_pages: num(this.inputs.nrPages),
      cpus: Math.max(1, num(this.inputs.cpus) ?? 1),
      nr_threads: num(this.inputs.threads),
      sequential_test_order: this.inputs.sequential.checked,
      test_repeat_count: Math.max(1, num(this.inputs.repeat) ?? 1),
      run_test_mask: mask === '' || this.inputs.mask.disabled ? null : Number(mask),
      keep: this.inputs.keep.disabled ? null : num(this.inputs.keep),
      profile: this.inputs.profile.value,
    };
  }

  private applyPreset(): void {
    const preset = this.inputs.preset.value;
    if (!preset) return;
    try {
      const r = parseResolved(workload_params(JSON.stringify(this.params()), preset));
      this.inputs.loops.value = String(r.params.loops);
      this.inputs.repeat.value = String(r.params.test_repeat_count);
      this.inputs.threads.value = r.params.nr_threads === null ? '' : String(r.params.nr_threads);
      this.inputs.sequential.checked = r.params.sequential_test_order;
      this.say(
        `preset ${preset}: loops ${grouped(r.params.loops)}, repeat ${r.params.test_repeat_count}, ${r.threads} thread${r.threads === 1 ? '' : 's'}${r.params.sequential_test_order ? ', sequential order' : ''}`,
      );
    } catch (e) {
      this.say(e instanceof Error ? e.message : String(e), true);
    }
  }

  private say(text: string, error = false): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
  }

  private async generate(): Promise<void> {
    const it = this.selected;
    if (Number.isNaN(this.params().run_test_mask)) {
      this.say('run_test_mask: not a number (use decimal or 0x hex)', true);
      return;
    }
    const req: WorkloadRequest =
      it.kind === 'scenario'
        ? { name: it.scenario.name, trace: it.scenario.trace, title: it.scenario.title, step: it.scenario.step }
        : { name: it.info.name, params: JSON.stringify(this.params()), title: it.info.name };
    this.go.disabled = true;
    this.say('generating…');
    try {
      this.say(await this.opts.run(req));
    } catch (e) {
      this.say(e instanceof Error ? e.message : String(e), true);
    } finally {
      this.go.disabled = false;
    }
  }
}
