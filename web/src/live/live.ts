// Live mode (`#live=1`, served by vmap-live): the feed (/feed, Server-Sent Events, same origin)
// sends the followed trace's lines (what changed) and the report line; the player shows the
// trace, at its end while following, where it is left while paused. The view has no allocator
// logic: the trace comes from the capture replay on the server.
import './live.css';
import type { App } from '../app';
import type { Session } from '../bridge';
import { Followed, openFollowed, refused, reportText, type Figures, type Loaders } from './feed';

/** What the page's entry hands over (its own imports: this chunk shares no module with it). */
export type LiveDeps = Loaders & {
  /** Show the areas' callers from these /proc/vmallocinfo reads (the workbench's fragmentation tab, the hover). */
  callers?: (files: { name: string; bytes: Uint8Array }[]) => Promise<void>;
};

/** At most one round this often (ms): a load of the whole trace replays it whole. */
const APPLY_GAP = 1000;

type Mode = 'following' | 'paused';

export function startLive(app: App, root: HTMLElement, deps: LiveDeps, feedUrl = 'feed'): EventSource {
  const { errorMessage } = deps;
  const bar = document.createElement('div');
  bar.className = 'live-bar';
  bar.dataset.widget = 'live';
  bar.dataset.state = 'connecting';
  bar.innerHTML =
    '<strong>Live</strong> <span data-role="state" role="status">connecting…</span> ' +
    '<span data-role="report"></span> ' +
    '<button type="button" data-action="live-follow" aria-pressed="true">Pause</button> ' +
    '<span data-role="message" role="alert"></span> <span data-role="problem"></span>';
  const at = root.querySelector('[data-widget="load-error"]');
  if (at) at.before(bar);
  else root.prepend(bar);
  const stateEl = bar.querySelector('[data-role="state"]') as HTMLElement;
  const reportEl = bar.querySelector('[data-role="report"]') as HTMLElement;
  const button = bar.querySelector('[data-action="live-follow"]') as HTMLButtonElement;
  const messageEl = bar.querySelector('[data-role="message"]') as HTMLElement;
  const problemEl = bar.querySelector('[data-role="problem"]') as HTMLElement;

  const followed = new Followed();
  /** The session of the followed trace opened last (extended since, while it only grew). */
  let session: Session | null = null;
  let version = 0;
  let shown = -1;
  let shownOps = 0;
  let mode: Mode = 'following';
  let ended = false;
  let busy = false;
  let timer: number | null = null;
  let last = 0;
  let gap = APPLY_GAP;

  const say = (text: string) => {
    messageEl.textContent = text;
  };
  const showState = () => {
    const s = ended ? 'ended' : mode;
    bar.dataset.state = s;
    stateEl.textContent = ended ? (mode === 'paused' ? 'the feed has ended (paused)' : 'the feed has ended') : mode;
    button.textContent = mode === 'following' ? 'Pause' : 'Follow';
    button.setAttribute('aria-pressed', String(mode === 'following'));
  };

  // The before file stays; a later read (live, or the after file) replaces the one before it.
  // Handed over once a trace is shown (the workbench mounts on the app's session).
  const reads = new Map<'before' | 'latest', { name: string; bytes: Uint8Array }>();
  let readsDue = false;
  const showCallers = () => {
    if (!readsDue || shown < 0 || !deps.callers) return;
    readsDue = false;
    deps.callers([...reads.values()]).catch((err: unknown) => say(`callers: ${errorMessage(err)}`));
  };

  /** Open the lines received in the player: at the end while following. */
  const apply = async () => {
    timer = null;
    if (busy || mode !== 'following' || version === shown) return;
    // Moved back through the timeline since the last update: stay there (paused).
    if (shownOps > 0 && app.currentStep() < shownOps) {
      mode = 'paused';
      showState();
      return;
    }
    busy = true;
    const v = version;
    const t0 = performance.now();
    try {
      const plan = followed.plan();
      // Only grown (or nothing new, to its end again): the new lines added to the session shown.
      const grown = plan.kind !== 'reload' && session ? app.extendFollowed(session, plan.kind === 'extend' ? plan.lines : []) : false;
      if (grown) {
        if (grown.error || grown.taken > 0) problemEl.textContent = grown.error ? refused(followed.held + grown.taken, grown.error) : '';
        followed.holds(followed.held + grown.taken);
        if (plan.kind === 'extend') {
          bar.dataset.extended = String(Number(bar.dataset.extended ?? 0) + 1);
          bar.dataset.round = 'extend';
        }
      } else {
        const all = followed.lines;
        followed.drop();
        const o = await openFollowed(all, deps);
        session = o.session;
        app.follow(o.session, 'end');
        followed.holds(o.held);
        problemEl.textContent = o.problem;
        bar.dataset.loaded = String(Number(bar.dataset.loaded ?? 0) + 1);
        bar.dataset.round = 'load';
      }
      shownOps = session?.length ?? 0;
      bar.dataset.ops = String(shownOps);
    } catch (e) {
      followed.drop();
      problemEl.textContent = `The followed trace could not be shown: ${errorMessage(e)}`;
    } finally {
      shown = v;
      bar.dataset.shown = String(v);
      busy = false;
      last = performance.now();
      // Rounds spaced by four times the last one's time (a load replays the whole trace), at least APPLY_GAP.
      gap = Math.max(APPLY_GAP, 4 * (last - t0));
    }
    showCallers();
    schedule();
  };
  const schedule = () => {
    if (timer !== null || version === shown || mode !== 'following') return;
    timer = window.setTimeout(() => void apply(), Math.max(0, last + gap - performance.now()));
  };

  button.addEventListener('click', () => {
    mode = mode === 'following' ? 'paused' : 'following';
    showState();
    // Following again: the latest trace, at its end.
    if (mode === 'following') {
      shownOps = 0;
      shown = -1;
      schedule();
    }
  });

  const es = new EventSource(feedUrl);
  es.addEventListener('open', () => {
    if (!ended) say('');
    showState();
  });
  es.addEventListener('trace', (e) => {
    followed.receive(JSON.parse((e as MessageEvent<string>).data) as { from: number; lines: string });
    version++;
    schedule();
  });
  es.addEventListener('report', (e) => {
    const f = JSON.parse((e as MessageEvent<string>).data) as Figures;
    reportEl.textContent = reportText(f);
    reportEl.title = f.summary;
    bar.dataset.summary = f.summary;
    bar.dataset.events = String(f.events);
  });
  es.addEventListener('note', (e) => {
    say((JSON.parse((e as MessageEvent<string>).data) as { text: string }).text);
  });
  es.addEventListener('callers', (e) => {
    const c = JSON.parse((e as MessageEvent<string>).data) as { name: string; text: string };
    reads.set(/before/.test(c.name) ? 'before' : 'latest', { name: c.name, bytes: new TextEncoder().encode(c.text) });
    bar.dataset.callers = c.name;
    readsDue = true;
    showCallers();
  });
  es.addEventListener('end', () => {
    ended = true;
    es.close();
    showState();
    bar.dataset.ended = 'true';
  });
  es.addEventListener('error', () => {
    if (ended) return;
    bar.dataset.state = 'dropped';
    stateEl.textContent = 'feed dropped';
    say('The feed dropped: vmap-live is not answering (stopped, or its terminal closed). What came so far stays; it reconnects when vmap-live is back.');
  });
  showState();
  bar.dataset.state = 'connecting';
  return es;
}
