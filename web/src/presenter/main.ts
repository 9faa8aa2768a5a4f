// The presenter view (presenter.html, opened from the lesson card): the stop's notes, the next
// stop, a clock, and keys that drive the page's lesson through the channel. It holds no lesson
// and no allocator: it shows what the page posts.
import { isMessage, openChannel, pairedPage, type PresenterState } from './channel';
import './presenter.css';

const $ = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`) as HTMLElement;
const root = document.getElementById('presenter') as HTMLElement;
const channel = openChannel();
/** The page this window follows and steps: the one that opened it, else the first with a lesson. */
let page = pairedPage(location.hash);

function show(s: PresenterState): void {
  root.dataset.state = s.lesson === null ? 'none' : 'lesson';
  root.dataset.stop = String(s.stop);
  if (s.lesson === null || s.current === null) {
    $('p-where').textContent = 'No lesson open on the page.';
    for (const id of ['p-title', 'p-text', 'p-next-title', 'p-next-text']) $(id).textContent = '';
    $('p-question').hidden = true;
    $('p-away').hidden = true;
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
}

function send(cmd: 'next' | 'prev' | 'hello'): void {
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
document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const next = ['PageDown', 'ArrowRight', 'ArrowDown', 'n', 'N', ' '].includes(e.key);
  const prev = ['PageUp', 'ArrowLeft', 'ArrowUp', 'p', 'P'].includes(e.key);
  if (!next && !prev) return;
  e.preventDefault();
  send(next ? 'next' : 'prev');
});

const opened = Date.now();
const tick = () => {
  const s = Math.floor((Date.now() - opened) / 1000);
  $('p-clock').textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};
setInterval(tick, 1000);
