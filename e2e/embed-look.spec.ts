// Issue 60, item 5: an embedded stop shows its point. `&embed=1` lays the frame out by the stop's
// look: at 960×540 all that the look names, at 640×400 its first structure (the bar, the tree,
// the busy list or the vmap nodes); at every stop of every lesson, what is shown (the marked
// nodes and callouts, the bar's areas and outlined ranges, the code line, the narration, the
// era's structures) lies whole inside the frame and inside the panel or SVG that clips it
// (e2e/support/hall.ts), and the frame does not scroll.
import { expect, test } from '@playwright/test';
import { AppPage } from './pages/app';
import { settledStop } from './support/hall';

const LESSONS = ['walk', 'free-tree', 'lazy', 'nodes', 'maple', 'maple-rfc'];

for (const [width, height] of [
  [640, 400],
  [960, 540],
] as const) {
  test(`every stop embedded at ${width}×${height} shows what its look names`, async ({ page }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width, height });
    const app = new AppPage(page);
    const bad: string[] = [];
    let stops = 0;
    for (const id of LESSONS) {
      for (let stop = 1; stop < 30; stop++) {
        await page.goto('about:blank');
        await app.open(`./#lesson=${id}&stop=${stop}&embed=1`);
        await expect.poll(() => page.evaluate(() => document.body.dataset.embedLook ?? '')).not.toBe('');
        const n = await page.evaluate(() => (window as unknown as { vmapviz: { app: { lesson: { lesson: { stops: unknown[] } } } } }).vmapviz.app.lesson.lesson.stops.length);
        if (id.startsWith('maple')) await page.waitForTimeout(500);
        await page.waitForTimeout(300);
        // Measured until nothing is cut and the frame does not scroll, for 3 s at most (a slow
        // machine may still be laying the frame out); what lasts is reported.
        const scrolling = () => page.evaluate(() => document.documentElement.scrollHeight > innerHeight + 1 || document.documentElement.scrollWidth > innerWidth + 1);
        for (const until = Date.now() + 3_000; (await scrolling()) && Date.now() < until; ) await page.waitForTimeout(150);
        const m = await settledStop(page, false);
        // What the frame shows: the whole look in the larger frame, the stop's first structure in the smaller.
        const named = await page.evaluate(() => (window as unknown as { vmapviz: { app: { lesson: { lesson: { stops: { look: string[] }[] }; index: number } } } }).vmapviz.app.lesson);
        const look = named.lesson.stops[named.index].look;
        const first = look.find((k) => ['bar', 'tree', 'list', 'nodes'].includes(k));
        if (width >= 900) expect(m.look.sort()).toEqual([...look].sort());
        else if (first) expect(m.look).toContain(first);
        stops++;
        bad.push(...m.cut.map((c) => `${id} ${stop} [${m.look}]: ${c}`));
        if (await scrolling()) bad.push(`${id} ${stop}: the frame scrolls`);
        if (stop >= n) break;
      }
    }
    expect(stops).toBe(52);
    expect(bad).toEqual([]);
    expect(app.problems).toEqual([]);
  });
}
