// The lesson form: the micro-step shown saved as a stop (a title, two or three sentences, and
// optionally a question the core answers there), the stops gathered into a draft lesson kept in
// localStorage, reordered or removed, then played, copied as a link, downloaded as JSON, or a
// lesson's JSON file opened. Claims are read from the core's event and checked on save and open
// (authoredCheck.ts); the form never takes an answer from the author. Loaded on first use.
import { el } from '../views/common';
import { copyLink } from '../views/copyLink';
import { load, save } from '../player/settings';
import type { LessonHost } from '../page/lessons';
import type { EventSource } from '../player/events';
import {
  AUTHORED_FORMAT,
  AUTHORED_PREFIX,
  AUTHORED_VERSION,
  checkShape,
  MAX_JSON,
  MAX_STOPS,
  MAX_TEXT,
  MAX_TITLE,
  packLesson,
  parseLessonFile,
  unpackLesson,
  type AuthoredLesson,
  type AuthoredStop,
} from './authored';
import { claimOf, offersAt, type Offer } from './authoredCheck';
import { checkWithCore } from './authoredOpen';
import './authored.css';

// An `authored.` link opens through this chunk too (one lazy import in the first chunk).
export { openAuthored } from './authoredOpen';

const DRAFT_KEY = 'authored-draft';

interface Draft {
  title: string;
  traces: Record<string, string>;
  stops: AuthoredStop[];
}

const QUESTION: Record<Offer['ask'], string> = {
  land: 'Where will this allocation land?',
  visit: 'Which node does the search visit next?',
  store: 'Which store type does mas_wr_store_type pick?',
  slot: 'Which slot does the gap search take?',
};

/** The draft kept from an earlier visit (a damaged one is dropped). */
function loadDraft(): Draft {
  const empty: Draft = { title: 'My lesson', traces: {}, stops: [] };
  try {
    const v = JSON.parse(load(DRAFT_KEY) ?? 'null') as Partial<Draft> | null;
    if (!v || typeof v.title !== 'string') return empty;
    if (!Array.isArray(v.stops) || v.stops.length === 0) return { ...empty, title: v.title };
    const d = checkShape({ format: AUTHORED_FORMAT, version: AUTHORED_VERSION, ...v });
    return 'error' in d ? empty : { title: d.title, traces: d.traces, stops: d.stops };
  } catch {
    return empty;
  }
}

function asLesson(d: Draft): AuthoredLesson {
  // Only the traces a stop uses travel.
  const used = new Set(d.stops.map((s) => s.trace));
  const traces = Object.fromEntries(Object.entries(d.traces).filter(([n]) => used.has(n)));
  return { format: AUTHORED_FORMAT, version: AUTHORED_VERSION, title: d.title.trim() || 'My lesson', traces, stops: d.stops };
}

/** Sentences of a stop's text, split as lessons.test.ts counts them. */
const sentences = (t: string) => t.trim().split(/(?<=[.!?])\s+(?=[A-Z])/).length;

let form: AuthoringForm | null = null;

/** Show the form (made once). `play` opens a lesson id in the page. */
export function showAuthoring(h: LessonHost, play: (id: string) => Promise<void>): void {
  form ??= new AuthoringForm(h, play);
  form.show();
}

class AuthoringForm {
  private draft = loadDraft();
  private readonly root: HTMLElement;
  private readonly at: HTMLElement;
  private readonly title: HTMLInputElement;
  private readonly text: HTMLTextAreaElement;
  private readonly question: HTMLSelectElement;
  private readonly answer: HTMLElement;
  private readonly saveBtn: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly error: HTMLElement;
  private readonly lessonTitle: HTMLInputElement;
  private readonly list: HTMLOListElement;
  private readonly actions: HTMLButtonElement[];
  private readonly copied: HTMLElement;
  private readonly edit: HTMLButtonElement;
  private readonly observer: MutationObserver;
  private offers: Offer[] = [];
  private opener: HTMLElement | null = null;

  constructor(
    private readonly h: LessonHost,
    private readonly play: (id: string) => Promise<void>,
  ) {
    const root = (this.root = el('section', 'authoring'));
    root.dataset.widget = 'authoring';
    root.setAttribute('aria-labelledby', 'authoring-title');
    root.hidden = true;
    const head = root.appendChild(el('div', 'authoring-head'));
    head.appendChild(el('h2', '', 'Write a lesson')).id = 'authoring-title';
    const close = head.appendChild(el('button', 'btn btn-small', 'Close'));
    close.type = 'button';
    close.dataset.action = 'authoring-close';
    close.addEventListener('click', () => this.hide());

    const stop = root.appendChild(el('form', 'authoring-stop'));
    stop.setAttribute('aria-label', 'This micro-step as a stop');
    this.at = stop.appendChild(el('p', 'authoring-at'));
    this.at.dataset.testid = 'authoring-at';
    this.title = field(stop, 'Stop title', el('input'), 'authoring-stop-title');
    this.title.maxLength = MAX_TITLE;
    this.text = field(stop, 'What to say: two or three sentences', el('textarea'), 'authoring-stop-text');
    this.text.maxLength = MAX_TEXT;
    this.text.rows = 3;
    this.question = field(stop, 'A question before the step (optional; the answer is the core\'s)', el('select'), 'authoring-question');
    this.answer = stop.appendChild(el('p', 'authoring-answer'));
    this.answer.dataset.testid = 'authoring-answer';
    this.question.addEventListener('change', () => this.renderAnswer());
    this.saveBtn = stop.appendChild(el('button', 'btn primary', 'Save this micro-step as a stop'));
    this.saveBtn.type = 'submit';
    this.saveBtn.dataset.action = 'authoring-save';
    stop.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.saveStop();
    });
    this.status = root.appendChild(el('p', 'authoring-status'));
    this.status.dataset.testid = 'authoring-status';
    this.status.setAttribute('role', 'status');
    this.error = root.appendChild(el('p', 'authoring-error'));
    this.error.dataset.testid = 'authoring-error';
    this.error.setAttribute('role', 'alert');

    const lesson = root.appendChild(el('div', 'authoring-lesson'));
    lesson.appendChild(el('h3', '', 'Your lesson'));
    this.lessonTitle = field(lesson, 'Lesson title', el('input'), 'authoring-lesson-title');
    this.lessonTitle.maxLength = MAX_TITLE;
    this.lessonTitle.addEventListener('input', () => {
      this.draft.title = this.lessonTitle.value;
      this.keep();
    });
    this.list = lesson.appendChild(el('ol', 'authoring-stops'));
    this.list.dataset.testid = 'authoring-stops';
    this.list.setAttribute('aria-label', 'Stops');
    const row = lesson.appendChild(el('div', 'authoring-row'));
    const button = (text: string, action: string, run: () => Promise<void> | void) => {
      const b = row.appendChild(el('button', 'btn btn-small', text));
      b.type = 'button';
      b.dataset.action = action;
      b.addEventListener('click', () => void run());
      return b;
    };
    this.actions = [
      button('▶ Play', 'authoring-play', () => this.playDraft()),
      button('Copy link', 'authoring-copy', () => this.copyDraft()),
      button('Download JSON', 'authoring-download', () => this.download()),
      button('Clear', 'authoring-clear', () => this.clear()),
    ];
    // A lecturer's lesson shown (its link, or a file opened) taken back into the draft to change it.
    this.edit = button('Edit the lesson shown', 'authoring-edit', () => this.editShown());
    // Opening a lesson's file: the input, or a file dropped on the form.
    const open = row.appendChild(el('label', 'btn btn-small authoring-file', 'Open a file…'));
    const file = open.appendChild(el('input'));
    file.type = 'file';
    file.accept = '.json,application/json';
    file.dataset.testid = 'authoring-file';
    file.addEventListener('change', () => {
      const f = file.files?.[0];
      file.value = '';
      if (f) void this.openFile(f);
    });
    root.addEventListener('dragover', (e) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    });
    root.addEventListener('drop', (e) => {
      const f = e.dataTransfer?.files[0];
      if (!f) return;
      e.preventDefault();
      void this.openFile(f);
    });
    lesson.appendChild(el('p', 'authoring-note', 'Or drop a lesson\'s JSON file here. The link and the file carry the traces: whoever opens them sees the same pictures, each stop checked by the core.'));
    this.copied = lesson.appendChild(el('p', 'authoring-copied'));
    this.copied.dataset.testid = 'authoring-copied';
    this.copied.setAttribute('role', 'status');
    root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        this.hide();
      }
    });
    // In the page's header (kept in lecture mode): the player's keys (→ / ←) work from its buttons.
    (this.h.root.querySelector('.site-header') ?? document.body).append(root);
    // The micro-step shown, followed as the player moves.
    this.observer = new MutationObserver(() => this.renderAt());
  }

  show(): void {
    const a = document.activeElement;
    this.opener = a instanceof HTMLElement && a !== document.body ? a : null;
    this.root.hidden = false;
    document.body.classList.add('authoring-open');
    this.observer.observe(this.h.root, { attributes: true, attributeFilter: ['data-step', 'data-frame'] });
    this.lessonTitle.value = this.draft.title;
    this.edit.hidden = !shownId();
    this.renderAt();
    this.renderList();
    this.title.focus();
  }

  hide(): void {
    this.root.hidden = true;
    document.body.classList.remove('authoring-open');
    this.observer.disconnect();
    if (this.opener?.isConnected) this.opener.focus();
  }

  private say(ok: string, bad = ''): void {
    this.status.textContent = ok;
    this.error.textContent = bad;
  }

  /** The micro-step shown, its event, and the questions the core answers there. */
  private renderAt(): void {
    const s = this.h.session();
    const p = this.h.pos();
    const e = s && p.frame >= 0 ? this.h.events(p.op)[p.frame] : undefined;
    this.offers = s && e ? offersAt(this.source(), p.op, p.frame) : [];
    this.saveBtn.disabled = !e;
    if (!e) {
      this.at.textContent = 'Between operations: step into one (→) to pick the micro-step to save.';
    } else {
      const c = claimOf(e);
      const fields = Object.entries(c.where).slice(0, 4).map(([k, v]) => `${k} ${String(v)}`).join(', ');
      this.at.textContent = `At operation ${p.op + 1}, micro-step ${p.frame + 1} of ${this.h.count(p.op)}: the core's event is ${c.event}${fields ? ` (${fields})` : ''}.`;
    }
    const chosen = this.question.value;
    this.question.replaceChildren(new Option('No question', ''));
    this.offers.forEach((o, i) => this.question.append(new Option(QUESTION[o.ask], String(i))));
    if (this.offers[Number(chosen)] && chosen !== '') this.question.value = chosen;
    this.renderAnswer();
  }

  /** The chosen question's answer: the core's, shown to the class with the reveal. */
  private renderAnswer(): void {
    const o = this.question.value === '' ? undefined : this.offers[Number(this.question.value)];
    this.answer.textContent = o ? `The core's answer, shown with the reveal: ${answerText(o)}.` : '';
  }

  private source(): EventSource {
    const s = this.h.session();
    return { length: s?.length ?? 0, events: (op) => this.h.events(op) };
  }

  private keep(): void {
    save(DRAFT_KEY, JSON.stringify(this.draft));
  }

  /** The micro-step shown as a new stop, checked by the core before it is kept. */
  private async saveStop(): Promise<void> {
    const s = this.h.session();
    const p = this.h.pos();
    const e = s && p.frame >= 0 ? this.h.events(p.op)[p.frame] : undefined;
    const title = this.title.value.trim();
    const text = this.text.value.trim().replace(/\s+/g, ' ');
    const bad =
      !s || !e
        ? 'Step into an operation (→) first: between operations there is no micro-step to claim.'
        : !title
          ? 'Give the stop a title.'
          : !text
            ? 'Say what the class should see, in two or three sentences.'
            : sentences(text) > 3
              ? `The text has ${sentences(text)} sentences: a stop says two or three.`
              : this.draft.stops.length >= MAX_STOPS
                ? `A lesson holds at most ${MAX_STOPS} stops.`
                : null;
    if (bad || !s || !e) return this.say('', bad ?? '');
    const trace = s.traceText();
    const name = Object.entries(this.draft.traces).find(([, t]) => t === trace)?.[0] ?? nextName(this.draft.traces);
    const offer = this.question.value === '' ? undefined : this.offers[Number(this.question.value)];
    const stop: AuthoredStop = { title, text, trace: name, op: p.op, frame: p.frame, claim: claimOf(e), ...(offer ? { ask: { ask: offer.ask, nth: offer.nth, answer: offer.answer } } : {}) };
    const next: Draft = { ...this.draft, traces: { ...this.draft.traces, [name]: trace }, stops: [...this.draft.stops, stop] };
    const size = new TextEncoder().encode(JSON.stringify(asLesson(next))).length;
    if (size > MAX_JSON) return this.say('', `The lesson would be ${Math.ceil(size / 1024)} KB with this trace: more than the ${MAX_JSON / 1024} KB a lesson holds.`);
    // The core replays the trace and checks the new stop's claim, as it will when the lesson opens.
    const checked = await checkWithCore(asLesson({ ...next, stops: [stop] }), '', this.h.deps);
    if ('error' in checked) return this.say('', `Not saved: ${checked.message}`);
    this.draft = next;
    this.keep();
    this.title.value = '';
    this.text.value = '';
    this.question.value = '';
    this.renderAnswer();
    this.renderList();
    this.say(`Saved as stop ${next.stops.length}${offer ? `, with its question (${offer.ask})` : ''}: the core's ${stop.claim.event} event at operation ${p.op + 1}, micro-step ${p.frame + 1}.`);
  }

  private renderList(): void {
    const stops = this.draft.stops;
    this.list.replaceChildren(
      ...stops.map((s, i) => {
        const li = el('li');
        li.append(el('span', 'authoring-stop-title', s.title), el('span', 'authoring-stop-meta', ` · operation ${s.op + 1}, micro-step ${s.frame + 1} · ${s.claim.event}${s.ask ? ` · question: ${s.ask.ask}` : ''}`));
        const tools = li.appendChild(el('span', 'authoring-stop-tools'));
        const tool = (text: string, label: string, disabled: boolean, run: () => void) => {
          const b = tools.appendChild(el('button', 'btn btn-small', text));
          b.type = 'button';
          b.setAttribute('aria-label', label);
          b.disabled = disabled;
          b.addEventListener('click', run);
        };
        tool('↑', `Move stop ${i + 1} up`, i === 0, () => this.move(i, -1));
        tool('↓', `Move stop ${i + 1} down`, i === stops.length - 1, () => this.move(i, 1));
        tool('✕', `Remove stop ${i + 1}`, false, () => this.remove(i));
        return li;
      }),
    );
    if (!stops.length) this.list.append(el('li', 'authoring-empty', 'No stops yet: step to a micro-step and save it.'));
    for (const b of this.actions.slice(0, 3)) b.disabled = stops.length === 0;
  }

  private move(i: number, d: -1 | 1): void {
    const s = this.draft.stops;
    [s[i], s[i + d]] = [s[i + d], s[i]];
    this.keep();
    this.renderList();
    this.list.querySelectorAll('li')[i + d]?.querySelector<HTMLButtonElement>(`button[aria-label^="Move stop ${i + d + 1} ${d < 0 ? 'up' : 'down'}"]:not(:disabled)`)?.focus();
  }

  private remove(i: number): void {
    this.draft.stops.splice(i, 1);
    const used = new Set(this.draft.stops.map((s) => s.trace));
    for (const n of Object.keys(this.draft.traces)) if (!used.has(n)) delete this.draft.traces[n];
    this.keep();
    this.renderList();
    this.say(`Removed stop ${i + 1}.`);
  }

  private clear(): void {
    if (this.draft.stops.length && !confirm('Remove every stop of this draft?')) return;
    this.draft = { title: this.draft.title, traces: {}, stops: [] };
    this.keep();
    this.renderList();
    this.say('The draft is empty.');
  }

  private async editShown(): Promise<void> {
    const id = shownId();
    if (!id) return;
    const doc = await unpackLesson(id.slice(AUTHORED_PREFIX.length));
    if ('error' in doc) return this.say('', doc.message);
    if (this.draft.stops.length && !confirm('Replace the draft with the lesson shown?')) return;
    this.draft = { title: doc.title, traces: doc.traces, stops: doc.stops };
    this.lessonTitle.value = doc.title;
    this.keep();
    this.renderList();
    this.say(`The draft is now "${doc.title}" (${doc.stops.length} stops).`);
  }

  /** The draft checked by the core and packed: its lesson id, or null (the error said). */
  private async packed(): Promise<string | null> {
    const doc = asLesson(this.draft);
    const checked = await checkWithCore(doc, '', this.h.deps);
    if ('error' in checked) {
      this.say('', checked.message);
      return null;
    }
    const p = await packLesson(doc);
    if (typeof p !== 'string') {
      this.say('', p.message);
      return null;
    }
    return AUTHORED_PREFIX + p;
  }

  private async playDraft(): Promise<void> {
    const id = await this.packed();
    if (!id) return;
    this.hide();
    await this.play(id);
  }

  private async copyDraft(): Promise<void> {
    const id = await this.packed();
    if (!id) return;
    const url = new URL(location.href);
    url.hash = `lesson=${id}&stop=1${this.h.lecture() ? '&lecture=1' : ''}`;
    this.say('');
    await copyLink(url.href, this.copied);
  }

  private async download(): Promise<void> {
    const doc = asLesson(this.draft);
    const checked = await checkWithCore(doc, '', this.h.deps);
    if ('error' in checked) return this.say('', checked.message);
    const a = el('a');
    a.href = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
    a.download = `${doc.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'lesson'}.vmapviz-lesson.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    this.say(`Downloaded ${a.download}.`);
  }

  /** A lesson's JSON file, checked as a link is, then played. */
  private async openFile(f: File): Promise<void> {
    if (f.size > MAX_JSON) return this.say('', `${f.name}: the file is ${Math.ceil(f.size / 1024)} KB, more than the ${MAX_JSON / 1024} KB a lesson can hold.`);
    const doc = parseLessonFile(new Uint8Array(await f.arrayBuffer()));
    if ('error' in doc) return this.say('', `${f.name}: ${doc.message}`);
    const p = await packLesson(doc);
    if (typeof p !== 'string') return this.say('', `${f.name}: ${p.message}`);
    const checked = await checkWithCore(doc, p, this.h.deps);
    if ('error' in checked) return this.say('', `${f.name}: ${checked.message}`);
    this.hide();
    await this.play(AUTHORED_PREFIX + p);
  }
}

/** The id of the lecturer's lesson the address bar names, or null. */
function shownId(): string | null {
  return /[#&]lesson=(authored\.[\w-]+)/.exec(location.hash)?.[1] ?? null;
}

function answerText(o: Offer): string {
  const a = o.answer;
  switch (o.ask) {
    case 'land':
      return `[${String(a.start)}, ${String(a.end)})`;
    case 'visit':
      return `#${String(a.node)}`;
    case 'store':
      return String(a.store);
    case 'slot':
      return `slot ${String(a.slot)} of #${String(a.node)}`;
  }
}

function nextName(traces: Record<string, string>): string {
  let i = 1;
  while (`t${i}` in traces) i++;
  return `t${i}`;
}

/** A labelled control (the label above it). */
function field<T extends HTMLElement>(parent: HTMLElement, label: string, control: T, id: string): T {
  const l = parent.appendChild(el('label', 'authoring-field'));
  l.htmlFor = id;
  l.append(el('span', '', label));
  control.id = id;
  parent.appendChild(control);
  return control;
}
