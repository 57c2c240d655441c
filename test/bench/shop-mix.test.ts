// The shop mix's requests (bench/lib/shop-mix.ts): Zipf(1) popularity, the
// popular products spread over the catalogue, the five kinds in their shares,
// browse bodies of realistic words, the same sequence every run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSE_VARIETY, SHOP_MIX, seededRandom, spreadIds, writeShopMix, zipfRanks } from '../../bench/lib/shop-mix.ts';

const harmonic = (n: number) => Array.from({ length: n }, (_, i) => 1 / (i + 1)).reduce((a, b) => a + b, 0);

describe('Zipf(1) ranks', () => {
  it('rank r is drawn (1/r) / H(n) of the time, whatever n', () => {
    for (const n of [1_000, 1_000_011]) {
      const draw = zipfRanks(n, seededRandom(7));
      const counts = new Map<number, number>();
      const draws = 400_000;
      for (let i = 0; i < draws; i++) {
        const rank = draw();
        expect(rank >= 1 && rank <= n).toBe(true);
        counts.set(rank, (counts.get(rank) ?? 0) + 1);
      }
      const h = harmonic(n);
      for (const rank of [1, 2, 3, 10]) expect((counts.get(rank) ?? 0) / draws).toBeCloseTo(1 / rank / h, 2);
      const top100 = [...Array(100).keys()].reduce((sum, i) => sum + (counts.get(i + 1) ?? 0), 0);
      expect(top100 / draws).toBeCloseTo(harmonic(100) / h, 2);
    }
  });
});

describe('ranks to ids', () => {
  it('is a permutation of 1..n that spreads the most popular over the whole catalogue', () => {
    for (const n of [2_000, 1_000_011]) {
      const idOf = spreadIds(n);
      const seen = new Set<number>();
      for (let rank = 1; rank <= Math.min(n, 200_000); rank++) {
        const id = idOf(rank);
        expect(id >= 1 && id <= n).toBe(true);
        seen.add(id);
      }
      expect(seen.size).toBe(Math.min(n, 200_000));
      const top = Array.from({ length: 100 }, (_, i) => idOf(i + 1));
      expect(Math.min(...top)).toBeLessThan(n / 10);
      expect(Math.max(...top)).toBeGreaterThan((9 * n) / 10);
      // Not ids 1..k: the first ranks are not neighbours.
      expect(Math.abs(idOf(1) - idOf(2))).toBeGreaterThan(n / 10);
    }
  });
});

describe('the sequence', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shop-mix-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('has each kind in its share, ids within the catalogue, bodies of each browse kind, and is the same every run', () => {
    const files = writeShopMix(dir, 50_000);
    const lines = fs.readFileSync(files.sequence, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(200_000);
    const byLetter = new Map<string, number[]>();
    for (const line of lines) {
      const match = /^([a-z]) (\d+)$/.exec(line);
      if (!match) throw new Error(`not a line of the sequence: ${line}`);
      let values = byLetter.get(match[1]!);
      if (!values) byLetter.set(match[1]!, values = []);
      values.push(Number(match[2]));
    }
    for (const { letter, share, kind } of SHOP_MIX) {
      const values = byLetter.get(letter) ?? [];
      expect(values.length / lines.length, kind).toBeCloseTo(share, 2);
      const limit = kind === 'styles' || kind === 'page' ? 50_000 : BROWSE_VARIETY;
      expect(values.every((v) => v >= 1 && v <= limit), kind).toBe(true);
      // Zipf: the most popular value is asked for about 1/H(n) of the time.
      const top = new Map<number, number>();
      for (const v of values) top.set(v, (top.get(v) ?? 0) + 1);
      expect(Math.max(...top.values()) / values.length * harmonic(limit), kind).toBeGreaterThan(0.9);
      expect(Math.max(...top.values()) / values.length * harmonic(limit), kind).toBeLessThan(1.1);
    }
    for (const kind of ['category', 'search', 'facets'] as const) {
      const bodies = fs.readFileSync(files[kind], 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { operationName: string; variables: Record<string, unknown> });
      expect(bodies).toHaveLength(BROWSE_VARIETY);
      expect(new Set(bodies.map((b) => b.operationName))).toEqual(new Set([{ category: 'CategoryPage', search: 'SearchPage', facets: 'ShopFacets' }[kind]]));
      // Facets of a search: every one searches.
      if (kind === 'facets') expect(bodies.every((b) => typeof b.variables.query === 'string' && b.variables.query !== '')).toBe(true);
    }
    const again = writeShopMix(path.join(dir, 'again'), 50_000);
    expect(fs.readFileSync(again.sequence, 'utf8')).toBe(fs.readFileSync(files.sequence, 'utf8'));
    expect(fs.readFileSync(again.search, 'utf8')).toBe(fs.readFileSync(files.search, 'utf8'));
  });
});
