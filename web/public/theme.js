// The theme before the first paint (remembered, else the system's), so the page never flashes.
// A file, not an inline script, so the page's Content-Security-Policy needs no 'unsafe-inline' for scripts.
try {
  var t = localStorage.getItem('vmapviz.theme');
  if (t !== 'light' && t !== 'dark') t = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = t;
} catch (e) {}
