// The caller and flags of the area under the pointer in the address-space views, when the trace
// came with them (a /proc/vmallocinfo, a capture's before and after files): a tooltip that reads
// the area's range from the view's data attributes and looks it up in the files' lines.
import { parseBig } from '../../format';
import { h } from '../dom';
import { human, type CallerIndex } from './parse';

const VIEWS = '[data-widget="space-bar"], [data-widget="space-zoom"]';
let current: CallerIndex | null = null;
let tip: HTMLElement | null = null;

function hide(): void {
  if (tip) tip.hidden = true;
}

function show(e: PointerEvent): void {
  const el = (e.target as Element | null)?.closest?.('[data-state][data-va-start][data-va-end]');
  if (!el || !current || !el.closest(VIEWS)) return hide();
  let start: bigint;
  let end: bigint;
  try {
    start = parseBig(el.getAttribute('data-va-start'));
    end = parseBig(el.getAttribute('data-va-end'));
  } catch {
    return hide();
  }
  const found = current.find(start, end);
  if (!found.length) return hide();
  tip ??= document.body.appendChild(h('div', { class: 'frag-tip', role: 'tooltip', 'data-testid': 'caller-tip' }));
  tip.replaceChildren(
    ...found.slice(0, 2).map(({ file, area }) =>
      h(
        'div',
        { class: 'frag-tip-row', 'data-caller': area.caller, 'data-flags': area.flags },
        h('strong', {}, area.caller),
        h('span', {}, ` ${human(area.bytes)} ${area.flags}`),
        h('small', {}, ` (${file})`),
      ),
    ),
  );
  tip.hidden = false;
  const x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = e.clientY + 18 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 10 : e.clientY + 18;
  tip.style.left = `${Math.max(4, x)}px`;
  tip.style.top = `${Math.max(4, y)}px`;
}

/** Show callers from `index` on hover (listeners installed once; a later index replaces it). */
export function installCallerTip(index: CallerIndex): void {
  if (!current) {
    document.addEventListener('pointerover', show);
    document.addEventListener('pointerleave', hide);
  }
  current = index;
}
