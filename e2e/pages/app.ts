// Page object of the whole page: navigation, readiness, console errors, the load-error banner.
import { expect, type Locator, type Page } from '@playwright/test';
import { FormsWidget } from './forms';
import { FreeTreeWidget } from './freeTree';
import { OpsWidget } from './ops';
import { PlayerWidget } from './player';
import { SpaceBarWidget } from './spaceBar';
import { SpaceZoomWidget } from './spaceZoom';
import { StatsWidget } from './stats';
import { CodeWidget, NarrationWidget } from './step';

export class AppPage {
  readonly bar: SpaceBarWidget;
  readonly tree: FreeTreeWidget;
  readonly player: PlayerWidget;
  readonly stats: StatsWidget;
  readonly ops: OpsWidget;
  readonly narration: NarrationWidget;
  readonly code: CodeWidget;
  readonly forms: FormsWidget;
  readonly zoom: SpaceZoomWidget;
  readonly heading: Locator;
  readonly loadError: Locator;
  /** Console errors, page errors and failed requests seen since the page object was made. */
  readonly problems: string[] = [];

  constructor(readonly page: Page) {
    this.bar = new SpaceBarWidget(page);
    this.tree = new FreeTreeWidget(page);
    this.player = new PlayerWidget(page);
    this.stats = new StatsWidget(page);
    this.ops = new OpsWidget(page);
    this.narration = new NarrationWidget(page);
    this.code = new CodeWidget(page);
    this.forms = new FormsWidget(page);
    this.zoom = new SpaceZoomWidget(page);
    this.heading = page.getByRole('heading', { level: 1 });
    this.loadError = page.getByTestId('load-error');
    page.on('console', (m) => {
      if (m.type() === 'error') this.problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.push(`page error: ${e.message}`));
    page.on('response', (r) => {
      if (r.status() >= 400) this.problems.push(`HTTP ${r.status()} ${r.url()}`);
    });
  }

  /** Open the app (a path relative to the base URL, or an absolute URL) and wait until it is ready. */
  async open(url = './'): Promise<void> {
    await this.page.goto(url);
    await this.waitReady();
  }

  /** Open a permalink `#trace=...&step=...`. */
  async openTrace(trace: string, step: number | 'end' = 'end'): Promise<void> {
    await this.open(`./#trace=${encodeURIComponent(trace)}&step=${step}`);
  }

  async waitReady(): Promise<void> {
    // A long link on a loaded machine (two browsers, builds beside them) can take more than 15 s.
    await expect(this.page.locator('body[data-ready="true"]:not([data-opening])')).toBeAttached({ timeout: 30_000 });
  }

  /** The step the page shows (the state after that many operations). */
  async step(): Promise<number> {
    return Number(await this.page.locator('#app').getAttribute('data-step'));
  }

  /** The event kinds of operation `op`, as the core reports them (through `window.vmapviz`). */
  async coreKinds(op: number): Promise<string[]> {
    return this.page.evaluate((k) => window.vmapviz?.app.core?.frames(k)?.frames.map((f) => f.event.kind) ?? [], op);
  }

  /** A field of every event of operation `op` (ids and hex values as the core sends them). */
  async coreEvents(op: number): Promise<Record<string, unknown>[]> {
    return this.page.evaluate(
      (k) => (window.vmapviz?.app.core?.frames(k)?.frames ?? []).map((f) => JSON.parse(JSON.stringify(f.event)) as Record<string, unknown>),
      op,
    );
  }

  /** Step forward through operation `op` (from the step before it) and collect what the narration reports. */
  async narrateOp(op: number): Promise<{ kinds: string[]; texts: string[] }> {
    await this.openStep(op);
    const kinds: string[] = [];
    const texts: string[] = [];
    for (;;) {
      await this.page.keyboard.press('ArrowRight');
      const pos = await this.player.position();
      if (pos.frame < 0) break;
      kinds.push(await this.narration.kind());
      texts.push((await this.narration.text.textContent()) ?? '');
    }
    return { kinds, texts };
  }

  /** Go to step k (before operation k) through the operation list or the start button. */
  async openStep(k: number): Promise<void> {
    if (k === 0) await this.player.start.click();
    else await this.ops.op(k - 1).click();
    await expect(this.player.root).toHaveAttribute('data-op', String(k));
  }

  /** innerHTML of the views a step draws (for exact before/after comparisons). */
  async viewsHtml(): Promise<Record<string, string>> {
    return this.page.evaluate(() => {
      const out: Record<string, string> = {};
      for (const w of ['free-tree', 'space-bar', 'narration', 'code', 'stats']) {
        out[w] = document.querySelector(`[data-widget="${w}"]`)?.innerHTML ?? '';
      }
      return out;
    });
  }
}
