// The lesson's card beside the narration (title, stop i / n, the stop's words, what it claims
// and whether the core's event there bears it out; previous / next stop) and the picker that
// lists the lessons. Both only render what the app gives them.
import { el } from '../views/common';
import { kindInfo } from '../player/events';
import type { Lesson, Stop } from './model';
import type { AskKind } from './question';
import { STORE_TYPES } from './storeTypes';
import { WITHHELD } from './withhold';
import { PRACTICE_KINDS, practiceId, practiceScore } from './practice';
import { lessonLink } from './link';
import { copyLink } from '../views/copyLink';
import { isMessage, newPageId, openChannel, type PresenterState } from '../presenter/channel';

/** A stop's "your turn" question as the card shows it. */
export interface QuestionView {
  ask: AskKind;
  prompt: string;
  revealed: boolean;
  /** What was picked (words), and whether it was right; null: revealed without an answer. */
  picked: string | null;
  right: boolean | null;
  /** The answer and why, shown once revealed. */
  why: string;
  /** Revealed, on the answer's micro-step, which is not the stop's own. */
  offStop: boolean;
}

export interface LessonView {
  lesson: Lesson;
  /** 0-based. */
  index: number;
  /** Whether the position shown is the stop's (not a micro-step the lecturer moved to). */
  atStop: boolean;
  /** The stop could not be placed, or its claim does not hold (never in a tested lesson). */
  problem: string | null;
  /** Whether a lesson comes before / after this one (the first / last stop then leads there). */
  hasPrev: boolean;
  hasNext: boolean;
  question: QuestionView | null;
}

export interface LessonCardOptions {
  /** To the next (1) or previous (-1) stop, across lessons at either end. */
  onStop: (dir: 1 | -1) => void;
  onReturn: () => void;
  onLeave: () => void;
  /** A store type picked from the question's buttons. */
  onChoice: (store: string) => void;
  onReveal: () => void;
  /** A micro-step on (1) or back (-1), as → / ← on the page. */
  onMicroStep: (dir: 1 | -1) => void;
  /** Blank the screen or bring it back, as b on the page. */
  onBlank: () => void;
  /** The address of the picture shown (the lesson, the stop, the micro-step). */
  link: () => string;
  /** The presenter's previews of the picture shown and the next one (null: no lesson). */
  previews: () => { now: string; next: string | null } | null;
  /** A typed answer: null when it was taken, else what is wrong with it. */
  onTyped: (text: string) => string | null;
}

export class LessonCard {
  private readonly head: HTMLElement;
  private readonly title: HTMLElement;
  private readonly text: HTMLElement;
  private readonly claim: HTMLElement;
  private readonly away: HTMLElement;
  private readonly quiz: HTMLElement;
  private readonly prompt: HTMLElement;
  private readonly choices: HTMLElement;
  private readonly feedback: HTMLElement;
  private readonly reveal: HTMLButtonElement;
  private readonly typed: HTMLFormElement;
  private readonly copied: HTMLElement;
  private readonly typedWords: HTMLElement;
  private readonly typedInput: HTMLInputElement;
  private readonly typedError: HTMLElement;
  private readonly onward: HTMLButtonElement;
  private readonly prev: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly practise: HTMLButtonElement;
  private readonly score: HTMLElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly opts: LessonCardOptions,
  ) {
    root.classList.add('lesson-card');
    root.hidden = true;
    root.setAttribute('aria-live', 'polite');
    this.head = root.appendChild(el('p', 'lesson-head'));
    this.head.dataset.testid = 'lesson-head';
    this.title = root.appendChild(el('h2', 'lesson-title'));
    this.title.dataset.testid = 'lesson-title';
    this.text = root.appendChild(el('p', 'lesson-text'));
    this.text.dataset.testid = 'lesson-text';
    this.claim = root.appendChild(el('p', 'lesson-claim'));
    this.claim.dataset.testid = 'lesson-claim';
    this.quiz = root.appendChild(el('div', 'lesson-quiz'));
    this.quiz.dataset.testid = 'lesson-quiz';
    this.prompt = this.quiz.appendChild(el('p', 'quiz-prompt'));
    this.choices = this.quiz.appendChild(el('div', 'quiz-choices'));
    STORE_TYPES.forEach((st, i) => {
      // Keys 1–9 pick them too (the app's lesson keys).
      const b = this.choices.appendChild(el('button', 'btn btn-small quiz-choice'));
      b.append(el('kbd', 'quiz-key', String(i + 1)), ` ${st}`);
      b.type = 'button';
      b.dataset.choice = st;
      b.setAttribute('aria-keyshortcuts', String(i + 1));
      b.addEventListener('click', () => this.opts.onChoice(st));
    });
    // The keyboard's way to answer a click question: the address, the node, or node and slot typed.
    this.typed = this.quiz.appendChild(el('form', 'quiz-typed'));
    this.typed.dataset.testid = 'quiz-typed';
    const label = this.typed.appendChild(el('label', 'quiz-typed-label'));
    this.typedWords = label.appendChild(el('span', '', 'Or type it:'));
    this.typedInput = label.appendChild(el('input', 'quiz-typed-input'));
    this.typedInput.type = 'text';
    this.typedInput.autocomplete = 'off';
    this.typedInput.spellcheck = false;
    const go = this.typed.appendChild(el('button', 'btn btn-small', 'Answer'));
    go.type = 'submit';
    this.typed.addEventListener('submit', (e) => {
      e.preventDefault();
      const problem = this.opts.onTyped(this.typedInput.value);
      // Said beside it (not as the browser's validity, which would block the next submit).
      if (problem) this.typedInput.setAttribute('aria-invalid', 'true');
      else this.typedInput.removeAttribute('aria-invalid');
      this.typedError.textContent = problem ?? '';
      this.typedError.hidden = problem === null;
      if (problem === null) this.typedInput.value = '';
    });
    this.typedError = this.quiz.appendChild(el('p', 'quiz-typed-error'));
    this.typedError.dataset.testid = 'quiz-typed-error';
    this.typedError.setAttribute('role', 'alert');
    this.typedError.hidden = true;
    this.typedError.id = 'quiz-typed-error';
    this.typedInput.setAttribute('aria-describedby', this.typedError.id);
    this.feedback = this.quiz.appendChild(el('p', 'quiz-feedback'));
    this.feedback.dataset.testid = 'quiz-feedback';
    this.feedback.setAttribute('role', 'status');
    this.reveal = this.quiz.appendChild(el('button', 'btn btn-small', 'Reveal (R)'));
    this.reveal.type = 'button';
    this.reveal.dataset.action = 'quiz-reveal';
    this.reveal.title = 'Show the answer without one (R, or PgDn / N)';
    this.reveal.addEventListener('click', () => this.opts.onReveal());
    this.onward = this.quiz.appendChild(el('button', 'btn btn-small', 'On to the stop ▶'));
    this.onward.type = 'button';
    this.onward.dataset.action = 'quiz-onward';
    this.onward.title = 'The stop\'s own micro-step (PgDn / N)';
    this.onward.addEventListener('click', () => this.opts.onReturn());
    // Practice: the same kind of question on a fresh trace from the core's generator (practice.ts).
    this.practise = this.quiz.appendChild(el('button', 'btn btn-small quiz-practise', 'Practise: a fresh case'));
    this.practise.type = 'button';
    this.practise.dataset.action = 'quiz-practise';
    this.practise.title = 'The same kind of question on a new trace the core generates (a new seed), with a score';
    this.practise.addEventListener('click', () => {
      const kind = this.root.dataset.ask as AskKind | undefined;
      if (!kind) return;
      const seed = crypto.getRandomValues(new Uint32Array(1))[0] % 1_000_000_000;
      location.hash = lessonLink(practiceId(kind, seed), 1, document.body.classList.contains('lecture'));
    });
    this.score = root.appendChild(el('p', 'lesson-score'));
    this.score.dataset.testid = 'practice-score';
    this.score.setAttribute('aria-live', 'polite');
    this.away = root.appendChild(el('p', 'lesson-away'));
    const back = this.away.appendChild(el('button', 'btn btn-small', 'Back to the stop'));
    back.type = 'button';
    back.dataset.action = 'lesson-return';
    back.addEventListener('click', () => this.opts.onReturn());
    this.away.prepend('You stepped away from this stop. ');
    const row = root.appendChild(el('div', 'lesson-row'));
    this.prev = row.appendChild(el('button', 'btn', '◀ Previous stop'));
    this.prev.type = 'button';
    this.prev.dataset.action = 'lesson-prev';
    this.prev.title = 'Previous stop (P or PgUp)';
    this.prev.addEventListener('click', () => this.opts.onStop(-1));
    this.next = row.appendChild(el('button', 'btn primary', 'Next stop ▶'));
    this.next.type = 'button';
    this.next.dataset.action = 'lesson-next';
    this.next.title = 'Next stop (N or PgDn)';
    this.next.addEventListener('click', () => this.opts.onStop(1));
    const leave = row.appendChild(el('button', 'btn btn-small lesson-leave', 'Leave the lesson'));
    leave.type = 'button';
    leave.dataset.action = 'lesson-leave';
    leave.addEventListener('click', () => this.opts.onLeave());
    const copy = row.appendChild(el('button', 'btn btn-small lesson-copy', 'Copy link'));
    copy.type = 'button';
    copy.dataset.action = 'lesson-copy-link';
    copy.title = 'Copy a link to this picture: the lesson, the stop and the micro-step';
    this.copied = root.appendChild(el('p', 'lesson-copied'));
    this.copied.dataset.testid = 'lesson-copied';
    this.copied.setAttribute('role', 'status');
    copy.addEventListener('click', () => void copyLink(this.opts.link(), this.copied));
    // The presenter view: a second window with the stop's notes and the next stop, which
    // follows the card and steps it (src/presenter/).
    const presenter = row.appendChild(el('button', 'btn btn-small lesson-presenter', 'Presenter view'));
    presenter.type = 'button';
    presenter.dataset.action = 'lesson-presenter';
    presenter.title = 'Open the presenter view in a second window: notes, the next stop, a clock';
    presenter.addEventListener('click', () => {
      const url = new URL('presenter.html', location.href);
      url.hash = `page=${this.pageId}`;
      window.open(url.href, 'vmapviz-presenter', 'popup,width=960,height=640');
    });
    if (this.channel) {
      this.channel.onmessage = (e: MessageEvent) => {
        if (!isMessage(e.data) || e.data.type !== 'cmd' || document.body.classList.contains('embed')) return;
        if (e.data.cmd === 'hello') this.channel?.postMessage(this.posted);
        else if (e.data.to !== this.pageId) return;
        else if (this.posted.lesson === null) return;
        // As the remote's PageDown on the page: a question waiting is revealed first.
        else if (e.data.cmd === 'next' && this.posted.question?.revealed === false) this.opts.onReveal();
        else if (e.data.cmd === 'next' || e.data.cmd === 'prev') this.opts.onStop(e.data.cmd === 'next' ? 1 : -1);
        else if (e.data.cmd === 'step-next' || e.data.cmd === 'step-prev') this.opts.onMicroStep(e.data.cmd === 'step-next' ? 1 : -1);
        else if (e.data.cmd === 'blank') this.opts.onBlank();
      };
      // The blank screen and a waiting update change outside a render: posted again.
      window.addEventListener('vmapviz:presenter-state', () => this.channel?.postMessage({ ...this.posted, blank: document.body.dataset.blank === 'true', update: document.body.dataset.updateWaiting === 'true' }));
    }
  }

  private readonly channel = openChannel();
  private readonly pageId = newPageId();
  private posted: PresenterState = { type: 'state', from: this.pageId, lesson: null, stop: 0, stops: 0, current: null, next: null, question: null, atStop: false, link: null, previews: null, minutes: 0, blank: false, update: false };

  /** Tell a presenter view (if one is open) where the lesson is. */
  private post(v: LessonView | null): void {
    // An embedded page (a presenter's preview among them) is no page a presenter follows.
    if (!this.channel || document.body.classList.contains('embed')) return;
    const stops = v?.lesson.stops ?? [];
    const at = v ? stops[v.index] : undefined;
    const after = v ? stops[v.index + 1] : undefined;
    const q = v?.question ?? null;
    this.posted = {
      type: 'state',
      from: this.pageId,
      lesson: v ? v.lesson.title : null,
      stop: v ? v.index + 1 : 0,
      stops: stops.length,
      current: at ? { title: at.title, text: at.text } : null,
      next: after ? { title: after.title, text: after.text } : null,
      question: q ? { prompt: q.prompt, answer: q.why, revealed: q.revealed } : null,
      atStop: v?.atStop ?? false,
      link: v ? this.opts.link() : null,
      previews: v ? this.opts.previews() : null,
      minutes: v?.lesson.minutes ?? 0,
      blank: document.body.dataset.blank === 'true',
      update: document.body.dataset.updateWaiting === 'true',
    };
    this.channel.postMessage(this.posted);
  }

  /** Focus on the card (a lesson picked from the list): its title, then Tab reaches its buttons. */
  focus(): void {
    if (this.root.hidden) return;
    this.title.tabIndex = -1;
    this.title.focus();
  }

  render(v: LessonView | null): void {
    this.post(v);
    this.root.hidden = v === null;
    document.body.classList.toggle('in-lesson', v !== null);
    if (!v) return;
    const stop: Stop = v.lesson.stops[v.index];
    const n = v.lesson.stops.length;
    this.root.dataset.lesson = v.lesson.id;
    this.root.dataset.stop = String(v.index + 1);
    this.root.dataset.atStop = String(v.atStop);
    this.root.dataset.claim = 'kind' in stop.claim ? stop.claim.kind : stop.claim.tag;
    // The structure the stop is about (a phone shows it first: style.css).
    this.root.dataset.picture = stop.look.find((k) => k === 'bar' || k === 'tree') ?? 'tree';
    this.root.dataset.holds = String(v.problem === null);
    // A "copied" from another picture would mislead.
    if (this.copied.dataset.for !== this.opts.link()) this.copied.textContent = '';
    this.head.textContent = `${v.lesson.title} · stop ${v.index + 1} / ${n}`;
    // A stop's title can name its answer: a neutral one while its question is open.
    this.title.textContent = v.question && !v.question.revealed ? WITHHELD.title : stop.title;
    this.text.textContent = stop.text;
    const label = 'kind' in stop.claim ? kindInfo(stop.claim.kind).label : `${stop.claim.tag} event`;
    this.claim.classList.toggle('bad', v.problem !== null);
    this.claim.textContent = v.problem ? `This stop does not hold: ${v.problem}` : `On screen: a ${label}, as the core reports it.`;
    this.away.hidden = v.atStop;
    const q = v.question;
    this.quiz.hidden = q === null;
    if (q) {
      this.root.dataset.ask = q.ask;
      this.root.dataset.revealed = String(q.revealed);
      this.prompt.textContent = q.prompt;
      // Once answered the feedback says it all: the card keeps the room for the narration.
      this.prompt.hidden = q.revealed;
      this.choices.hidden = q.ask !== 'store' || q.revealed;
      this.typed.hidden = q.ask === 'store' || q.revealed;
      if (q.revealed) this.typedError.hidden = true;
      this.typedWords.textContent = TYPED[q.ask];
      this.typedInput.placeholder = PLACEHOLDER[q.ask];
      this.reveal.hidden = q.revealed;
      this.onward.hidden = !q.offStop;
      this.feedback.dataset.right = q.right === null ? '' : String(q.right);
      this.feedback.textContent = !q.revealed
        ? ''
        : q.right === null
          ? `Answer: ${q.why}`
          : `${q.right ? 'Right' : `Not quite: you picked ${q.picked}`}. Answer: ${q.why}`;
      // The stop's words would give the answer away: shown once it is revealed.
      this.text.hidden = !q.revealed;
      this.claim.hidden = !q.revealed;
    } else {
      delete this.root.dataset.ask;
      delete this.root.dataset.revealed;
      this.text.hidden = false;
      this.claim.hidden = false;
    }
    // The practices are of the free tree's searches: a maple stop's visit has none, nor a lecturer's
    // stop (claimed by its event's tag).
    this.practise.hidden = !q || !q.revealed || !PRACTICE_KINDS.includes(q.ask) || !('kind' in stop.claim) || kindInfo(stop.claim.kind).group.startsWith('maple');
    const score = practiceScore(v.lesson.id, n);
    this.score.hidden = score === null;
    if (score) {
      const done = score.answered === score.stops || (v.index >= n - 1 && !!q?.revealed);
      this.score.dataset.done = String(done);
      this.score.textContent = done
        ? `Practice done: ${score.right} of ${score.stops} right.`
        : `Score: ${score.right} of ${score.answered} answered right (${score.stops} questions).`;
    }
    const first = v.index === 0;
    const last = v.index >= n - 1;
    this.prev.textContent = first && v.hasPrev ? '◀ Previous lesson' : '◀ Previous stop';
    this.next.textContent = last && v.hasNext ? 'Next lesson ▶' : 'Next stop ▶';
    this.prev.disabled = first && !v.hasPrev;
    this.next.disabled = last && !v.hasNext;
  }
}

const TYPED: Record<AskKind, string> = {
  land: 'Or type the address:',
  visit: 'Or type the node\'s number:',
  slot: 'Or type the node\'s number and the slot:',
  store: '',
};
const PLACEHOLDER: Record<AskKind, string> = { land: 'an address in hex', visit: 'a node', slot: 'node slot', store: '' };

/** The list of lessons (a modal dialog, like the keys' help). */
export class LessonPicker {
  private readonly list: HTMLElement;
  private opener: HTMLElement | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly onPick: (id: string) => void,
    onAuthor?: () => void,
  ) {
    root.classList.add('overlay', 'lesson-picker');
    root.hidden = true;
    root.setAttribute('role', 'dialog');
    root.setAttribute('aria-modal', 'true');
    root.setAttribute('aria-labelledby', 'lessons-title');
    const box = root.appendChild(el('div', 'overlay-box'));
    const h = box.appendChild(el('h2', '', 'Lessons'));
    h.id = 'lessons-title';
    box.appendChild(
      el('p', 'help-note', 'Each lesson is a series of stops on traces the core replays: every picture is the model\'s own. N / P (or PgDn / PgUp) go from stop to stop; → / ← step around a stop.'),
    );
    this.list = box.appendChild(el('ul', 'lesson-list'));
    // A lesson of one's own: saved from micro-steps, shared as a link or a file (authoredForm.ts).
    if (onAuthor) {
      const own = box.appendChild(el('button', 'btn lesson-author', 'Write your own lesson, or open one from a file…'));
      own.type = 'button';
      own.dataset.action = 'lesson-author';
      own.addEventListener('click', () => {
        this.hide(false);
        onAuthor();
      });
    }
    const close = box.appendChild(el('button', 'btn', 'Close'));
    close.type = 'button';
    close.addEventListener('click', () => this.hide());
    root.addEventListener('click', (e) => {
      if (e.target === root) this.hide();
    });
    root.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        this.hide();
        return;
      }
      // ↓ / ↑ (Home / End) go through the lessons, as in a list.
      const picks = [...this.list.querySelectorAll<HTMLElement>('button.lesson-pick')];
      const i = picks.indexOf(document.activeElement as HTMLElement);
      const to = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? picks.length - 1 : null;
      if (to !== null && picks.length) {
        e.preventDefault();
        e.stopPropagation();
        picks[(to + picks.length) % picks.length].focus();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = [...box.querySelectorAll<HTMLElement>('button')];
      const first = items[0];
      const last = items[items.length - 1];
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !box.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !box.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    });
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  show(lessons: readonly Lesson[], current: string | null): void {
    const at = document.activeElement;
    this.opener = at instanceof HTMLElement && at !== document.body ? at : null;
    this.list.replaceChildren(
      ...lessons.map((l) => {
        const li = el('li');
        const b = li.appendChild(el('button', 'btn lesson-pick'));
        b.type = 'button';
        b.dataset.lesson = l.id;
        if (l.id === current) b.setAttribute('aria-current', 'true');
        b.append(el('strong', '', l.title), el('span', 'lesson-meta', ` · ${l.stops.length} stops · about ${l.minutes} min`));
        li.append(el('p', 'lesson-summary', l.summary));
        b.addEventListener('click', () => {
          this.hide(false);
          this.onPick(l.id);
        });
        return li;
      }),
    );
    this.root.hidden = false;
    (this.list.querySelector('button') ?? (this.root.querySelector('button') as HTMLButtonElement)).focus();
  }

  hide(restore = true): void {
    if (!this.open) return;
    this.root.hidden = true;
    const back = this.opener;
    this.opener = null;
    if (restore && back && back.isConnected) back.focus();
  }
}
