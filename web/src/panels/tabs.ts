// The workbench's tabs, shared by its shell (stub.ts, on the page from the start) and the
// workbench itself (index.ts, loaded on first use).
export type TabId = 'workloads' | 'io' | 'nodes' | 'compare' | 'charts' | 'frag' | 'struct' | 'large';

export const TABS: [TabId, string][] = [
  ['workloads', 'Workloads'],
  ['io', 'Import & export'],
  ['nodes', 'vmap nodes & pools'],
  ['compare', 'Compare profiles'],
  ['charts', 'Charts'],
  ['frag', 'Fragmentation'],
  ['struct', 'struct vmap_area'],
  ['large', 'Large trace'],
];

export const TAB_KEY = 'vmapviz.workbench.tab';

export const WORKBENCH_NOTE =
  'Workloads of the kernel’s test_vmalloc and teaching scenarios, real traces in and out, the linux-6.9 vmap nodes, profiles side by side, and the charts.';

/** The tab last used on this browser, or the first one. */
export function savedTab(): TabId {
  let saved: string | null = null;
  try {
    saved = localStorage.getItem(TAB_KEY);
  } catch {
    saved = null;
  }
  return TABS.some(([id]) => id === saved) ? (saved as TabId) : 'workloads';
}
