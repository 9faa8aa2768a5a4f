// Page object of the whole page: navigation, readiness, console errors, the load-error banner.
import { expect, type Locator, type Page } from '@playwright/test';
import { FreeTreeWidget } from './freeTree';
import { PlayerWidget } from './player';
import { SpaceBarWidget } from './spaceBar';
import { StatsWidget } from './stats';

export class AppPage {
  readonly bar: SpaceBarWidget;
  readonly tree: FreeTreeWidget;
  readonly player: PlayerWidget;
  readonly stats: StatsWidget;
  readonly heading: Locator;
  readonly loadError: Locator;
  /** Console errors, page errors and failed requests seen since the page object was made. */
  readonly problems: string[] = [];

  constructor(readonly page: Page) {
    this.bar = new SpaceBarWidget(page);
    this.tree = new FreeTreeWidget(page);
    this.player = new PlayerWidget(page);
    this.stats = new StatsWidget(page);
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
    await expect(this.page.locator('body[data-ready="true"]')).toBeAttached({ timeout: 15_000 });
  }

  /** The step the page shows (the state after that many operations). */
  async step(): Promise<number> {
    return Number(await this.page.locator('#app').getAttribute('data-step'));
  }
}
