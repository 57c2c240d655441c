// node scripts/trace-waterfall.ts <spans.jsonl|trace.json> <out.svg> [--trace <id>] [--title <text>]
//
// Renders one trace as a waterfall (an SVG, and a PNG beside it through
// @resvg/resvg-js): a bar per span, indented under its parent, from the spans
// an OTLP receiver wrote, one JSON object per line with traceId, spanId,
// parentSpanId, name, startUnixNano, endUnixNano and attributes (what
// test/support/otlp-receiver prints: the collector's own decoding of what the
// API exported). Without --trace, the trace with the most spans.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Resvg } from '@resvg/resvg-js';
import { type ReceivedSpan, note, ordered, readSpans } from '../bench/lib/trace-spans.ts';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function render(spans: ReceivedSpan[], title: string): string {
  const rows = ordered(spans);
  const start = Math.min(...spans.map((span) => span.startUnixNano));
  const end = Math.max(...spans.map((span) => span.endUnixNano));
  const total = Math.max(end - start, 1);
  const label = 330;
  const width = 1100;
  // Bars, then a column for each span's duration and notes.
  const bars = width - label - 230;
  const rowHeight = 22;
  const height = 60 + rows.length * rowHeight + 30;
  const x = (ns: number) => label + ((ns - start) / total) * bars;
  const lines = rows.map(({ span, depth }, i) => {
    const y = 50 + i * rowHeight;
    const ms = (span.endUnixNano - span.startUnixNano) / 1e6;
    const left = x(span.startUnixNano);
    const barWidth = Math.max(x(span.endUnixNano) - left, 1.5);
    const color = span.name.startsWith('dataloader') ? '#7b61ff' : /^[a-z]+[A-Z]|^[A-Z]+$/.test(span.name) || span.name.startsWith('pg.') ? '#e8833a' : span.name.startsWith('cache') ? '#2a9d8f' : span.name.startsWith('graphql') || /^(query|mutation) /.test(span.name) ? '#3a86ff' : '#6c757d';
    return `<text x="${8 + depth * 14}" y="${y + 14}" font-size="12">${escape(span.name)}</text>`
      + `<rect x="${left.toFixed(1)}" y="${y + 3}" width="${barWidth.toFixed(1)}" height="14" fill="${color}" rx="2"/>`
      + `<text x="${label + bars + 12}" y="${y + 14}" font-size="11" fill="#333">${ms.toFixed(2)} ms${note(span) ? ` · ${escape(note(span))}` : ''}</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif">`
    + `<rect width="100%" height="100%" fill="#fff"/>`
    + `<text x="8" y="24" font-size="14" font-weight="bold">${escape(title)}</text>`
    + `<text x="${label}" y="42" font-size="11" fill="#555">0 ms</text><text x="${label + bars - 50}" y="42" font-size="11" fill="#555">${(total / 1e6).toFixed(2)} ms</text>`
    + lines.join('') + '</svg>\n';
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { trace: { type: 'string' }, title: { type: 'string' } } });
const [input, output] = positionals;
if (!input || !output) throw new Error('usage: node scripts/trace-waterfall.ts <spans.jsonl|trace.json> <out.svg> [--trace <id>] [--title <text>]');
const all = readSpans(input);
const byTrace = Map.groupBy(all, (span) => span.traceId);
const traceId = values.trace ?? [...byTrace].sort((a, b) => b[1].length - a[1].length)[0]?.[0];
const spans = traceId ? byTrace.get(traceId) ?? [] : [];
if (spans.length === 0) throw new Error(`no spans of trace ${traceId ?? '(none)'} in ${input}`);
const svg = render(spans, values.title ?? `trace ${traceId}`);
fs.writeFileSync(output, svg);
fs.writeFileSync(output.replace(/\.svg$/, '.png'), new Resvg(svg, { fitTo: { mode: 'zoom', value: 1.5 } }).render().asPng());
console.log(`${spans.length} spans of trace ${traceId} → ${output} and its .png`);
