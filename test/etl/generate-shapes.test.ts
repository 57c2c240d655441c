// The generator's second catalogue shape (`--text unrelated`, TEXT_SHAPES in
// src/etl/generate/text.ts): names that say nothing of the category, a
// larger description vocabulary and steeper word frequencies than the
// default shape (at 10,000 products: a steeper skew shows fewer distinct
// words in a small sample), read from the files on disk. No database needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '../../src/etl/generate/generate.ts';
import { CATEGORIES, NAME_PARTS } from '../../src/etl/generate/vocabulary.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-shapes-test-'));
const dirs = { realistic: path.join(root, 'realistic'), unrelated: path.join(root, 'unrelated') };
const PRODUCT_LINE = /^(\d+),"((?:[^"]|"")*)","((?:[^"]|"")*)","((?:[^"]|"")*)","((?:[^"]|"")*)",\s*(\d+)\s*$/;

beforeAll(async () => {
  await generateCatalogue({ scale: 0.01, seed: 1, out: dirs.realistic, quiet: true });
  await generateCatalogue({ scale: 0.01, seed: 1, out: dirs.unrelated, text: 'unrelated', quiet: true });
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The product file's shape: how many names hold one of their own category's nouns, and the descriptions' word counts. */
function shapeOf(dir: string) {
  const rows = fs.readFileSync(path.join(dir, 'product.csv'), 'utf8').trimEnd().split('\n').slice(1).map((line) => PRODUCT_LINE.exec(line)!);
  let ownNoun = 0;
  const words = new Map<string, number>();
  let total = 0;
  for (const [, , name, , description, category] of rows) {
    const nouns = NAME_PARTS.nouns[category as (typeof CATEGORIES)[number]];
    if (nouns.some((noun) => name!.endsWith(noun) || name!.includes(`${noun} `))) ownNoun++;
    for (const word of description!.toLowerCase().split(/[^\p{L}]+/u)) {
      if (word.length <= 3) continue;
      words.set(word, (words.get(word) ?? 0) + 1);
      total++;
    }
  }
  const counts = [...words.values()].sort((a, b) => b - a);
  return { products: rows.length, ownNoun: ownNoun / rows.length, vocabulary: words.size, top50: counts.slice(0, 50).reduce((a, b) => a + b, 0) / total };
}

describe('the unrelated catalogue shape', () => {
  it('names products from every category\'s nouns, so a name says nothing of its category', () => {
    const [realistic, unrelated] = [shapeOf(dirs.realistic), shapeOf(dirs.unrelated)];
    expect(unrelated.products).toBe(realistic.products);
    expect(realistic.ownNoun).toBeGreaterThan(0.9);
    // About one in sixteen by chance (a noun shared by two categories a little more).
    expect(unrelated.ownNoun).toBeLessThan(0.15);
  });

  it('has a larger vocabulary with steeper word frequencies', () => {
    const [realistic, unrelated] = [shapeOf(dirs.realistic), shapeOf(dirs.unrelated)];
    expect(unrelated.vocabulary).toBeGreaterThan(1.25 * realistic.vocabulary);
    expect(unrelated.top50).toBeGreaterThan(realistic.top50 + 0.05);
  });

  it('changes the product file only, and says so in the manifest', () => {
    for (const file of ['features', 'styles', 'photos', 'skus', 'related']) {
      expect(fs.readFileSync(path.join(dirs.unrelated, `${file}.csv`)).equals(fs.readFileSync(path.join(dirs.realistic, `${file}.csv`))), file).toBe(true);
    }
    expect(JSON.parse(fs.readFileSync(path.join(dirs.unrelated, 'manifest.json'), 'utf8')).text).toBe('unrelated');
  });
});
