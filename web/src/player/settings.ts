// Settings remembered across visits (localStorage; a private window without storage just
// forgets them).
const PREFIX = 'vmapviz.';

export function load(key: string): string | null {
  try {
    return localStorage.getItem(PREFIX + key);
  } catch {
    return null;
  }
}

export function save(key: string, value: string): void {
  try {
    localStorage.setItem(PREFIX + key, value);
  } catch {
    // storage unavailable: not remembered
  }
}

/** The speed remembered, or 1. */
export function loadSpeed(speeds: number[]): number {
  const v = Number(load('speed'));
  return speeds.includes(v) ? v : 1;
}

export type Theme = 'light' | 'dark';

/** The theme remembered, else the system's preference. */
export function loadTheme(): Theme {
  const v = load('theme');
  if (v === 'light' || v === 'dark') return v;
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Whether movement should be instant (prefers-reduced-motion). */
export function reducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}
