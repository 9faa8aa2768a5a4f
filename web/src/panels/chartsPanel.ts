// The charts of the seed's claims, computed by the core in a worker: cost per operation against
// live areas for each profile (a sweep over random and long_busy shapes, log axes), and the lock
// contention model (throughput and the global lock's hold and wait shares against CPUs).
import { eraOf, type Era } from '../eras';
import type { ReplayWorker } from '../workers/client';
import { parseContention, parseSweep, type ContentionPoint, type SweepPoint } from './api';
import { drawChart, profileStyle, shortNum, type Series } from './charts/lineChart';
import { button, download, h, select } from './dom';
import { pngBlob, svgMarkup } from './exportImage';

/** A line of the cost charts: a profile, and for an era with a bump overlay that overlay off or on. */
export interface SweepVariant {
  key: string;
  label: string;
  profile: string;
  bump: boolean | null;
  dashed: boolean;
  color: string;
  symbol: number;
}

/** The bump-on line's own colour (the era's colour marks the overlay off). */
const BUMP_ON_COLOR = '#1f6f99';

function variants(eras: readonly Era[], of: readonly Era[], bumpOrder: readonly boolean[], dashed: (e: Era, bump: boolean | null) => boolean): SweepVariant[] {
  const plain = of.filter((e) => !e.bumpOverlay);
  const bumped = of.filter((e) => e.bumpOverlay);
  const v = (e: Era, bump: boolean | null): SweepVariant => {
    const st = profileStyle(eras, e.name);
    return {
      key: bump === null ? e.name : `${e.name}-bump-${bump ? 'on' : 'off'}`,
      label: bump === null ? e.name : `${e.name}, bump ${bump ? 'on' : 'off'}`,
      profile: e.name,
      bump,
      dashed: dashed(e, bump),
      color: bump === true ? BUMP_ON_COLOR : st.color,
      symbol: st.symbol,
    };
  };
  return [...plain.map((e) => v(e, null)), ...bumped.flatMap((e) => bumpOrder.map((b) => v(e, b)))];
}

/**
 * The lines of the cost sweep: every era (the core's sweep runs each), an era with a bump overlay
 * twice, the overlay off (every search in its tree) and on. Dashed: the list walk (no free tree)
 * and the overlay on.
 */
export function sweepVariants(eras: readonly Era[]): SweepVariant[] {
  return variants(eras, eras, [false, true], (e, bump) => !e.freeTree || bump === true);
}

/** The points of one variant. */
export function variantPoints(pts: SweepPoint[], v: SweepVariant): SweepPoint[] {
  return pts.filter((x) => x.profile === v.profile && (v.bump === null || x.bump === v.bump));
}

/**
 * The lines of the search-cost charts (binary tree against B-tree): the per-CPU eras' sweep
 * lines, the vmap nodes' rbtrees beside the maple trees of an era with a bump overlay.
 */
export function searchVariants(eras: readonly Era[]): SweepVariant[] {
  return sweepVariants(eras).filter((v) => eraOf(eras, v.profile)?.perCpu);
}
export const SWEEP_LIVES = '100,300,1000,3000,10000,30000';

/**
 * The rows of the contention model, the free tree's lock against CPUs: every era with a free
 * tree (5.1's list walk takes the one lock 5.2 takes), and an era with a bump overlay twice, on
 * and off (`vmap-bench --contention`'s `maple-rfc/bump` and `maple-rfc/nobump`).
 */
export function contentionVariants(eras: readonly Era[]): SweepVariant[] {
  return variants(
    eras,
    eras.filter((e) => e.freeTree),
    [true, false],
    () => false,
  );
}

/** A contention point of one variant (the core's points carry no bump flag: the page adds it). */
export interface VariantPoint extends ContentionPoint {
  variant: string;
}

/** One line per contention variant for a measure (`scale` 100: a share in %). */
export function contentionSeries(
  pts: VariantPoint[],
  variants: readonly SweepVariant[],
  key: 'throughput' | 'globalLockHold' | 'waitShare' | 'globalLockOps',
  what: string,
  scale = 1,
  dashed = false,
): Series[] {
  return variants.map((v) => {
    return {
      key: `${v.key}-${key}`,
      label: what ? `${v.label} ${what}` : v.label,
      color: v.color,
      symbol: v.symbol,
      dashed,
      points: pts
        .filter((x) => x.variant === v.key)
        .map((x) => ({
          x: x.cpus,
          y: x[key] * scale,
          data: { profile: v.profile, ...(v.bump === null ? {} : { bump: v.bump ? 'on' : 'off' }), cpus: x.cpus, metric: key, value: +x[key].toFixed(4) },
          title: `${v.label}, ${x.cpus} CPUs: ${(x[key] * scale).toFixed(1)}`,
        })),
    };
  });
}
export const CONTENTION_CPUS = '1,2,4,8,16,32,64';

export type SweepMetric = 'work' | 'nodesVisited' | 'listWalked' | 'cacheLines';
/** The measures of the cost charts (the list walk's names the eras that walk a list). */
function sweepMetrics(eras: readonly Era[]): [SweepMetric, string][] {
  const walks = eras.filter((e) => !e.freeTree).map((e) => e.name);
  return [
    ['work', 'work per operation (visits + list walk + propagation + rotations)'],
    ['listWalked', `busy-list entries walked${walks.length ? ` (${walks.join(', ')})` : ''}`],
    ['nodesVisited', 'tree nodes visited'],
    ['cacheLines', 'cache lines touched (est.)'],
  ];
}

/** One line per variant of a sweep's points, for a measure (log axes: a zero sits on the floor, 0.1). */
export function sweepSeries(pts: SweepPoint[], variants: readonly SweepVariant[], m: SweepMetric, shape: string): Series[] {
  return variants.map((v) => {
    return {
      key: v.key,
      label: v.label,
      color: v.color,
      symbol: v.symbol,
      dashed: v.dashed,
      points: variantPoints(pts, v).map((x) => ({
        x: x.live,
        y: Math.max(x[m], 0.1),
        data: { profile: v.profile, ...(v.bump === null ? {} : { bump: v.bump ? 'on' : 'off' }), live: x.live, value: +x[m].toFixed(3), shape },
        title: `${v.label}, ${x.live} live areas: ${x[m].toFixed(2)} per operation`,
      })),
    };
  });
}

/**
 * Lines of two eras that the core computed equal, point for point (linux-6.18 and 6.9: they
 * differ only where these workloads do not go): the later one is labelled with the earlier's name
 * and drawn beneath it, so the earlier era's line shows as before. `series[i]` is `variants[i]`'s.
 */
export function markTwins(series: Series[], variants: readonly SweepVariant[]): Series[] {
  const same = (a: Series, b: Series) => a.points.length > 0 && a.points.length === b.points.length && a.points.every((p, i) => p.x === b.points[i].x && p.y === b.points[i].y);
  return series.map((s, i) => {
    if (variants[i]?.bump !== null) return s;
    const twin = series.slice(0, i).find((t, j) => variants[j]?.bump === null && !t.beneath && same(s, t));
    return twin ? { ...s, label: `${s.label} (= ${variants[series.indexOf(twin)].label})`, beneath: true } : s;
  });
}

export class ChartsPanel {
  readonly root: HTMLElement;
  private readonly costRandom: HTMLElement;
  private readonly costLong: HTMLElement;
  private readonly searchNodes: HTMLElement;
  private readonly searchLines: HTMLElement;
  private readonly mapleNote: HTMLElement;
  private readonly throughput: HTMLElement;
  private readonly shares: HTMLElement;
  private readonly status: HTMLElement;
  private readonly metricSel: HTMLSelectElement;
  private sweeps: Map<string, SweepPoint[]> | null = null;
  private contention: VariantPoint[] | null = null;
  private started = false;
  private readonly metrics: [SweepMetric, string][];
  private readonly sweepLines: SweepVariant[];
  private readonly searchRows: SweepVariant[];
  private readonly contentionRows: SweepVariant[];

  constructor(
    private readonly worker: () => ReplayWorker,
    eras: readonly Era[],
  ) {
    this.metrics = sweepMetrics(eras);
    this.sweepLines = sweepVariants(eras);
    this.searchRows = searchVariants(eras);
    this.contentionRows = contentionVariants(eras);
    this.metricSel = select('sweep-metric', this.metrics, 'work');
    this.metricSel.setAttribute('aria-label', 'Cost measure');
    this.metricSel.addEventListener('change', () => this.drawCost());
    const box = (id: string) => {
      const b = h('div', { class: 'wb-chart-box', 'data-testid': id });
      const tools = h(
        'div',
        { class: 'wb-chart-tools' },
        ...(['svg', 'png'] as const).map((kind) => {
          const x = button(kind.toUpperCase(), `${id}-${kind}`, `Save this chart as ${kind.toUpperCase()}`, 'btn btn-small');
          x.addEventListener('click', () => void this.save(b, id, kind));
          return x;
        }),
      );
      return { box: b, wrap: h('figure', { class: 'wb-figure' }, b, tools) };
    };
    const r = box('cost-random');
    const l = box('cost-long-busy');
    const t = box('contention-throughput');
    const s = box('contention-shares');
    const sn = box('search-nodes');
    const sl = box('search-lines');
    this.searchNodes = sn.box;
    this.searchLines = sl.box;
    this.mapleNote = h('p', { class: 'wb-muted', 'data-testid': 'maple-counters-note' });
    this.costRandom = r.box;
    this.costLong = l.box;
    this.throughput = t.box;
    this.shares = s.box;
    this.status = h('p', { class: 'wb-status', role: 'status', 'data-testid': 'charts-status' });
    this.root = h(
      'div',
      { class: 'wb-charts', 'data-widget': 'charts' },
      h('div', { class: 'wb-row wb-spread' }, h('h3', {}, 'Cost per operation against live areas'), h('label', { class: 'wb-inline-field' }, 'measure ', this.metricSel)),
      h(
        'p',
        { class: 'wb-muted' },
        'The core keeps N areas busy, then runs 200 rounds (random: free one at random and allocate 1–100 pages; long_busy: 100 pages + 1 page, then free both) and averages its counters per operation. Both axes are logarithmic: the pre-2019 list walk (linux-5.1) grows with N, the tree stays near flat.',
      ),
      h('div', { class: 'wb-chart-grid' }, r.wrap, l.wrap),
      h('h3', {}, 'Search cost: a binary tree against a 10–16-way B-tree'),
      h(
        'p',
        { class: 'wb-muted' },
        'The same random sweep, the vmap-node eras’ rbtrees against maple-rfc’s maple trees: tree nodes visited and cache lines touched per operation. The augmented rbtree is about log₂ N deep; the maple tree about log₁₀ to log₁₆ N, with several slots scanned in each 256-byte node. With the bump overlay on, most allocations touch no tree at all.',
      ),
      this.mapleNote,
      h('div', { class: 'wb-chart-grid' }, sn.wrap, sl.wrap),
      h('h3', {}, 'Why 6.9 scales: the lock contention model'),
      h(
        'p',
        { class: 'wb-muted' },
        'N simulated CPUs interleaved, each running 200 vmalloc/vfree pairs; every operation holds the locks the kernel takes for it for a cost from the core’s counters (5.2 and 6.1: one global lock; 6.9 and 6.18: the free-tree lock only on a pool miss, per-node locks otherwise; maple-rfc: the same locks around its maple trees, and with the bump overlay on, a per-CPU chunk served under no lock, the global lock taken only to refill or release a chunk). A model, not a measurement: see ',
        // The build copies BENCHMARKS.md next to the page (vite.config.ts).
        h('a', { href: './BENCHMARKS.md', target: '_blank', rel: 'noopener', 'data-testid': 'benchmarks-link' }, 'BENCHMARKS.md'),
        ' for real threads.',
      ),
      h('div', { class: 'wb-chart-grid' }, t.wrap, s.wrap),
      this.status,
    );
  }

  /** Compute (once) and draw; called when the tab is first shown. */
  async show(): Promise<void> {
    if (this.started) {
      this.drawCost();
      this.drawSearch();
      this.drawContention();
      return;
    }
    this.started = true;
    this.status.textContent = 'The core is computing the sweeps…';
    const w = this.worker();
    const t0 = performance.now();
    try {
      const sweeps = new Map<string, SweepPoint[]>();
      for (const shape of ['random', 'long_busy']) {
        const pts: SweepPoint[] = [];
        for (const v of this.sweepLines) {
          const req = { type: 'sweep' as const, profile: v.profile, shape, lives: SWEEP_LIVES, rounds: 200, ...(v.bump === null ? {} : { bump: v.bump }) };
          pts.push(...parseSweep(await w.call<string>(req)));
        }
        sweeps.set(shape, pts);
      }
      this.sweeps = sweeps;
      this.drawCost();
      this.drawSearch();
      const cont: VariantPoint[] = [];
      for (const v of this.contentionRows) {
        const req = { type: 'contention' as const, profile: v.profile, cpus: CONTENTION_CPUS, pairs: 200, ...(v.bump === null ? {} : { bump: v.bump }) };
        cont.push(...parseContention(await w.call<string>(req)).map((x) => ({ ...x, variant: v.key })));
      }
      this.contention = cont;
      this.drawContention();
      this.status.textContent = `Computed by the core in ${Math.round(performance.now() - t0)} ms (in a worker).`;
      this.root.dataset.ready = 'true';
    } catch (e) {
      this.started = false;
      this.status.textContent = `The charts could not be computed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private drawCost(): void {
    if (!this.sweeps) return;
    const m = this.metricSel.value as SweepMetric;
    const label = this.metrics.find(([k]) => k === m)?.[1] ?? m;
    for (const [shape, root] of [
      ['random', this.costRandom],
      ['long_busy', this.costLong],
    ] as const) {
      const pts = this.sweeps.get(shape) ?? [];
      const series = markTwins(sweepSeries(pts, this.sweepLines, m, shape), this.sweepLines);
      drawChart(root, {
        title: shape === 'random' ? 'random sizes (1–100 pages)' : 'long_busy_list (100 + 1 pages)',
        subtitle: label,
        x: { label: 'live areas (log)', log: true, format: shortNum, ticks: SWEEP_LIVES.split(',').map(Number) },
        y: { label: 'per operation (log)', log: true, format: shortNum },
        series,
      });
    }
  }

  /** The vmap-node eras against the bump overlay's: nodes visited and cache lines per operation (random shape). */
  private drawSearch(): void {
    if (!this.sweeps) return;
    const pts = this.sweeps.get('random') ?? [];
    const variants = this.searchRows;
    const rfc = pts.filter((x) => variants.some((v) => v.bump !== null && v.profile === x.profile));
    const silent = rfc.length > 0 && rfc.every((x) => x.nodesVisited === 0 && x.cacheLines === 0);
    this.root.dataset.mapleCounters = silent ? 'zero' : 'counted';
    this.mapleNote.textContent = silent
      ? 'maple-rfc’s lines sit on the floor: the core does not count its maple tree’s node visits yet (its counters read 0 until the maple search reports them).'
      : '';
    for (const [m, root, what] of [
      ['nodesVisited', this.searchNodes, 'tree nodes visited per operation (log)'],
      ['cacheLines', this.searchLines, 'cache lines touched per operation (log)'],
    ] as const) {
      drawChart(root, {
        title: m === 'nodesVisited' ? 'nodes visited: log₂ N against log₁₆ N' : 'cache lines touched',
        subtitle: 'random sizes (1–100 pages)',
        x: { label: 'live areas (log)', log: true, format: shortNum, ticks: SWEEP_LIVES.split(',').map(Number) },
        y: { label: what, log: true, format: shortNum },
        series: markTwins(sweepSeries(pts, variants, m, 'random'), variants),
      });
    }
  }

  private drawContention(): void {
    const c = this.contention;
    if (!c) return;
    const cpus = CONTENTION_CPUS.split(',').map(Number);
    drawChart(this.throughput, {
      title: 'throughput against CPUs',
      subtitle: 'operations per 1000 time units (model)',
      x: { label: 'CPUs (log₂)', log: true, base: 2, ticks: cpus, format: String },
      y: { label: 'ops / 1000 units', format: shortNum },
      series: markTwins(contentionSeries(c, this.contentionRows, 'throughput', ''), this.contentionRows),
    });
    drawChart(this.shares, {
      title: 'the global lock: held (solid) and CPU time waiting (dashed)',
      subtitle: 'taken by 6.9 only on a pool miss, by maple-rfc (bump on) only for a chunk',
      x: { label: 'CPUs (log₂)', log: true, base: 2, ticks: cpus, format: String },
      y: { label: '% of time', domain: [0, 100], format: (v) => `${v}%` },
      series: [
        ...markTwins(contentionSeries(c, this.contentionRows, 'globalLockHold', 'held', 100), this.contentionRows),
        ...markTwins(contentionSeries(c, this.contentionRows, 'waitShare', 'waiting', 100, true), this.contentionRows),
      ],
      height: 320,
    });
  }

  private async save(box: HTMLElement, id: string, kind: 'svg' | 'png'): Promise<void> {
    const svg = box.querySelector<SVGSVGElement>('svg');
    if (!svg) return;
    if (kind === 'svg') download(`vmapviz-${id}.svg`, svgMarkup(svg), 'image/svg+xml');
    else download(`vmapviz-${id}.png`, await pngBlob(svg));
  }
}
