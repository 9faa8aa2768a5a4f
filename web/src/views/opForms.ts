// The operation forms: allocate (size, align, vstart, vend, with vmalloc()'s defaults: the size
// in pages plus a guard page, align 1, the vmalloc window) and free by address (free or
// vfree). A bad field gets an inline message and nothing changes.
import { VMALLOC_END, VMALLOC_START } from '../constants';
import { hex } from '../format';
import { allocLine, coreMessage, freeLine } from '../player/inputs';
import { el } from './common';

export interface OpFormsOptions {
  /**
   * Append a trace line; returns the core's error message, or null when it was added. The core
   * decides (the same check as for "Add an operation"): the forms only read their fields.
   */
  onPush: (line: string) => string | null;
}

export class OpForms {
  private readonly allocError: HTMLElement;
  private readonly freeError: HTMLElement;
  private readonly preview: HTMLElement;
  private readonly fields: Record<'size' | 'align' | 'vstart' | 'vend' | 'addr', HTMLInputElement>;
  private readonly vmalloc: HTMLInputElement;
  private readonly how: HTMLSelectElement;

  constructor(
    root: HTMLElement,
    private readonly opts: OpFormsOptions,
  ) {
    root.classList.add('op-forms');
    const field = (form: HTMLElement, name: string, label: string, value: string, hint: string) => {
      const wrap = form.appendChild(el('label', `field field-${name}`));
      wrap.append(el('span', 'field-name', label));
      const input = wrap.appendChild(el('input', 'field-input'));
      input.name = name;
      input.value = value;
      input.autocomplete = 'off';
      input.spellcheck = false;
      input.title = hint;
      return input;
    };

    const alloc = root.appendChild(el('form', 'op-form alloc-form'));
    alloc.setAttribute('aria-label', 'Allocate');
    alloc.dataset.testid = 'alloc-form';
    alloc.append(el('h3', 'form-title', 'Allocate'));
    const grid = alloc.appendChild(el('div', 'form-grid'));
    const size = field(grid, 'size', 'size', '4K', 'Bytes: 4096, 0x1000, 4K, 2M');
    const align = field(grid, 'align', 'align', '0x1', 'A power of two');
    const vstart = field(grid, 'vstart', 'vstart', hex(VMALLOC_START), 'Lowest address (VMALLOC_START)');
    const vend = field(grid, 'vend', 'vend', hex(VMALLOC_END), 'End of the window (VMALLOC_END)');
    const row = alloc.appendChild(el('div', 'form-row'));
    const vm = row.appendChild(el('label', 'check'));
    this.vmalloc = vm.appendChild(el('input'));
    this.vmalloc.type = 'checkbox';
    this.vmalloc.checked = true;
    this.vmalloc.name = 'vmalloc';
    vm.append(' as vmalloc(): whole pages + guard page');
    const go = row.appendChild(el('button', 'btn primary', 'Allocate'));
    go.type = 'submit';
    this.preview = alloc.appendChild(el('p', 'preview'));
    this.preview.dataset.testid = 'alloc-preview';
    this.allocError = alloc.appendChild(el('p', 'error'));
    this.allocError.dataset.testid = 'alloc-error';
    this.allocError.setAttribute('role', 'alert');
    this.allocError.hidden = true;

    const free = root.appendChild(el('form', 'op-form free-form'));
    free.setAttribute('aria-label', 'Free');
    free.dataset.testid = 'free-form';
    free.append(el('h3', 'form-title', 'Free'));
    const frow = free.appendChild(el('div', 'form-row'));
    const addr = field(frow, 'addr', 'address', '', 'The start of a busy area (or click one on the bar)');
    addr.placeholder = '0xffffc90000002000';
    this.how = frow.appendChild(el('select', 'how'));
    this.how.name = 'how';
    this.how.setAttribute('aria-label', 'How to free');
    for (const h of ['free', 'vfree']) this.how.appendChild(el('option', '', h)).value = h;
    const fgo = frow.appendChild(el('button', 'btn primary', 'Free'));
    fgo.type = 'submit';
    this.freeError = free.appendChild(el('p', 'error'));
    this.freeError.dataset.testid = 'free-error';
    this.freeError.setAttribute('role', 'alert');
    this.freeError.hidden = true;
    free.append(el('p', 'hint', 'free: the area is free again at once · vfree: lazily, as the kernel does'));

    this.fields = { size, align, vstart, vend, addr };
    const input = () => this.allocInput();
    const update = () => {
      this.allocError.hidden = true;
      try {
        const { line, note } = allocLine(input());
        this.preview.textContent = `${note} → ${line}`;
      } catch {
        this.preview.textContent = '';
      }
    };
    for (const f of [size, align, vstart, vend]) f.addEventListener('input', update);
    this.vmalloc.addEventListener('change', update);
    update();
    alloc.addEventListener('submit', (e) => {
      e.preventDefault();
      let line: string;
      try {
        line = allocLine(input()).line;
      } catch (err) {
        this.show(this.allocError, (err as Error).message);
        return;
      }
      const problem = this.opts.onPush(line);
      this.show(this.allocError, problem === null ? null : coreMessage(problem));
    });
    addr.addEventListener('input', () => {
      this.freeError.hidden = true;
    });
    free.addEventListener('submit', (e) => {
      e.preventDefault();
      let line: string;
      try {
        line = freeLine(addr.value, this.how.value === 'vfree' ? 'vfree' : 'free');
      } catch (err) {
        this.show(this.freeError, (err as Error).message);
        return;
      }
      const problem = this.opts.onPush(line);
      this.show(this.freeError, problem === null ? null : coreMessage(problem));
      if (problem === null) addr.value = '';
    });
  }

  private allocInput() {
    const f = this.fields;
    return { size: f.size.value, align: f.align.value, vstart: f.vstart.value, vend: f.vend.value, vmalloc: this.vmalloc.checked };
  }

  private show(e: HTMLElement, msg: string | null): void {
    e.hidden = msg === null;
    e.textContent = msg ?? '';
  }

  /** Put an address in the free form (a click on a busy area). */
  setFreeAddress(addr: bigint, how: 'free' | 'vfree' = 'vfree'): void {
    this.fields.addr.value = hex(addr);
    this.how.value = how;
    this.freeError.hidden = true;
  }
}
