// The figures the docs quote (docs/performance.md, browse.md, data.md,
// subscriptions.md) are rendered from the committed results files
// (docs/performance/*.json) by scripts/render-performance.ts, between
// `<!-- rendered: … -->` markers: a figure edited by hand, or a results file
// replaced without rendering again, fails here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_BLOCKS, DOCS_DIR, RESULTS_DIR, renderDoc, renderedDocs } from '../../scripts/render-performance.ts';

const text = (doc: string) => fs.readFileSync(path.join(DOCS_DIR, doc), 'utf8');

describe('the docs\' measured figures', () => {
  it.each(renderedDocs())('docs/%s is what docs/performance/*.json renders', (doc) => {
    expect(renderDoc(doc, text(doc))).toBe(text(doc));
  });

  it('every block renders from a results file: a changed figure renders a different doc, a missing file is named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'figures-'));
    try {
      for (const name of fs.readdirSync(RESULTS_DIR)) fs.copyFileSync(path.join(RESULTS_DIR, name), path.join(dir, name));
      for (const [name, block] of Object.entries(DOC_BLOCKS)) {
        const before = renderDoc(block.doc, text(block.doc), dir);
        // Every number in every results file moved: the block shows at least one of them.
        for (const file of fs.readdirSync(dir)) {
          const moved = JSON.stringify(JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, file), 'utf8')), (key, value) =>
            typeof value === 'number' && !['workers', 'runs'].includes(key) ? value * 1.5 + 1 : value);
          fs.writeFileSync(path.join(dir, file), moved);
        }
        expect(renderDoc(block.doc, text(block.doc), dir), name).not.toBe(before);
        for (const file of fs.readdirSync(RESULTS_DIR)) fs.copyFileSync(path.join(RESULTS_DIR, file), path.join(dir, file));
      }
      fs.rmSync(path.join(dir, 'browse.json'));
      expect(() => renderDoc('browse.md', text('browse.md'), dir)).toThrow('docs/performance/browse.json is missing');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a doc that lost its markers is an error, not a silent skip', () => {
    const [name, block] = Object.entries(DOC_BLOCKS)[0]!;
    expect(() => renderDoc(block.doc, text(block.doc).replace(`<!-- rendered: ${name} `, '<!-- '))).toThrow(`has no <!-- rendered: ${name}`);
  });
});
