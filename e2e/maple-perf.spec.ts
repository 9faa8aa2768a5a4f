// Frame budget of the maple tree view (issue 15), measured, not run by default (MAPLE_BENCH=1):
// BENCHMARKS.md records the figures and the command.
//
// The player steps a micro-step every 300 ms (as scripts/bench-web.mjs measures the rbtree) and
// the gaps between animation frames are counted in whole refreshes. Because the shared machine
// is loaded, each run also reports figures that do not depend on the load: the DOM mutations per
// step (a MutationObserver on the maple view and on the whole page), and the main thread's time
// split by Chromium's own counters (script, style, layout; `Performance.getMetrics`).
import { expect, test, type Page } from '@playwright/test';
import { AppPage } from './pages/app';

interface Mutations {
  attrs: number;
  added: number;
  removed: number;
}

interface StepFigures {
  entries: number;
  /** Navigation to the maple tree drawn, ms. */
  ready: number;
  nodes: number;
  frames: number;
  late: number;
  p95Whole: number;
  rawP50: number;
  rawP95: number;
  rawMax: number;
  keyP50: number;
  keyP95: number;
  viewP50: number;
  viewP95: number;
  viewMutations: Mutations;
  pageMutations: Mutations;
  /** The address bar (overview) and its lens (the zoomable view). */
  barMutations: Mutations;
  lensMutations: Mutations;
  /** The bar's and the lens's render together, per step, ms. */
  barP50: number;
  barP95: number;
  drawn: string;
  perStep: Record<string, number>;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : 0;
};

async function stepAndMeasure(page: Page, steps: number, every = 300): Promise<StepFigures> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => {
    const { metrics: m } = await cdp.send('Performance.getMetrics');
    return new Map(m.map((x) => [x.name, x.value]));
  };
  const before = await metrics();
  const r = await page.evaluate(async ([n, wait]) => {
    // The maple view's render, timed where the page calls it.
    type Renders = { render: (...a: unknown[]) => void };
    const app = window.vmapviz?.app as unknown as { mapleUi: { view: Renders } | null; bar: Renders; lens: Renders };
    // Time a view's render where the page calls it (a render inside another, as the lens asks
    // the bar to draw its window, counts once); the returned function puts it back.
    let depth = 0;
    const timed = (view: Renders | undefined, add: (ms: number) => void) => {
      if (!view) return () => undefined;
      const orig = view.render;
      view.render = (...a: unknown[]) => {
        const t = performance.now();
        depth++;
        try {
          orig.apply(view, a);
        } finally {
          depth--;
        }
        if (depth === 0) add(performance.now() - t);
      };
      return () => {
        view.render = orig;
      };
    };
    const viewMs: number[] = [];
    // The bar's and the lens's renders of one step, summed.
    const barMs: number[] = [];
    let barStep = 0;
    const untime = [
      timed(app.mapleUi?.view, (t) => viewMs.push(t)),
      timed(app.bar, (t) => (barStep += t)),
      timed(app.lens, (t) => (barStep += t)),
    ];
    // Nodes added or removed count with their descendants (a parsed fragment is one record).
    const weight = (ns: NodeList) => {
      let w = 0;
      for (const x of ns) w += 1 + (x instanceof Element ? x.getElementsByTagName('*').length : 0);
      return w;
    };
    const count = (root: Node) => {
      const c = { attrs: 0, added: 0, removed: 0 };
      const mo = new MutationObserver((recs) => {
        for (const x of recs) {
          if (x.type === 'childList') {
            c.added += weight(x.addedNodes);
            c.removed += weight(x.removedNodes);
          } else c.attrs++;
        }
      });
      mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      return { c, mo };
    };
    const mapleRoot = document.querySelector('[data-widget="maple-tree"]') as HTMLElement;
    const viewCount = count(mapleRoot);
    const pageCount = count(document.body);
    const barCount = count(document.querySelector('[data-widget="space-bar"]') as HTMLElement);
    const lensCount = count(document.querySelector('[data-widget="space-zoom"]') as HTMLElement);
    const stamps: number[] = [];
    const keyMs: number[] = [];
    let on = true;
    const tick = (t: number) => {
      stamps.push(t);
      if (on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      barStep = 0;
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      keyMs.push(performance.now() - t);
      barMs.push(barStep);
      await new Promise((res) => setTimeout(res, wait));
    }
    on = false;
    for (const c of [viewCount, pageCount, barCount, lensCount]) c.mo.disconnect();
    for (const u of untime) u();
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
    return {
      gaps,
      keyMs,
      viewMs,
      barMs,
      viewMutations: viewCount.c,
      pageMutations: pageCount.c,
      barMutations: barCount.c,
      lensMutations: lensCount.c,
      nodes: Number(mapleRoot.dataset.nodes ?? 0),
      drawn: `${mapleRoot.dataset.drawn ?? '?'} drawn, ${mapleRoot.dataset.hidden ?? '?'} placeholders, ${mapleRoot.querySelectorAll('*').length} elements`,
    };
  }, [steps, every]);
  const after = await metrics();
  const perStep: Record<string, number> = {};
  for (const k of ['ScriptDuration', 'RecalcStyleDuration', 'LayoutDuration', 'TaskDuration', 'RecalcStyleCount', 'LayoutCount']) {
    const d = (after.get(k) ?? 0) - (before.get(k) ?? 0);
    perStep[k] = k.endsWith('Duration') ? (d * 1000) / steps : d / steps;
  }
  const period = 1000 / 60;
  const whole = r.gaps.map((g) => Math.max(1, Math.round(g / period)) * period);
  return {
    entries: 0,
    ready: 0,
    nodes: r.nodes,
    frames: r.gaps.length,
    late: r.gaps.filter((g) => g > period * 1.5).length,
    p95Whole: pct(whole, 0.95),
    rawP50: pct(r.gaps, 0.5),
    rawP95: pct(r.gaps, 0.95),
    rawMax: pct(r.gaps, 1),
    keyP50: pct(r.keyMs, 0.5),
    keyP95: pct(r.keyMs, 0.95),
    viewP50: pct(r.viewMs, 0.5),
    viewP95: pct(r.viewMs, 0.95),
    viewMutations: r.viewMutations,
    pageMutations: r.pageMutations,
    barMutations: r.barMutations,
    lensMutations: r.lensMutations,
    barP50: pct(r.barMs, 0.5),
    barP95: pct(r.barMs, 0.95),
    drawn: r.drawn,
    perStep,
  };
}

function report(what: string, steps: number, f: StepFigures): void {
  const ms = (x: number) => x.toFixed(1);
  const m = f.perStep;
  const dom = (x: Mutations) => [x.attrs, x.added, x.removed].map((v) => (v / steps).toFixed(1)).join(' / ');
  console.log(
    [
      `${what}: ${f.entries ? `${f.entries} entries, ` : ''}${f.nodes} nodes (${f.drawn}), ${steps} micro-steps${f.ready ? `; link opened and tree drawn in ${ms(f.ready)} ms` : ''}`,
      `  frames ${f.frames}, ${f.late} late; p95 ${ms(f.p95Whole)} ms in whole refreshes; raw p50 ${ms(f.rawP50)} p95 ${ms(f.rawP95)} max ${ms(f.rawMax)} ms`,
      `  key handler p50 ${ms(f.keyP50)} p95 ${ms(f.keyP95)} ms; maple view render p50 ${ms(f.viewP50)} p95 ${ms(f.viewP95)} ms`,
      `  address bar + lens render p50 ${ms(f.barP50)} p95 ${ms(f.barP95)} ms`,
      `  DOM writes per step (attributes written / nodes added / removed): maple view ${dom(f.viewMutations)}; address bar ${dom(f.barMutations)}; lens ${dom(f.lensMutations)}; whole page ${dom(f.pageMutations)}`,
      `  main thread per step: script ${ms(m.ScriptDuration)} ms, style ${ms(m.RecalcStyleDuration)} ms (${m.RecalcStyleCount.toFixed(1)}×), layout ${ms(m.LayoutDuration)} ms (${m.LayoutCount.toFixed(1)}×), tasks ${ms(m.TaskDuration)} ms`,
    ].join('\n'),
  );
}

/**
 * Open the trace's permalink at `step` (a fresh load); the time from navigation to the first
 * animation frame with the maple tree drawn (the link opens in slices, then the view's chunk
 * loads), by the page's clock.
 */
async function open(app: AppPage, trace: string, step: number, drawn = '[data-widget="maple-tree"] .maple-node g.cells'): Promise<number> {
  await app.page.goto(`./#trace=${encodeURIComponent(trace)}&step=${step}&frame=0`);
  const ready = await app.page.waitForFunction(
    (sel) => (document.querySelector(`body[data-ready="true"]:not([data-opening]) ${sel}`) ? performance.now() : 0),
    drawn,
    { polling: 'raf', timeout: 30_000 },
  );
  await app.waitReady();
  return (await ready.jsonValue()) as number;
}

/**
 * Wait until the page has written nothing for 300 ms (at most 10 s): the first drawing done (a
 * lazy chunk's view, the panels' widths settled), so that only the steps are counted.
 */
async function settle(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((done) => {
        let timer = 0;
        const quiet = () => {
          clearTimeout(timer);
          timer = window.setTimeout(() => {
            mo.disconnect();
            done();
          }, 300);
        };
        const mo = new MutationObserver(quiet);
        mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
        quiet();
        window.setTimeout(() => {
          mo.disconnect();
          done();
        }, 10_000);
      }),
  );
}

const STEPS = Number(process.env.MAPLE_BENCH_STEPS ?? 150);
/** Bounds per micro-step for the address bar and for its lens: attributes written, nodes added or removed. */
const BAR_ATTRS = 60;
const BAR_NODES = 40;

/**
 * 1,300 stored ranges of two pages with one-page holes, every ninth erased, then searches for
 * two pages: each search walks the tree to the first erased range, an arange root over leaves.
 * `start`: the operation before the first search.
 */
function largeMapleTree(): { trace: string; start: number } {
  const lines = ['profile maple-tree'];
  const at = (i: number) => 0x100000 + i * 0x3000;
  for (let i = 0; i < 1300; i++) lines.push(`store 0x${at(i).toString(16)} 0x${(at(i) + 0x1fff).toString(16)}`);
  for (let i = 0; i < 1300; i += 9) lines.push(`erase 0x${at(i).toString(16)} 0x${(at(i) + 0x1fff).toString(16)}`);
  const start = lines.length - 1;
  for (let i = 0; i < 40; i++) {
    lines.push('empty 0x100000 0xffffffff 0x2000');
    lines.push(`store 0x${at(i * 9).toString(16)} 0x${(at(i * 9) + 0x1fff).toString(16)}`);
  }
  return { trace: `${lines.join('\n')}\n`, start };
}

// Not a timing, so it runs always: the DOM writes of a step do not depend on the machine's load.
// On `main` before this check (bbaef32) the view wrote 1,068 attributes and added 652 nodes per
// step on this walk; now about 14 and 117 (one leaf's content coming near the screen as the fit
// follows the search). The bounds leave room, not for a per-node rewrite.
test('a step of the maple view on a tree of over 1,000 entries writes only what changed', async ({ page }) => {
  test.setTimeout(90_000);
  const { trace, start } = largeMapleTree();
  const app = new AppPage(page);
  await open(app, trace, start);
  const f = await stepAndMeasure(page, 60, 40);
  report('maple-tree (DOM writes)', 60, f);
  expect(f.nodes).toBeGreaterThan(150);
  expect(f.viewMutations.attrs / 60).toBeLessThan(50);
  expect(f.viewMutations.added / 60).toBeLessThan(300);
  expect(f.viewMutations.removed / 60).toBeLessThan(300);
  // Every node is still an element with its attributes, drawn or not.
  await expect(page.locator('[data-widget="maple-tree"] [data-maple-slots]')).toHaveCount(f.nodes);
  expect(app.problems).toEqual([]);
});

test('stepping a maple tree of over 1,000 entries: p95 frame within budget', async ({ page }) => {
  test.skip(!process.env.MAPLE_BENCH, 'a frame-time measurement: run with MAPLE_BENCH=1 on an idle machine');
  test.setTimeout(180_000);
  const { trace, start } = largeMapleTree();
  const app = new AppPage(page);
  const ready = await open(app, trace, start);
  const entries = await page.evaluate((k) => {
    const c = window.vmapviz?.app.core as unknown as { tree(k: number): { nodes: { type: string; slots: { k: string }[] }[] } };
    return c.tree(k).nodes.filter((n) => n.type === 'leaf').reduce((s, n) => s + n.slots.filter((x) => x.k === 'E').length, 0);
  }, start);
  expect(entries).toBeGreaterThanOrEqual(1000);
  const f = await stepAndMeasure(page, STEPS);
  f.entries = entries;
  f.ready = ready;
  report('maple-tree', STEPS, f);
  expect(app.problems).toEqual([]);
  expect(f.p95Whole).toBeLessThanOrEqual(16.7);
});

/**
 * 1,300 vmalloc(4096)s (under maple-rfc with the bump overlay off, each a range of the occupied
 * tree), every ninth freed and purged, then 40 more allocations that search the holes.
 * `start`: the operation before the first of those.
 */
function manyAreas(profile: 'maple-rfc' | 'linux-6.9'): { trace: string; start: number } {
  const lines = profile === 'maple-rfc' ? ['profile maple-rfc', 'bump off'] : [`profile ${profile}`];
  const win = '0xffffc90000000000 0xffffe8ffffffffff';
  for (let i = 0; i < 1300; i++) lines.push(`alloc 0x2000 0x1 ${win}`);
  for (let i = 0; i < 1300; i += 9) lines.push(`free 0x${(0xffffc90000000000n + BigInt(i) * 0x2000n).toString(16)}`);
  lines.push('purge');
  const start = lines.length - 2;
  for (let i = 0; i < 40; i++) lines.push(`alloc 0x2000 0x1 ${win}`);
  return { trace: `${lines.join('\n')}\n`, start };
}

test('stepping maple-rfc over an occupied tree of over 1,000 areas: p95 frame within budget', async ({ page }) => {
  test.skip(!process.env.MAPLE_BENCH, 'a frame-time measurement: run with MAPLE_BENCH=1 on an idle machine');
  test.setTimeout(180_000);
  const { trace, start } = manyAreas('maple-rfc');
  const app = new AppPage(page);
  const ready = await open(app, trace, start);
  const entries = await page.evaluate(() => {
    const root = document.querySelector('[data-widget="maple-tree"]') as HTMLElement;
    return [...root.querySelectorAll('[data-maple-type="leaf"]')].reduce(
      (s, e) => s + (e.getAttribute('data-maple-slots') ?? '').split(' ').filter((x) => x.split(':')[2] === 'E').length,
      0,
    );
  });
  expect(entries).toBeGreaterThanOrEqual(1000);
  const f = await stepAndMeasure(page, STEPS);
  f.entries = entries;
  f.ready = ready;
  report('maple-rfc occupied', STEPS, f);
  expect(app.problems).toEqual([]);
  expect(f.p95Whole).toBeLessThanOrEqual(16.7);
});

test('stepping linux-6.9 over 1,300 areas: p95 frame within budget', async ({ page }) => {
  test.skip(!process.env.MAPLE_BENCH, 'a frame-time measurement: run with MAPLE_BENCH=1 on an idle machine');
  test.setTimeout(180_000);
  const { trace, start } = manyAreas('linux-6.9');
  const app = new AppPage(page);
  const ready = await open(app, trace, start, '[data-widget="space-bar"] g.area');
  const f = await stepAndMeasure(page, STEPS);
  f.ready = ready;
  report('linux-6.9', STEPS, f);
  expect(app.problems).toEqual([]);
  expect(f.p95Whole).toBeLessThanOrEqual(16.7);
});

// Not a timing either: the address bar and its lens write per micro-step only what changed
// (keyed by area, an attribute written when its value changes), under every profile.
for (const profile of ['maple-rfc', 'linux-6.9'] as const) {
  test(`a step of the address bar over 1,300 areas writes only what changed (${profile})`, async ({ page }) => {
    test.setTimeout(90_000);
    const { trace, start } = manyAreas(profile);
    const app = new AppPage(page);
    await open(app, trace, start, profile === 'maple-rfc' ? undefined : '[data-widget="free-tree"] g.node');
    await settle(page);
    const f = await stepAndMeasure(page, 60, 40);
    report(`${profile} address bar (DOM writes)`, 60, f);
    // Areas and clusters of areas (over 400 are drawn as clusters of neighbours).
    expect(await page.locator('[data-widget="space-bar"] g.area').count()).toBeGreaterThan(100);
    expect(f.barMutations.attrs / 60).toBeLessThan(BAR_ATTRS);
    expect(f.barMutations.added / 60).toBeLessThan(BAR_NODES);
    expect(f.barMutations.removed / 60).toBeLessThan(BAR_NODES);
    expect(f.lensMutations.attrs / 60).toBeLessThan(BAR_ATTRS);
    expect(f.lensMutations.added / 60).toBeLessThan(BAR_NODES);
    expect(f.lensMutations.removed / 60).toBeLessThan(BAR_NODES);
    expect(app.problems).toEqual([]);
  });
}

/**
 * Where opening a long maple-rfc link goes: the page's own spans (`vmapviz:*` measures of
 * web/src/app.ts: the default scenario shown meanwhile, the core's sliced parse and replay, the
 * operation list, the end state the lens frames, the first render with its state and frames,
 * the maple view's chunk and its first drawing) against the time to the tree drawn.
 */
async function openingSpans(page: Page, step: number | 'end'): Promise<{ ready: number; link: number; spans: [string, number, number][] }> {
  const { trace } = manyAreas('maple-rfc');
  // A fresh load each time (a link that differs only in its hash would not reload the page).
  await page.goto('about:blank');
  await page.goto(`./#trace=${encodeURIComponent(trace)}&step=${step}${step === 'end' ? '' : '&frame=0'}`);
  const ready = await page.waitForFunction(
    () => (document.querySelector('body[data-ready="true"]:not([data-opening]) [data-widget="maple-tree"] .maple-node g.cells') ? performance.now() : 0),
    null,
    { polling: 'raf', timeout: 30_000 },
  );
  const at = (await ready.jsonValue()) as number;
  return page.evaluate((readyAt) => {
    const link = performance.getEntriesByName('vmapviz:open-link')[0]?.startTime ?? 0;
    const spans = performance
      .getEntriesByType('measure')
      .filter((m) => m.name.startsWith('vmapviz:'))
      .map((m) => [m.name.slice(8), m.startTime, m.duration] as [string, number, number]);
    return { ready: readyAt, link, spans };
  }, at);
}

function reportSpans(what: string, o: { ready: number; link: number; spans: [string, number, number][] }): Map<string, number> {
  const total = new Map<string, number>();
  for (const [n, , d] of o.spans) total.set(n, (total.get(n) ?? 0) + d);
  console.log(
    `${what}: tree drawn ${o.ready.toFixed(0)} ms after navigation; link handled from ${o.link.toFixed(0)} ms\n  ` +
      [...total].map(([n, d]) => `${n} ${d.toFixed(1)}`).join(', ') +
      ' (ms; state, frames, stats, address-views and maple-view are parts of first-render or maple-render)',
  );
  return total;
}

test('opening a long maple-rfc link: where the time goes', async ({ page }) => {
  test.setTimeout(90_000);
  const app = new AppPage(page);
  for (const step of ['end', 1446] as const) {
    const o = await openingSpans(page, step);
    const total = reportSpans(`maple-rfc link of 1,487 operations at step ${step}`, o);
    for (const n of ['slices', 'summaries', 'first-render', 'maple-chunk', 'maple-view']) expect(total.has(n), n).toBe(true);
    await app.waitReady();
    if (process.env.MAPLE_BENCH) expect(o.ready).toBeLessThanOrEqual(1000);
  }
  expect(app.problems).toEqual([]);
});

test("a long maple-rfc link fetches the maple view's chunk while the core replays the trace", async ({ page }) => {
  const app = new AppPage(page);
  const o = await openingSpans(page, 'end');
  const chunk = o.spans.find(([n]) => n === 'maple-chunk');
  const slices = o.spans.filter(([n]) => n === 'slices');
  expect(chunk, 'the maple chunk was fetched').toBeTruthy();
  expect(slices.length, 'the link opened in slices').toBeGreaterThan(0);
  // The fetch began before the last slice of the replay ended (not after the opening).
  const opened = Math.max(...slices.map(([, start, d]) => start + d));
  expect((chunk as [string, number, number])[1]).toBeLessThan(opened);
  await app.waitReady();
  expect(app.problems).toEqual([]);
});

test('opening a long maple-rfc link: median time to the tree drawn', async ({ page }) => {
  test.skip(!process.env.MAPLE_BENCH, 'a time measurement: run with MAPLE_BENCH=1');
  test.setTimeout(240_000);
  const runs = Number(process.env.MAPLE_BENCH_OPENS ?? 7);
  for (const step of ['end', 1446] as const) {
    const ready: number[] = [];
    const fromLink: number[] = [];
    const spans = new Map<string, number[]>();
    for (let i = 0; i < runs; i++) {
      const o = await openingSpans(page, step);
      ready.push(o.ready);
      fromLink.push(o.ready - o.link);
      const total = new Map<string, number>();
      for (const [n, , d] of o.spans) total.set(n, (total.get(n) ?? 0) + d);
      for (const [n, d] of total) spans.set(n, [...(spans.get(n) ?? []), d]);
    }
    console.log(
      `maple-rfc link of 1,487 operations at step ${step}, ${runs} loads: navigation to the tree drawn, median ${pct(ready, 0.5).toFixed(0)} ms ` +
        `(min ${Math.min(...ready).toFixed(0)}, max ${Math.max(...ready).toFixed(0)}); from the link handled (after the wasm's init) ${pct(fromLink, 0.5).toFixed(0)} ms; medians of the spans: ` +
        [...spans].map(([n, d]) => `${n} ${pct(d, 0.5).toFixed(1)}`).join(', '),
    );
  }
});
