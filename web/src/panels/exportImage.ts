// The views as standalone images: an SVG with the page's computed styles inlined (the page's
// CSS does not travel with the file), and a PNG rendered from it on a canvas.

/** Presentation properties that carry the look of the views. */
const PROPS = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'letter-spacing',
  'text-anchor',
  'dominant-baseline',
  'paint-order',
  'text-transform',
  'visibility',
  'display',
] as const;

/** Serialise an SVG element with its computed styles inlined and a white background. */
export function svgMarkup(svg: SVGSVGElement): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const src = [svg, ...svg.querySelectorAll<SVGElement>('*')];
  const dst = [clone, ...clone.querySelectorAll<SVGElement>('*')];
  src.forEach((e, i) => {
    const cs = getComputedStyle(e);
    const style = PROPS.map((p) => {
      const v = cs.getPropertyValue(p);
      return v ? `${p}:${v}` : '';
    })
      .filter(Boolean)
      .join(';');
    if (style) dst[i].setAttribute('style', style);
    // text-transform does not apply in standalone SVG renderers: bake it in.
    if (e instanceof SVGTextElement && cs.textTransform === 'uppercase' && e.childElementCount === 0) {
      dst[i].textContent = (e.textContent ?? '').toUpperCase();
    }
  });
  const { width, height } = size(svg);
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  if (!clone.getAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  const [vx, vy, vw, vh] = (clone.getAttribute('viewBox') ?? '').split(/[\s,]+/).map(Number);
  bg.setAttribute('x', String(vx || 0));
  bg.setAttribute('y', String(vy || 0));
  bg.setAttribute('width', String(vw || width));
  bg.setAttribute('height', String(vh || height));
  bg.setAttribute('fill', '#ffffff');
  clone.insertBefore(bg, clone.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
}

function size(svg: SVGSVGElement): { width: number; height: number } {
  const w = Number(svg.getAttribute('width')) || svg.getBoundingClientRect().width || 800;
  const h = Number(svg.getAttribute('height')) || svg.getBoundingClientRect().height || 400;
  return { width: Math.ceil(w), height: Math.ceil(h) };
}

/** A PNG of the SVG at `scale` device pixels per CSS pixel. */
export async function pngBlob(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const markup = svgMarkup(svg);
  const { width, height } = size(svg);
  const url = URL.createObjectURL(new Blob([markup], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
    await new Promise<void>((res, rej) => {
      img.onload = () => res();
      img.onerror = () => rej(new Error('the browser could not draw the SVG'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((res, rej) =>
      canvas.toBlob((b) => (b ? res(b) : rej(new Error('the canvas gave no PNG'))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
