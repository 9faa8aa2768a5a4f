// The presenter view (presenter.html, opened from the lesson card): the stop's notes, the next
// stop, a timer against the lesson's minutes, and keys that drive the page's lesson through the
// channel as the page's own keys do (stops, micro-steps, the blank screen). It holds no lesson
// and no allocator: it shows what the page posts.
import { isMessage, openChannel, pairedPage, type PresenterCmd, type PresenterState } from './channel';
import { copyLink } from '../views/copyLink';
import './presenter.css';

const $ = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`) as HTMLElement;
const root = document.getElementById('presenter') as HTMLElement;
const channel = openChannel();
/** The page this window follows and steps: the one that opened it, else the first with a lesson. */
let page = pairedPage(location.hash);
let last: PresenterState | null = null;
/** When the lesson shown was opened (as this window saw it), and its planned minutes. */
let lessonStart = Date.now();

function show(s: PresenterState): void {
  if (s.lesson !== last?.lesson) lessonStart = Date.now();
  last = s;
  root.dataset.state = s.lesson === null ? 'none' : 'lesson';
  root.dataset.stop = String(s.stop);
  root.dataset.blank = String(s.blank);
  $('p-blank').hidden = !s.blank;
  $('p-update').hidden = !s.update;
  const copy = document.querySelector<HTMLButtonElement>('[data-action="p-copy-link"]');
  if (copy) copy.disabled = s.link === null;
  preview('p-preview-now', s.previews?.now ?? null);
  preview('p-preview-next', s.previews?.next ?? null);
  if (s.lesson === null || s.current === null) {
    $('p-where').textContent = 'No lesson open on the page.';
    for (const id of ['p-text', 'p-next-title', 'p-next-text']) $(id).textContent = '';
    $('p-title').textContent = 'No stop to show';
    $('p-question').hidden = true;
    $('p-away').hidden = true;
    tick();
    return;
  }
  $('p-where').textContent = `${s.lesson} · stop ${s.stop} / ${s.stops}`;
  $('p-title').textContent = s.current.title;
  $('p-text').textContent = s.current.text;
  const q = s.question;
  $('p-question').hidden = q === null;
  $('p-question').textContent = q ? `Asked: ${q.prompt} Answer: ${q.answer}${q.revealed ? ' (revealed)' : ' (not revealed yet)'}` : '';
  $('p-away').hidden = s.atStop;
  $('p-next-title').textContent = s.next ? s.next.title : 'The last stop of this lesson.';
  $('p-next-text').textContent = s.next ? s.next.text : '';
  tick();
}

/**
 * A preview: the page itself, embedded at that picture. A new hash in the same frame moves the
 * page already loaded there. The frames are inert: keys stay with this window.
 */
function preview(id: string, hash: string | null): void {
  const frame = $(id) as HTMLIFrameElement;
  frame.parentElement?.toggleAttribute('data-empty', hash === null);
  if (hash === null || frame.dataset.hash === hash) return;
  frame.dataset.hash = hash;
  frame.src = new URL(`./${hash}`, location.href).href;
}

function send(cmd: PresenterCmd): void {
  if (cmd !== 'hello' && page === null) return;
  channel?.postMessage({ type: 'cmd', cmd, to: cmd === 'hello' ? null : page });
}

if (!channel) {
  $('p-where').textContent = 'This browser has no BroadcastChannel: the presenter view cannot follow the page.';
} else {
  channel.onmessage = (e: MessageEvent) => {
    if (!isMessage(e.data) || e.data.type !== 'state') return;
    if (page === null && e.data.lesson !== null) page = e.data.from;
    if (e.data.from === page) show(e.data);
  };
  send('hello');
}

document.querySelector('[data-action="p-prev"]')?.addEventListener('click', () => send('prev'));
document.querySelector('[data-action="p-next"]')?.addEventListener('click', () => send('next'));
document.querySelector('[data-action="p-blank"]')?.addEventListener('click', () => send('blank'));
document.querySelector('[data-action="p-copy-link"]')?.addEventListener('click', () => {
  if (last?.link) void copyLink(last.link, $('p-copied'));
});

/** The page's keys: PgDn / PgUp, N / P and ↓ / ↑ (a remote) go from stop to stop, → / ← micro-step, b and . blank. */
const KEYS: Record<string, PresenterCmd> = {
  PageDown: 'next',
  ArrowDown: 'next',
  n: 'next',
  N: 'next',
  ' ': 'next',
  PageUp: 'prev',
  ArrowUp: 'prev',
  p: 'prev',
  P: 'prev',
  ArrowRight: 'step-next',
  ArrowLeft: 'step-prev',
  b: 'blank',
  B: 'blank',
  '.': 'blank',
};

document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  // Space on a focused button presses it.
  if (e.key === ' ' && e.target instanceof HTMLButtonElement) return;
  const cmd = KEYS[e.key];
  if (!cmd) return;
  e.preventDefault();
  send(cmd);
});

const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** Time in this lesson against its minutes (over: marked). */
function tick(): void {
  const s = Math.floor((Date.now() - lessonStart) / 1000);
  const planned = last?.lesson ? last.minutes : 0;
  $('p-clock').textContent = planned > 0 ? `${clock(s)} / ${planned}:00` : clock(s);
  $('p-clock').dataset.over = String(planned > 0 && s > planned * 60);
}
setInterval(tick, 1000);
