// Small DOM helpers for the workbench panels. Text always goes in as text (textContent), never
// as HTML: captures carry caller names and comments from other machines.
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | null | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = String(v);
    else if (k === 'text') e.textContent = String(v);
    else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role' || k === 'for' || k === 'title')
      e.setAttribute(k, String(v));
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function button(text: string, action: string, title?: string, cls = 'btn'): HTMLButtonElement {
  const b = h('button', { class: cls, type: 'button', 'data-action': action, title }, text);
  return b;
}

/** A labelled form field: `<label><span>name</span>control<small>hint</small></label>`. */
export function field(label: string, control: HTMLElement, hint?: string, cls = 'wb-field'): HTMLLabelElement {
  return h('label', { class: cls }, h('span', { class: 'wb-field-name' }, label), control, hint ? h('small', {}, hint) : null);
}

export function numberInput(name: string, value: number | null, min = 0, max?: number, step = 1): HTMLInputElement {
  const i = h('input', { type: 'number', name, min, max, step, class: 'wb-input' });
  i.value = value === null ? '' : String(value);
  return i;
}

export function select(name: string, options: [string, string][], value: string): HTMLSelectElement {
  const s = h('select', { name, class: 'wb-input' });
  for (const [v, t] of options) s.append(h('option', { value: v }, t));
  s.value = value;
  return s;
}

/** Thousands separators: 1000000 → 1,000,000. */
export function grouped(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** Offer a file to the user (a download named `name`). */
export function download(name: string, data: Blob | string, type = 'text/plain'): void {
  const blob = typeof data === 'string' ? new Blob([data], { type }) : data;
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Wait for the browser to paint (two frames). */
export function nextPaint(): Promise<void> {
  return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
}
