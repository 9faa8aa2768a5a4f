// Copy a link (the lesson card's and the presenter view's Copy link): to the clipboard, or shown
// to copy by hand where the clipboard is refused.

/** Copy `href` to the clipboard and say so in `status` (or show it to copy by hand). */
export async function copyLink(href: string, status: HTMLElement): Promise<void> {
  status.dataset.for = href;
  try {
    await navigator.clipboard.writeText(href);
    status.textContent = 'Link copied.';
    status.dataset.copied = 'true';
  } catch {
    status.textContent = `Copy this link: ${href}`;
    status.dataset.copied = 'false';
  }
}
