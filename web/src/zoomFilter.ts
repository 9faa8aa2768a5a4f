// What the trees' d3 zoom takes: on a phone one finger scrolls the page over a tree (two pinch
// or pan it); a ctrl-drag is not a pan. Apart from touch.ts, which loads on touch screens only.
/** The screen width up to which the page is laid out for a phone (style.css). */
export const NARROW = '(max-width: 480px)';

/**
 * d3-zoom's filter for the tree views: its default, and on a narrow screen no gesture for a
 * single finger (the page scrolls under it and a swipe steps); two fingers pinch or pan.
 */
export function zoomFilter(event: Event): boolean {
  const e = event as MouseEvent & TouchEvent;
  if (event.type === 'touchstart' && e.touches.length < 2 && matchMedia(NARROW).matches) return false;
  return (!e.ctrlKey || event.type === 'wheel') && !e.button;
}
