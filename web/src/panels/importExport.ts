// Import (file picker, drag-and-drop, paste; trace text, JSON, ftrace, /proc/vmallocinfo) with
// the import report, and export (trace text, JSON, a compressed permalink, the views as SVG and
// PNG). Imports are all or nothing: the worker imports and replays first, and only a trace that
// replays is handed to the app, so a bad line leaves the page as it was.
import { importProfiles, type Era } from '../eras';
import { trace_to_json } from '../pkg-workbench/vmapviz_wasm.js';
import { isBundlePart, type Source } from '../workers/protocol';
import { parseReport, type ImportReport } from './api';
import type { AppApi } from './context';
import { button, download, grouped, h, select } from './dom';
import { pngBlob, svgMarkup } from './exportImage';
import { FILE_LIMIT, lineAt, mib, nothingToImport, PASTE_LIMIT } from './limits';
import { compressedUrl, zUrl } from './zlink';

export interface ImportOutcome {
  /** What the status line says (operations, where the trace opened). */
  summary: string;
  /** The import report JSON, when the input was converted by an importer. */
  report: string | null;
}

export interface ImportExportOptions {
  app: AppApi;
  /** Import and open (in a worker); rejects with the error message. `t0`: when the user acted. */
  open: (source: Source, what: string, t0?: number) => Promise<ImportOutcome>;
  /** The core's eras (its registry): the profile choice. */
  eras: readonly Era[];
}

const FORMATS: [string, string][] = [
  ['auto', 'detect'],
  ['trace', 'trace text'],
  ['json', 'JSON'],
  ['ftrace', 'ftrace (vmalloc events)'],
  ['vmallocinfo', '/proc/vmallocinfo'],
];


export class ImportExportPanel {
  readonly root: HTMLElement;
  private readonly format: HTMLSelectElement;
  private readonly profile: HTMLSelectElement;
  private readonly file: HTMLInputElement;
  private readonly paste: HTMLTextAreaElement;
  private readonly error: HTMLElement;
  private readonly status: HTMLElement;
  private readonly report: HTMLElement;
  private readonly drop: HTMLElement;
  private readonly link: HTMLInputElement;
  private readonly exportStatus: HTMLElement;
  private busy = false;
  /** The session the report shown is about (the import's); another one replacing it (an Undo, a scenario) hides the report. */
  private reportFor: unknown = null;

  constructor(private readonly opts: ImportExportOptions) {
    this.format = select('format', FORMATS, 'auto');
    this.format.setAttribute('aria-label', 'Input format');
    this.profile = select('import-profile', importProfiles(opts.eras), '');
    this.profile.setAttribute('aria-label', 'Profile for the import');
    this.file = h('input', { type: 'file', multiple: true, class: 'wb-file', 'data-testid': 'import-file', 'aria-label': 'Import a file, or the files of a capture bundle' });
    this.file.addEventListener('change', () => {
      const fs = [...(this.file.files ?? [])];
      if (fs.length) void this.importFiles(fs);
      this.file.value = '';
    });
    this.paste = h('textarea', {
      class: 'wb-paste wb-mono',
      rows: 6,
      spellcheck: 'false',
      placeholder: 'Paste a trace, its JSON form, ftrace output of the vmalloc events or /proc/vmallocinfo here',
      'aria-label': 'Pasted input',
      'data-testid': 'import-paste',
    });
    this.paste.addEventListener('paste', (e) => {
      const text = e.clipboardData?.getData('text/plain') ?? '';
      const total = this.paste.value.length - (this.paste.selectionEnd - this.paste.selectionStart) + text.length;
      if (total > PASTE_LIMIT) {
        e.preventDefault();
        this.fail(
          `line ${lineAt(text, PASTE_LIMIT - (total - text.length))}: the pasted text is ${mib(text.length)}, over the paste limit of ${mib(PASTE_LIMIT)} (crossed on this line); nothing was pasted. Drop the file or use the file picker instead (up to ${mib(FILE_LIMIT)}).`,
        );
      }
    });
    const importPaste = button('Import pasted text', 'import-paste', 'Import what is in the box above');
    importPaste.addEventListener('click', () => void this.importPaste());

    this.error = h('p', { class: 'wb-error', role: 'alert', 'data-testid': 'import-error' });
    this.error.hidden = true;
    this.status = h('p', { class: 'wb-status', role: 'status', 'data-testid': 'import-status' });
    this.report = h('div', { class: 'wb-report', 'data-testid': 'import-report' });
    this.report.hidden = true;

    this.drop = h(
      'div',
      { class: 'wb-drop', 'data-testid': 'import-drop' },
      h('strong', {}, 'Drop a file here'),
      h('span', {}, ' or '),
      h('label', { class: 'btn wb-file-label' }, 'choose a file…', this.file),
      h(
        'small',
        {},
        `Trace text, JSON, ftrace or /proc/vmallocinfo, up to ${mib(FILE_LIMIT)}; a paste up to ${mib(PASTE_LIMIT)}. Or all the files of a capture bundle at once (scripts/capture.sh: vmallocinfo.before, trace.txt, vmallocinfo.after, cpus.txt), replayed from the before file and compared with the kernel. Traces of more than 20,000 operations open in the large-trace navigator.`,
      ),
    );
    for (const ev of ['dragenter', 'dragover'] as const) {
      this.drop.addEventListener(ev, (e) => {
        e.preventDefault();
        this.drop.classList.add('over');
      });
    }
    this.drop.addEventListener('dragleave', () => this.drop.classList.remove('over'));
    this.drop.addEventListener('drop', (e) => {
      e.preventDefault();
      this.drop.classList.remove('over');
      const fs = [...(e.dataTransfer?.files ?? [])];
      if (fs.length) void this.importFiles(fs);
      else {
        const text = e.dataTransfer?.getData('text/plain');
        if (text) void this.importText(text, 'dropped text');
      }
    });

    this.link = h('input', { type: 'text', readonly: true, class: 'wb-input wb-mono wb-link', 'aria-label': 'Permalink', 'data-testid': 'permalink' });
    this.exportStatus = h('p', { class: 'wb-status', role: 'status', 'data-testid': 'export-status' });
    const act = (text: string, action: string, title: string, f: () => Promise<void> | void) => {
      const b = button(text, action, title);
      b.addEventListener('click', () => {
        Promise.resolve()
          .then(f)
          .catch((e: unknown) => this.exported(e instanceof Error ? e.message : String(e), true));
      });
      return b;
    };

    this.root = h(
      'div',
      { class: 'wb-io', 'data-widget': 'import-export' },
      h(
        'section',
        { class: 'wb-io-import', 'aria-label': 'Import' },
        h('h3', {}, 'Import'),
        h('div', { class: 'wb-row' }, h('label', { class: 'wb-inline-field' }, 'Format ', this.format), h('label', { class: 'wb-inline-field' }, 'Profile ', this.profile)),
        this.drop,
        this.paste,
        h('div', { class: 'wb-row' }, importPaste, h('small', { class: 'wb-muted' }, `Paste limit ${mib(PASTE_LIMIT)}.`)),
        this.error,
        this.status,
        this.report,
      ),
      h(
        'section',
        { class: 'wb-io-export', 'aria-label': 'Export' },
        h('h3', {}, 'Export'),
        h('div', { class: 'wb-row' },
          act('Trace text', 'export-trace', 'Download the trace as text (.trace)', () => this.exportTrace()),
          act('JSON', 'export-json', 'Download the trace in its JSON form', () => this.exportJson()),
        ),
        h('div', { class: 'wb-row' },
          act('Copy permalink', 'permalink', 'A compressed link (#z=) to this trace and step', () => this.permalink()),
        ),
        this.link,
        h('div', { class: 'wb-row' },
          act('Bar SVG', 'export-bar-svg', 'The address-space bar as SVG', () => this.image('space-bar', 'svg')),
          act('Bar PNG', 'export-bar-png', 'The address-space bar as PNG', () => this.image('space-bar', 'png')),
          act('Tree SVG', 'export-tree-svg', 'The free tree as SVG', () => this.image('free-tree', 'svg')),
          act('Tree PNG', 'export-tree-png', 'The free tree as PNG', () => this.image('free-tree', 'png')),
        ),
        this.exportStatus,
      ),
    );
    // An Undo (or anything else) putting another trace in place of the imported one: its report
    // is no longer about the trace shown.
    opts.app.onChange(() => {
      if (!this.report.hidden && this.opts.app.core !== this.reportFor) this.showReport(null);
    });
  }

  private fail(msg: string): void {
    // The report shown was the previous file's: next to this error it would read as this one's.
    this.showReport(null);
    this.error.hidden = false;
    this.error.textContent = msg;
    this.status.textContent = 'Nothing changed: the trace shown is the one before the import.';
  }

  /** Refuse an import before it starts (it counts as an attempt, `data-imports`). */
  private refuse(msg: string): void {
    this.fail(msg);
    this.root.dataset.imports = String(Number(this.root.dataset.imports ?? 0) + 1);
  }

  private clear(): void {
    this.error.hidden = true;
    this.error.textContent = '';
  }

  /** One file, or a capture bundle: several files, or one named as a bundle's part. */
  async importFiles(fs: File[]): Promise<void> {
    if (fs.length === 1 && !isBundlePart(fs[0].name)) return this.importFile(fs[0]);
    return this.importBundle(fs);
  }

  /** A capture bundle's files: replayed from the before file in the worker, compared with the kernel. */
  async importBundle(fs: File[]): Promise<void> {
    const t0 = performance.now();
    this.clear();
    const big = fs.find((f) => f.size > FILE_LIMIT);
    if (big) {
      this.fail(`${big.name}: the file is ${mib(big.size)}; the limit is ${mib(FILE_LIMIT)}. Nothing was imported.`);
      return;
    }
    const parts = await Promise.all(fs.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    await this.run({ kind: 'capture', profile: this.profile.value, parts }, `the capture bundle (${fs.length} file${fs.length === 1 ? '' : 's'})`, t0);
  }

  async importFile(f: File): Promise<void> {
    const t0 = performance.now();
    this.clear();
    if (f.size > FILE_LIMIT) {
      const head = new Uint8Array(await f.slice(0, FILE_LIMIT).arrayBuffer());
      let line = 1;
      for (const b of head) if (b === 10) line++;
      this.fail(`${f.name}: line ${line}: the file is ${mib(f.size)}; the limit is ${mib(FILE_LIMIT)}, crossed on this line. Nothing was imported.`);
      return;
    }
    const bytes = new Uint8Array(await f.arrayBuffer());
    const nothing = nothingToImport(bytes);
    if (nothing) {
      this.refuse(`${f.name}: nothing to import: the file ${nothing}.`);
      return;
    }
    await this.run({ kind: 'import', format: this.format.value, profile: this.profile.value, bytes }, f.name, t0);
  }

  async importText(text: string, what: string): Promise<void> {
    this.clear();
    if (text.length > PASTE_LIMIT) {
      this.fail(`line ${lineAt(text, PASTE_LIMIT)}: the text is ${mib(text.length)}, over the paste limit of ${mib(PASTE_LIMIT)}; use the file picker.`);
      return;
    }
    await this.run({ kind: 'import', format: this.format.value, profile: this.profile.value, text }, what);
  }

  private async importPaste(): Promise<void> {
    const text = this.paste.value;
    if (!text.trim()) {
      this.refuse('Nothing to import: the box is empty.');
      return;
    }
    if (nothingToImport(new TextEncoder().encode(text))) {
      this.refuse('Nothing to import: the box holds only comments.');
      return;
    }
    await this.importText(text, 'pasted text');
  }

  private async run(source: Source, what: string, t0 = performance.now()): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.status.textContent = `Importing ${what}…`;
    this.root.dataset.busy = 'true';
    try {
      const out = await this.opts.open(source, what, t0);
      this.clear();
      this.status.textContent = out.summary;
      this.showReport(out.report ? parseReport(out.report) : null);
      this.reportFor = this.opts.app.core;
    } catch (e) {
      this.fail(`${what}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      this.busy = false;
      delete this.root.dataset.busy;
      this.root.dataset.imports = String(Number(this.root.dataset.imports ?? 0) + 1);
    }
  }

  private showReport(r: ImportReport | null): void {
    this.report.hidden = r === null;
    if (!r) {
      this.report.replaceChildren();
      return;
    }
    this.report.dataset.format = r.format;
    this.report.dataset.mapped = String(r.mapped);
    this.report.dataset.skipped = String(r.skipped.length);
    const facts: string[] = [`${r.format}: ${grouped(r.mapped)} record${r.mapped === 1 ? '' : 's'} mapped`, `${r.skipped.length} skipped`];
    if (r.format === 'capture') {
      // The comparison's last line: allocations equal, explained, unexplained; final busy; purges.
      facts.splice(0, facts.length, r.notes[r.notes.length - 1]?.text ?? '');
      this.report.dataset.unexplained = String(r.mismatches);
    } else delete this.report.dataset.unexplained;
    if (r.format === 'ftrace') facts.push(`${r.purgeEvents} purge events (replayed where the replay had not purged by itself)`, `${r.mismatches} address mismatches`);
    const lines = (title: string, cls: string, items: { line: number; text: string }[]) =>
      items.length
        ? h(
            'details',
            { class: `wb-report-${cls}`, open: items.length <= 12 },
            h('summary', {}, `${title} (${items.length})`),
            h('ul', {}, ...items.slice(0, 500).map((i) => h('li', {}, h('span', { class: 'wb-line' }, i.line ? `line ${i.line}` : 'note'), ' ', i.text))),
          )
        : null;
    const labels = r.labels.length
      ? h(
          'details',
          { class: 'wb-report-labels' },
          h('summary', {}, `callers (${r.labels.length}), shown as text`),
          h('ul', { 'data-testid': 'import-labels' }, ...r.labels.slice(0, 500).map((l) => h('li', {}, h('span', { class: 'wb-line' }, `op ${l.index + 1}`), ' ', h('code', {}, l.text)))),
        )
      : null;
    const parts: (HTMLElement | null)[] = [
      h('p', { class: 'wb-report-facts' }, facts.join(' · ')),
      lines('could not be mapped', 'skipped', r.skipped),
      lines('notes', 'notes', r.notes),
      labels,
    ];
    this.report.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }

  // ---------- export ----------

  /** The main view's trace (the large-trace navigator exports its own). */
  private async traces(): Promise<{ text: string; json: string; where: string }> {
    const text = this.opts.app.currentTrace();
    return { text, json: trace_to_json(text), where: 'the trace of the main view' };
  }

  private async exportTrace(): Promise<void> {
    const t = await this.traces();
    download('vmapviz.trace', t.text);
    this.exported(`Saved ${t.where} as vmapviz.trace (${grouped(t.text.length)} bytes).`);
  }

  private async exportJson(): Promise<void> {
    const t = await this.traces();
    download('vmapviz.json', t.json, 'application/json');
    this.exported(`Saved ${t.where} as vmapviz.json (${grouped(t.json.length)} bytes).`);
  }

  private async permalink(): Promise<void> {
    const app = this.opts.app;
    // The position as the address bar holds it: the operation and, inside it, the micro-step.
    const step = app.currentStep();
    const extras = { frame: app.currentFrame?.() ?? -1, lecture: document.body.classList.contains('lecture') };
    // A long trace takes 100-200 ms to compress: the app does it in a worker, once per trace.
    // In a lesson the lesson's own link (its stop and micro-step), not the bare trace's.
    const lesson = app.lessonHref?.() ?? null;
    this.exported(lesson ? 'The lesson\'s link…' : 'Compressing the link…');
    const link = lesson
      ? Promise.resolve(lesson)
      : app.zippedTrace
      ? app.zippedTrace().then((z) => zUrl(location.href, z, step, extras))
      : Promise.resolve(compressedUrl(location.href, app.currentTrace(), step, extras));
    // The clipboard is asked now, while the click still counts as the user's (a browser may
    // refuse a write that comes after the worker's answer), with the link still to come.
    const copied = copyLater(link);
    const url = await link;
    this.link.value = url;
    this.link.select();
    if (lesson) this.exported(`${(await copied) ? 'Copied' : 'Select and copy'} the lesson's link to this stop and micro-step.`);
    else this.exported(`${(await copied) ? 'Copied' : 'Select and copy'} a compressed link (${grouped(url.length)} characters; the plain #trace= form also opens).`);
  }

  private async image(widget: string, kind: 'svg' | 'png'): Promise<void> {
    const svg = document.querySelector<SVGSVGElement>(`[data-widget="${widget}"] svg`);
    if (!svg) throw new Error(`no ${widget} view to export`);
    const name = `vmapviz-${widget}.${kind}`;
    if (kind === 'svg') download(name, svgMarkup(svg), 'image/svg+xml');
    else download(name, await pngBlob(svg));
    this.exported(`Saved ${name}.`);
  }

  private exported(text: string, error = false): void {
    this.exportStatus.textContent = text;
    this.exportStatus.classList.toggle('error', error);
  }
}

/** Put `text` on the clipboard once it comes: true when the browser took it. */
async function copyLater(text: Promise<string>): Promise<boolean> {
  const clip = navigator.clipboard as Clipboard | undefined;
  if (!clip) return false;
  try {
    // A ClipboardItem takes a promise of its data: the write is asked for at once.
    if (typeof ClipboardItem === 'function' && typeof clip.write === 'function') {
      await clip.write([new ClipboardItem({ 'text/plain': text.then((t) => new Blob([t], { type: 'text/plain' })) })]);
      return true;
    }
  } catch {
    // Refused (no permission, or no promise support): try the plain write below.
  }
  try {
    await clip.writeText(await text);
    return true;
  } catch {
    return false;
  }
}
