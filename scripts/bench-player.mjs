// A long trace in the player (up to the 20,000 operations above which the workbench's worker
// takes it): how long the page is held when the trace opens and when the player jumps.
//
//   node scripts/bench-player.mjs [--runs N] [--no-build] [--dist DIR] [--ops 1500,5000,19000] [--compare]
//
// Each run is a fresh page (Chromium, `vite preview` of dist/, or of DIR to time another build)
// at 1440×900; a trace of N test_vmalloc-like lines (allocations, a free after every second)
// is dropped on the import panel. Measured:
//  * "opened": from the drop to the operation list showing the trace, two frames later;
//  * the longest gap between animation frames meanwhile (how long the page was held);
//  * the longest frame gap after each key of Home, Shift+→, End, Shift+← (400 ms apart);
//  * "Copy permalink" (the import panel's button): the longest frame gap until the link shows;
//  * with --compare, compare mode: the longest frame gap from a click on its tab (linux-5.1 and
//    5.2) until both columns are replayed, then from checking linux-6.1, 6.9 and maple-rfc.
import { join, resolve } from 'node:path';
import { bold, fail, median, option, ROOT, say, servePage, watchFrames } from './lib.mjs';

const args = process.argv.slice(2);
const RUNS = Math.max(1, Number(option(args, '--runs', '3')) || 3);
const DIST = resolve(option(args, '--dist', join(ROOT, 'dist')));
const SIZES = option(args, '--ops', '1500,5000,19000').split(',').map(Number);
const BUILD = !args.includes('--no-build') && !args.includes('--dist');
const KEYS = ['Home', 'Shift+ArrowRight', 'End', 'Shift+ArrowLeft'];
const COMPARE = args.includes('--compare');
/** Compare mode's steps: its tab (two columns), then one more profile at a time. */
const COMPARE_STEPS = [
  ['tab', 'button[role="tab"][data-tab="compare"]', 2],
  ['+6.1', 'input[data-profile="linux-6.1"]', 3],
  ['+6.9', 'input[data-profile="linux-6.9"]', 4],
  ['+maple-rfc', 'input[data-profile="maple-rfc"]', 5],
];

/** `n` lines: `init`, then one-page allocations with a free of an earlier one after every second. */
function trace(n) {
  const lines = ['init 0xffffc90000000000 0xffffe8ffffffffff'];
  let freed = 0;
  while (lines.length < n) {
    lines.push('alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff');
    if (lines.length % 3 === 0) lines.push(`free 0x${(0xffffc90000000000n + BigInt(freed++) * 0x2000n).toString(16)}`);
  }
  return `${lines.slice(0, n).join('\n')}\n`;
}

async function main() {
  const { url, browser, close } = await servePage({ build: BUILD, outDir: DIST });
  try {
    say(`${DIST}, Chromium ${browser.version()}, ${RUNS} runs each`);
    const rows = [];
    for (const n of SIZES) {
      const text = trace(n);
      const runs = [];
      for (let run = 0; run < RUNS; run++) {
        const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
        await page.goto(url);
        await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
        await page.click('button[role="tab"][data-tab="io"]');
        await page.waitForSelector('body[data-panels-ready="true"]', { timeout: 30_000 });
        await page.waitForTimeout(1000);
        await page.evaluate((t) => {
          window.__file = new File([t], 'player.trace', { type: 'text/plain' });
        }, text);
        await page.evaluate(watchFrames);
        await page.evaluate(() => {
          window.__t0 = performance.now();
          const zone = document.querySelector('[data-testid="import-drop"]');
          const dt = new DataTransfer();
          dt.items.add(window.__file);
          zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        });
        // The list's length: data-total (a list built by blocks), or its rows (an older build).
        await page.waitForFunction(
          (n) => {
            const l = document.querySelector('[data-widget="ops"] ol.ops');
            return Number(l?.dataset.total ?? 0) >= n || (l?.children.length ?? 0) >= n;
          },
          n,
          { timeout: 120_000 },
        );
        const r = await page.evaluate(
          () =>
            new Promise((res) => {
              const t = performance.now() - window.__t0;
              requestAnimationFrame(() =>
                requestAnimationFrame(() => {
                  window.__stop = true;
                  res({ opened: t, gap: window.__gap });
                }),
              );
            }),
        );
        await page.waitForTimeout(2000); // the link written, the worker idle
        await page.evaluate(() => document.activeElement?.blur());
        r.keys = {};
        for (const key of KEYS) {
          await page.evaluate(watchFrames);
          await page.keyboard.press(key);
          await page.waitForTimeout(400);
          r.keys[key] = await page.evaluate(() => {
            window.__stop = true;
            return window.__gap;
          });
        }
        await page.evaluate(watchFrames);
        await page.click('button[data-action="permalink"]');
        await page.waitForFunction(() => /#z=/.test(document.querySelector('[data-testid="permalink"]')?.value ?? ''), null, {
          timeout: 30_000,
        });
        await page.waitForTimeout(100);
        r.link = await page.evaluate(() => {
          window.__stop = true;
          return window.__gap;
        });
        r.compare = {};
        for (const [name, sel, cols] of COMPARE ? COMPARE_STEPS : []) {
          await page.evaluate(watchFrames);
          await page.click(sel);
          // Every column shown and replayed (an older build has no data-busy: its columns are done once shown).
          await page.waitForFunction(
            (cols) => document.querySelectorAll('[data-testid="compare-column"]').length === cols && !document.querySelector('[data-testid="compare-column"][data-busy]'),
            cols,
            { timeout: 60_000 },
          );
          await page.waitForTimeout(200);
          r.compare[name] = await page.evaluate(() => {
            window.__stop = true;
            return window.__gap;
          });
        }
        runs.push(r);
        console.log(`  ${n} ops, run ${run + 1}: opened ${Math.round(r.opened)} ms, longest frame gap ${Math.round(r.gap)} ms; keys ${KEYS.map((k) => `${k} ${Math.round(r.keys[k])}`).join(', ')} ms; permalink ${Math.round(r.link)} ms${COMPARE ? `; compare ${Object.entries(r.compare).map(([k, v]) => `${k} ${Math.round(v)}`).join(', ')} ms` : ''}`);
        await page.close();
      }
      const m = (f) => Math.round(median(runs.map(f)));
      rows.push(`| ${n.toLocaleString('en-US')} | ${m((r) => r.opened)} ms | ${m((r) => r.gap)} ms | ${KEYS.map((k) => `${m((r) => r.keys[k])} ms`).join(' | ')} | ${m((r) => r.link)} ms |${COMPARE ? COMPARE_STEPS.map(([k]) => ` ${m((r) => r.compare[k])} ms |`).join('') : ''}`);
    }
    console.log(`\n${bold('A long trace in the player')} (medians of ${RUNS})`);
    const cmp = COMPARE ? COMPARE_STEPS.map(([k]) => ` compare ${k} |`).join('') : '';
    console.log(`| operations | opened | longest frame gap | ${KEYS.join(' | ')} | Copy permalink |${cmp}`);
    console.log(`|---:|---:|---:|${KEYS.map(() => '---:').join('|')}|---:|${COMPARE ? COMPARE_STEPS.map(() => '---:|').join('') : ''}`);
    for (const row of rows) console.log(row);
  } finally {
    await close();
  }
}

main().catch(fail);
