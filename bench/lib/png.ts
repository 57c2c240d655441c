// SVG to PNG with resvg (a Rust renderer shipped prebuilt in npm packages: no
// browser, no network), at twice the SVG's size for sharp text.
import { Resvg } from '@resvg/resvg-js';

export interface Png {
  data: Buffer;
  width: number;
  height: number;
  /** RGBA, row by row (for checking what was drawn). */
  pixels: Buffer;
}

export function renderPng(svg: string): Png {
  const rendered = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
  }).render();
  return { data: rendered.asPng(), width: rendered.width, height: rendered.height, pixels: rendered.pixels };
}
