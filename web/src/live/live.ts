// Live mode (`#live=1`, served by vmap-live): the feed (/feed, Server-Sent Events, same origin)
// sends the followed trace's lines (what changed) and the report line; the player shows the
// trace, at its end while following, where it is left while paused. The view has no allocator
// logic: the trace comes from the capture replay on the server.
import './live.css';
import type { App } from '../app';
import { applyTrace, openFollowed, reportText, type Figures, type Loaders } from './feed';

/** What the page's entry hands over (its own imports: this chunk shares no module with it). */
export type LiveDeps = Loaders;

/** At most one load of the trace this often (ms): each replays it whole. */
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

  let lines: string[] = [];
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
      const { session, problem } = await openFollowed(lines, deps);
      shownOps = session.length;
      app.follow(session, 'end');
      problemEl.textContent = problem;
      bar.dataset.ops = String(shownOps);
    } catch (e) {
      problemEl.textContent = `The followed trace could not be shown: ${errorMessage(e)}`;
    } finally {
      shown = v;
      bar.dataset.shown = String(v);
      busy = false;
      last = performance.now();
      // Each load replays the whole trace: spaced by four times its own time, at least APPLY_GAP.
      gap = Math.max(APPLY_GAP, 4 * (last - t0));
    }
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
    lines = applyTrace(lines, JSON.parse((e as MessageEvent<string>).data) as { from: number; lines: string });
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
