// Lecture mode's page-wide switches: the blanked screen (a remote's "blank" button), the legend
// it leaves out (key G), and a frame's hidden heading when embedded.
import { lectureLegend } from '../views/overlays';

export function blanked(): boolean {
  return document.body.dataset.blank === 'true';
}

/** Black the screen out (a remote's "blank" button) or bring it back. */
export function setBlank(on: boolean): void {
  if (on) document.body.dataset.blank = 'true';
  else delete document.body.dataset.blank;
  // A presenter view says whether the hall sees a picture.
  window.dispatchEvent(new Event('vmapviz:presenter-state'));
}

/** Lecture mode's legend, shown or hidden (key G). */
export function toggleLegend(): void {
  let box = document.getElementById('lecture-legend');
  if (!box) {
    box = lectureLegend();
    document.querySelector('#app > main')?.append(box);
  }
  box.hidden = !box.hidden;
}

/** `&embed=1`: only the views and the transport. The header (and its h1) is hidden in a frame: the frame keeps a heading for screen readers. */
export function showEmbedded(on: boolean): void {
  document.body.classList.toggle('embed', on);
  let title = document.getElementById('embed-title');
  if (on && !title) {
    title = document.createElement('h1');
    title.id = 'embed-title';
    title.className = 'visually-hidden';
    title.textContent = 'vmapviz: the vmalloc allocator, step by step';
    document.querySelector('#app > main')?.prepend(title);
  } else if (!on) title?.remove();
}
