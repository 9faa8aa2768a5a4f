// Page object of the workbench (web/src/panels): tabs, the status strip, the import/export
// panel, the workloads, the large-trace navigator, compare, charts, nodes and pools.
import { expect, type Locator, type Page } from '@playwright/test';

export type Tab = 'workloads' | 'io' | 'nodes' | 'compare' | 'charts' | 'frag' | 'struct' | 'large';

export class Workbench {
  readonly root: Locator;
  readonly gauge: Locator;
  readonly gaugeText: Locator;
  readonly cpus: Locator;
  readonly currentCpu: Locator;
  readonly stripError: Locator;
  readonly job: Locator;
  // import / export
  readonly paste: Locator;
  readonly file: Locator;
  readonly drop: Locator;
  readonly importError: Locator;
  readonly importStatus: Locator;
  readonly report: Locator;
  readonly permalink: Locator;
  readonly exportStatus: Locator;
  // workloads
  readonly workloadList: Locator;
  readonly workloadForm: Locator;
  readonly workloadStatus: Locator;
  // large traces
  readonly large: Locator;
  // nodes, compare, charts
  readonly nodes: Locator;
  readonly compare: Locator;
  readonly charts: Locator;
  /** Console errors and page errors seen since the page object was made. */
  readonly problems: string[] = [];

  constructor(readonly page: Page) {
    this.root = page.locator('[data-widget="workbench"]');
    this.gauge = this.root.getByTestId('lazy-gauge');
    this.gaugeText = this.root.getByTestId('lazy-gauge-text');
    this.cpus = this.root.getByTestId('cpus-input');
    this.currentCpu = this.root.getByTestId('current-cpu');
    this.stripError = this.root.getByTestId('strip-error');
    this.job = this.root.getByTestId('job');
    this.paste = this.root.getByTestId('import-paste');
    this.file = this.root.getByTestId('import-file');
    this.drop = this.root.getByTestId('import-drop');
    this.importError = this.root.getByTestId('import-error');
    this.importStatus = this.root.getByTestId('import-status');
    this.report = this.root.getByTestId('import-report');
    this.permalink = this.root.getByTestId('permalink');
    this.exportStatus = this.root.getByTestId('export-status');
    this.workloadList = this.root.getByTestId('workload-list');
    this.workloadForm = this.root.getByTestId('workload-form');
    this.workloadStatus = this.root.getByTestId('workload-status');
    this.large = this.root.locator('[data-widget="large-trace"]');
    this.nodes = this.root.locator('[data-widget="nodes"]');
    this.compare = this.root.locator('[data-widget="compare"]');
    this.charts = this.root.locator('[data-widget="charts"]');
    page.on('console', (m) => {
      if (m.type() === 'error') this.problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.push(`page error: ${e.message}`));
  }

  /**
   * Open the page and wait until the app is ready, then bring in the workbench (it loads on
   * first use: here the pointer entering it) and wait for it.
   */
  async open(url = './'): Promise<void> {
    await this.page.goto(url);
    await expect(this.page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
    await expect(this.root).toHaveAttribute('data-panels-state', /idle|loading|ready/);
    // A second open of the same page (a hash change) finds the workbench there already.
    if ((await this.root.getAttribute('data-panels-state')) === 'idle') await this.root.hover();
    await expect(this.page.locator('body[data-panels-ready="true"]')).toBeAttached({ timeout: 15_000 });
  }

  /** Open the page on a trace (a plain #trace= link). */
  async openTrace(trace: string, step: number | 'end' = 'end'): Promise<void> {
    await this.open(`./#trace=${encodeURIComponent(trace)}&step=${step}`);
  }

  async tab(id: Tab): Promise<void> {
    await this.root.locator(`button[role="tab"][data-tab="${id}"]`).click();
    await expect(this.root).toHaveAttribute('data-current-tab', id);
    if (id === 'compare') await this.compareBuilt();
  }

  /** Compare mode has replayed every column it shows (it builds them a slice at a time). */
  async compareBuilt(): Promise<void> {
    await expect(this.compare).not.toHaveAttribute('data-building', 'true', { timeout: 20_000 });
  }

  /** What the main view shows: its step and its operations (to check that nothing changed). */
  /** Compare mode with exactly these profiles checked (the others unchecked). */
  async compareOnly(...profiles: string[]): Promise<void> {
    for (const box of await this.compare.locator('input[data-profile]').all()) {
      const p = (await box.getAttribute('data-profile')) ?? '';
      if (profiles.includes(p)) await box.check();
      else await box.uncheck();
    }
    await this.compareBuilt();
  }

  async fingerprint(): Promise<{ step: string | null; ops: string[] }> {
    return {
      step: await this.page.locator('#app').getAttribute('data-step'),
      ops: await this.page.locator('[data-widget="ops"] ol.ops > li code.text').allTextContents(),
    };
  }

  /** The main view's operations. */
  mainOps(): Locator {
    return this.page.locator('[data-widget="ops"] ol.ops > li');
  }

  /** Paste-and-import some text (through the box, below the paste limit). */
  async importText(text: string, format = 'auto'): Promise<void> {
    await this.tab('io');
    await this.root.getByLabel('Input format').selectOption(format);
    await this.paste.fill(text);
    await this.importClick();
  }

  async importClick(): Promise<void> {
    const before = Number((await this.root.locator('[data-widget="import-export"]').getAttribute('data-imports')) ?? 0);
    await this.root.locator('button[data-action="import-paste"]').click();
    await expect(this.root.locator('[data-widget="import-export"]')).toHaveAttribute('data-imports', String(before + 1), { timeout: 20_000 });
  }

  /** Import a file through the file picker. */
  async importFile(name: string, content: string | Buffer, format = 'auto'): Promise<void> {
    await this.tab('io');
    await this.root.getByLabel('Input format').selectOption(format);
    const before = Number((await this.root.locator('[data-widget="import-export"]').getAttribute('data-imports')) ?? 0);
    await this.file.setInputFiles({ name, mimeType: 'text/plain', buffer: typeof content === 'string' ? Buffer.from(content) : content });
    await expect(this.root.locator('[data-widget="import-export"]')).toHaveAttribute('data-imports', String(before + 1), { timeout: 30_000 });
  }

  /** Choose a workload in the list. */
  async workload(name: string): Promise<void> {
    await this.tab('workloads');
    await this.workloadList.locator(`button[data-workload="${name}"]`).click();
    await expect(this.workloadForm).toHaveAttribute('data-workload', name);
  }

  knob(name: string): Locator {
    return this.workloadForm.locator(`[name="${name}"]`);
  }

  async generate(): Promise<void> {
    await this.workloadForm.locator('button[data-action="generate"]').click();
    await expect(this.workloadForm.locator('button[data-action="generate"]')).toBeEnabled({ timeout: 30_000 });
  }
}
