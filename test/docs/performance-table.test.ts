// The README's performance table is rendered from the results files the
// benches publish (docs/performance/*.json, scripts/render-performance.ts):
// a figure edited by hand, or a results file replaced without rendering
// again, fails here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESULTS_DIR, ROWS, renderReadme } from '../../scripts/render-performance.ts';

const README = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe('the README\'s performance table', () => {
  it('is what docs/performance/*.json renders', () => {
    expect(renderReadme(README)).toBe(README);
  });

  it('follows the results files: a changed figure renders a different table, a missing file is named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'performance-'));
    try {
      for (const name of fs.readdirSync(RESULTS_DIR)) fs.copyFileSync(path.join(RESULTS_DIR, name), path.join(dir, name));
      const file = path.join(dir, `${ROWS[0]!.file}.json`);
      const results = JSON.parse(fs.readFileSync(file, 'utf8')) as { rows: { rps: number }[]; medians?: { rps: number }[] };
      for (const row of [...results.rows, ...(results.medians ?? [])]) row.rps += 1000;
      fs.writeFileSync(file, JSON.stringify(results));
      expect(renderReadme(README, dir)).not.toBe(README);
      fs.rmSync(file);
      expect(() => renderReadme(README, dir)).toThrow(`docs/performance/${ROWS[0]!.file}.json is missing`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names, for every results file, the command, the commit and the machine that produced it', () => {
    for (const name of fs.readdirSync(RESULTS_DIR).filter((n) => n.endsWith('.json'))) {
      // One run's file has one provenance; a file of one entry per setting (publishEntry: bench:flood, bench:storm), one per entry.
      const results = JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, name), 'utf8')) as { provenance?: Record<string, any>; entries?: { provenance: Record<string, any> }[] };
      const provenances = results.provenance ? [results.provenance] : (results.entries ?? []).map((entry) => entry.provenance);
      expect(provenances.length, name).toBeGreaterThan(0);
      for (const provenance of provenances) expectProvenance(name, provenance);
    }
  });
});

function expectProvenance(name: string, provenance: Record<string, any>): void {
  expect(provenance.command, name).toMatch(/^npm run bench(:[a-z-]+)? -- /);
  expect(provenance.commit, name).toMatch(/^[0-9a-f]{40}$/);
  expect(provenance.machine.cores, name).toBeGreaterThan(0);
  expect(provenance.startedAt, name).toMatch(/^\d{4}-\d\d-\d\dT/);
  expect(Object.keys(provenance.data ?? {}).length, name).toBeGreaterThan(0);
}
