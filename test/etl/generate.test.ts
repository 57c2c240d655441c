// The legacy-format generator (src/etl/generate): deterministic bytes, the exact
// legacy file format, row counts that follow the scale, and every dirty-data
// quirk present in the files exactly as often as the manifest says. Everything
// is checked against the files on disk, never against the generator's own
// bookkeeping alone. No database needed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Manifest, generateCatalogue, readManifest } from '../../src/etl/generate/generate.ts';
import { FULL_SCALE_ROWS } from '../../src/etl/generate/plan.ts';
import { NAME_PARTS, vocabularyWords } from '../../src/etl/generate/vocabulary.ts';

type FileName = 'product' | 'features' | 'styles' | 'photos' | 'skus' | 'related';
const FILES: FileName[] = ['product', 'features', 'styles', 'photos', 'skus', 'related'];

/** The legacy headers, spelled out here (not imported) because they are the contract. */
const LEGACY_HEADERS: Record<FileName, string> = {
  product: 'id,name,slogan,description,category,default_price',
  features: 'id,product_id,feature,value',
  styles: 'id,productId,name,sale_price,original_price,default_style',
  photos: 'id,styleId,url,thumbnail_url',
  skus: 'id,styleId,size,quantity',
  related: 'id,current_product_id,related_product_id',
};

const TABLE_OF: Record<FileName, keyof Manifest['expected']> = {
  product: 'products', features: 'features', styles: 'styles', photos: 'photos', skus: 'skus', related: 'related',
};

// A double-quoted CSV text field, and a number that may carry stray whitespace.
const Q = '"(?:[^"]|"")*"';
const NUM = '(?:\\d+| \\d+|\\d+ )';
const LINE_PATTERNS: Record<FileName, RegExp> = {
  product: new RegExp(`^\\d+,${Q},${Q},${Q},${Q},${NUM}$`),
  features: new RegExp(`^\\d+,\\d+,${Q},(?:${Q}|null)$`),
  styles: new RegExp(`^\\d+,\\d+,${Q},(?:\\d+|null),${NUM},[01]$`),
  photos: /^\d+,\d+,"https:\/\/[^"\s]+","https:\/\/[^"\s]+"$/,
  skus: new RegExp(`^\\d+,\\d+,${Q},${NUM}$`),
  related: /^\d+,\d+,\d+$/,
};
// The two shapes of a photo row with an unterminated quote.
const PHOTO_OPEN_LAST = /^\d+,\d+,"https:\/\/[^"\s]+","https:\/\/[^"\s]+$/; // closing quote of the last field lost
const PHOTO_OPEN_MIDDLE = /^\d+,\d+,"https:\/\/[^"\s]+,"https:\/\/[^"\s]+"$/; // closing quote of the url lost

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-generate-test-'));
const dirs = {
  a: path.join(root, 'a-0.001-seed1'),
  b: path.join(root, 'b-0.001-seed1'),
  c: path.join(root, 'c-0.001-seed2'),
  d: path.join(root, 'd-0.002-seed1'),
  // Quirks are scaled counts (193 unterminated quotes and 64 id gaps at full
  // scale), so they only all show up from about scale 0.008 on.
  e: path.join(root, 'e-0.01-seed7'),
  // The first generator's repetitive text, still available as an option.
  r: path.join(root, 'r-0.001-seed1-repetitive'),
};
const manifests = {} as Record<keyof typeof dirs, Manifest>;

beforeAll(async () => {
  manifests.a = await generateCatalogue({ scale: 0.001, seed: 1, out: dirs.a, quiet: true });
  manifests.b = await generateCatalogue({ scale: 0.001, seed: 1, out: dirs.b, quiet: true });
  manifests.c = await generateCatalogue({ scale: 0.001, seed: 2, out: dirs.c, quiet: true });
  manifests.d = await generateCatalogue({ scale: 0.002, seed: 1, out: dirs.d, quiet: true });
  manifests.e = await generateCatalogue({ scale: 0.01, seed: 7, out: dirs.e, quiet: true });
  manifests.r = await generateCatalogue({ scale: 0.001, seed: 1, out: dirs.r, text: 'repetitive', quiet: true });
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const fileName = (file: FileName) => `${file}.csv`;

function sha256(dir: string, file: FileName): string {
  return crypto.createHash('sha256').update(fs.readFileSync(path.join(dir, fileName(file)))).digest('hex');
}

const cache = new Map<string, string[]>();
/** All lines of a file, header included, without the empty string after the final newline. */
function lines(dir: string, file: FileName): string[] {
  const key = path.join(dir, fileName(file));
  let result = cache.get(key);
  if (!result) {
    const text = fs.readFileSync(key, 'utf8');
    expect(text.endsWith('\n'), `${key} ends with a newline`).toBe(true);
    result = text.slice(0, -1).split('\n');
    cache.set(key, result);
  }
  return result;
}
const dataLines = (dir: string, file: FileName) => lines(dir, file).slice(1);

/** Leading integer fields of a data line (ids and parent ids), whitespace trimmed. */
function intField(line: string, index: number): number {
  let start = 0;
  for (let i = 0; i < index; i++) start = line.indexOf(',', start) + 1;
  const end = line.indexOf(',', start);
  return Number(line.slice(start, end === -1 ? undefined : end).trim());
}

/** The last comma-separated field (numbers only in these files), as written. */
function lastField(line: string): string {
  return line.slice(line.lastIndexOf(',') + 1);
}

function quirk(manifest: Manifest, file: FileName, name: string): number {
  return manifest.files[file].quirks[name] ?? 0;
}

function productCount(dir: string): number {
  return dataLines(dir, 'product').length;
}

const PRODUCT_LINE = /^(\d+),"((?:[^"]|"")*)","((?:[^"]|"")*)","((?:[^"]|"")*)","((?:[^"]|"")*)",\s*(\d+)\s*$/;

describe('determinism', () => {
  it('the same scale and seed give byte-identical files and the same manifest', () => {
    for (const file of FILES) expect(sha256(dirs.b, file), file).toBe(sha256(dirs.a, file));
    expect(manifests.b).toEqual(manifests.a);
    expect(fs.readFileSync(path.join(dirs.b, 'manifest.json'), 'utf8')).toBe(fs.readFileSync(path.join(dirs.a, 'manifest.json'), 'utf8'));
  });

  it('the text style changes the product file only', () => {
    for (const file of FILES) {
      if (file === 'product') expect(sha256(dirs.r, file)).not.toBe(sha256(dirs.a, file));
      else expect(sha256(dirs.r, file), file).toBe(sha256(dirs.a, file));
    }
    expect([manifests.a.text, manifests.r.text]).toEqual(['realistic', 'repetitive']);
  });

  it('a different seed gives different bytes in every file', () => {
    for (const file of FILES) expect(sha256(dirs.c, file), file).not.toBe(sha256(dirs.a, file));
  });

  it('leaves exactly the six files and the manifest (no partial files), and the manifest on disk is the one returned', () => {
    for (const [key, dir] of Object.entries(dirs)) {
      expect(fs.readdirSync(dir).sort()).toEqual([...FILES.map(fileName), 'manifest.json'].sort());
      expect(readManifest(dir)).toEqual(manifests[key as keyof typeof dirs]);
    }
  });
});

describe('legacy file format', () => {
  it('has the exact legacy header, with its column order, on the first line of each file', () => {
    for (const dir of Object.values(dirs)) {
      for (const file of FILES) expect(lines(dir, file)[0], `${dir} ${file}`).toBe(LEGACY_HEADERS[file]);
    }
    // The two orderings the legacy files are known for.
    expect(LEGACY_HEADERS.styles.indexOf('sale_price')).toBeLessThan(LEGACY_HEADERS.styles.indexOf('original_price'));
    expect(LEGACY_HEADERS.photos.indexOf('url')).toBeLessThan(LEGACY_HEADERS.photos.indexOf('thumbnail_url'));
  });

  it('quotes text fields and writes numbers bare, on every line', () => {
    for (const dir of [dirs.a, dirs.e]) {
      for (const file of FILES) {
        const bad = dataLines(dir, file).filter((line) => {
          if (LINE_PATTERNS[file].test(line)) return false;
          // The unterminated-quote rows are the one documented exception.
          return !(file === 'photos' && (PHOTO_OPEN_LAST.test(line) || PHOTO_OPEN_MIDDLE.test(line)));
        });
        expect(bad.slice(0, 3), `${dir} ${file}: lines not in legacy format`).toEqual([]);
      }
    }
    // A few hand-picked samples, so the patterns above cannot silently be too loose.
    const [product] = dataLines(dirs.a, 'product');
    expect(product).toMatch(/^1,"[^"]+","[^"]+","[^"]+","[^"]+",\d+$/);
    expect(dataLines(dirs.a, 'skus')[0]).toMatch(/^1,\d+,"[^"]+",\d+$/);
    expect(dataLines(dirs.a, 'related')[0]).toMatch(/^1,1,\d+$/);
    expect(dataLines(dirs.a, 'styles')[0]).toMatch(/^1,1,"[^"]+",(?:\d+|null),\d+,[01]$/);
  });

  it('writes null bare (never quoted) in sale_price and feature value, as often as the manifest says', () => {
    for (const dir of [dirs.a, dirs.e]) {
      const manifest = readManifest(dir)!;
      const styles = dataLines(dir, 'styles');
      const features = dataLines(dir, 'features');
      expect(styles.some((l) => l.includes('"null"')) || features.some((l) => l.includes('"null"'))).toBe(false);
      const nullSales = styles.filter((l) => l.split(',')[3] === 'null' && /,null,[^,]+,[01]$/.test(l)).length;
      const nullValues = features.filter((l) => l.endsWith(',null')).length;
      expect(nullSales).toBeGreaterThan(0);
      expect(nullValues).toBeGreaterThan(0);
      expect(nullSales).toBe(quirk(manifest, 'styles', 'nullSalePrice'));
      expect(nullValues).toBe(quirk(manifest, 'features', 'nullValue'));
      // Sales that do happen are below the original price.
      const sale = styles.find((l) => /^\d+,\d+,"[^"]*",\d+,/.test(l))!;
      const [, , , salePrice, originalPrice] = sale.split(',');
      expect(Number(salePrice)).toBeLessThan(Number(originalPrice));
    }
  });

  it('writes default_style as 0 or 1 only, and uses both', () => {
    const flags = new Set(dataLines(dirs.e, 'styles').map(lastField));
    expect([...flags].sort()).toEqual(['0', '1']);
  });
});

describe('row counts', () => {
  it('match round(full-scale rows x scale) and the manifest, for every file and scale', () => {
    for (const [key, dir] of Object.entries(dirs)) {
      const manifest = manifests[key as keyof typeof dirs];
      for (const file of FILES) {
        const rows = dataLines(dir, file).length;
        expect(rows, `${key} ${file}`).toBe(Math.round(FULL_SCALE_ROWS[file] * manifest.scale));
        expect(manifest.files[file].rows, `${key} ${file}`).toBe(rows);
      }
    }
  });

  it('doubles (about) when the scale doubles', () => {
    let small = 0;
    let large = 0;
    for (const file of FILES) {
      const a = dataLines(dirs.a, file).length;
      const d = dataLines(dirs.d, file).length;
      expect(d / a, file).toBeGreaterThan(1.99);
      expect(d / a, file).toBeLessThan(2.01);
      small += a;
      large += d;
    }
    expect(large / small).toBeCloseTo(2, 2);
  });

  it('ids are 1..n in order, except photo ids which are increasing with gaps', () => {
    for (const file of FILES) {
      const ids = dataLines(dirs.e, file).map((l) => intField(l, 0));
      if (file === 'photos') {
        expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
      } else {
        expect(ids.every((id, i) => id === i + 1), file).toBe(true);
      }
    }
  });
});

describe('dirty-data quirks (scale 0.01): present, and counted exactly in the manifest', () => {
  const m = () => manifests.e;
  const products = () => dataLines(dirs.e, 'product').length;
  const styles = () => dataLines(dirs.e, 'styles').length;

  it('photos.csv: lines with an unterminated quote (odd number of ") = at the end + in the middle', () => {
    const photos = dataLines(dirs.e, 'photos');
    const odd = photos.filter((l) => (l.match(/"/g) ?? []).length % 2 === 1);
    const atEnd = quirk(m(), 'photos', 'unterminatedAtEnd');
    const inMiddle = quirk(m(), 'photos', 'unterminatedInMiddle');
    expect(atEnd).toBeGreaterThan(0);
    expect(inMiddle).toBeGreaterThan(0);
    expect(odd.length).toBe(atEnd + inMiddle);
    expect(odd.filter((l) => PHOTO_OPEN_LAST.test(l)).length).toBe(atEnd);
    expect(odd.filter((l) => PHOTO_OPEN_MIDDLE.test(l)).length).toBe(inMiddle);
  });

  it('stray whitespace around numbers in product, styles and skus, in both forms (" 69" and "69 ")', () => {
    const leading = / \d+$/;
    const trailing = /\d+ $/;
    const productPrices = dataLines(dirs.e, 'product').map(lastField);
    // styles: original_price is the next-to-last field.
    const stylePrices = dataLines(dirs.e, 'styles').map((l) => l.split(',').at(-2) as string);
    const quantities = dataLines(dirs.e, 'skus').map(lastField);
    const padded = (values: string[]) => values.filter((v) => leading.test(v) || trailing.test(v));
    expect(padded(productPrices).length).toBe(quirk(m(), 'product', 'priceWhitespace'));
    expect(padded(stylePrices).length).toBe(quirk(m(), 'styles', 'priceWhitespace'));
    expect(padded(quantities).length).toBe(quirk(m(), 'skus', 'quantityWhitespace'));
    const all = [...productPrices, ...stylePrices, ...quantities];
    for (const count of [quirk(m(), 'product', 'priceWhitespace'), quirk(m(), 'styles', 'priceWhitespace'), quirk(m(), 'skus', 'quantityWhitespace')]) {
      expect(count).toBeGreaterThan(0);
    }
    expect(all.some((v) => leading.test(v))).toBe(true);
    expect(all.some((v) => trailing.test(v))).toBe(true);
    // The documented example shape: `"Accessories", 69`.
    expect(dataLines(dirs.e, 'product').some((l) => /", \d+$/.test(l))).toBe(true);
  });

  it('related.csv: rows with related_product_id 0, and rows pointing at missing products', () => {
    const related = dataLines(dirs.e, 'related');
    const zero = related.filter((l) => intField(l, 2) === 0).length;
    expect(zero).toBeGreaterThan(0);
    expect(zero).toBe(quirk(m(), 'related', 'zeroTarget'));
    const productTotal = products();
    const missingTarget = related.filter((l) => intField(l, 1) <= productTotal && intField(l, 2) > productTotal).length;
    expect(missingTarget).toBeGreaterThan(0);
    expect(missingTarget).toBe(quirk(m(), 'related', 'missingTarget'));
  });

  it('children whose parent does not exist, in every child file', () => {
    const orphans = (file: FileName, parentField: number, parents: number) =>
      dataLines(dirs.e, file).filter((l) => intField(l, parentField) > parents).length;
    const counts = {
      features: orphans('features', 1, products()),
      styles: orphans('styles', 1, products()),
      photos: orphans('photos', 1, styles()),
      skus: orphans('skus', 1, styles()),
      related: orphans('related', 1, products()),
    };
    for (const [file, count] of Object.entries(counts)) {
      expect(count, file).toBeGreaterThan(0);
      expect(count, file).toBe(quirk(m(), file as FileName, 'orphan'));
    }
  });

  it('photo ids have gaps: the max id is above the row count', () => {
    const ids = dataLines(dirs.e, 'photos').map((l) => intField(l, 0));
    const maxId = Math.max(...ids);
    expect(maxId).toBeGreaterThan(ids.length);
    expect(maxId).toBe(quirk(m(), 'photos', 'maxId'));
    let gaps = 0;
    for (let i = 1; i < ids.length; i++) gaps += ids[i]! - ids[i - 1]! - 1;
    gaps += ids[0]! - 1;
    expect(gaps).toBe(quirk(m(), 'photos', 'idGap'));
  });

  it('products without styles, and styles without photos or without skus', () => {
    const productTotal = products();
    const styleTotal = styles();
    const withStyles = new Set(dataLines(dirs.e, 'styles').map((l) => intField(l, 1)).filter((p) => p <= productTotal));
    const productsWithout = productTotal - withStyles.size;
    expect(productsWithout).toBeGreaterThan(0);
    expect(productsWithout).toBe(quirk(m(), 'styles', 'productsWithoutStyles'));

    // Real styles (parent product exists) that no row of photos.csv / skus.csv names.
    const realStyles = dataLines(dirs.e, 'styles').filter((l) => intField(l, 1) <= productTotal).map((l) => intField(l, 0));
    const childless = (file: FileName) => {
      const named = new Set(dataLines(dirs.e, file).map((l) => intField(l, 1)).filter((s) => s <= styleTotal));
      return realStyles.filter((s) => !named.has(s)).length;
    };
    expect(childless('photos')).toBeGreaterThan(0);
    expect(childless('photos')).toBe(quirk(m(), 'photos', 'stylesWithoutPhotos'));
    expect(childless('skus')).toBeGreaterThan(0);
    expect(childless('skus')).toBe(quirk(m(), 'skus', 'stylesWithoutSkus'));
  });

  it('related.csv has duplicate (current, related) pairs among its valid rows', () => {
    const productTotal = products();
    const seen = new Set<string>();
    let duplicates = 0;
    for (const line of dataLines(dirs.e, 'related')) {
      const current = intField(line, 1);
      const target = intField(line, 2);
      if (current > productTotal || target === 0 || target > productTotal) continue;
      const key = `${current}:${target}`;
      if (seen.has(key)) duplicates++;
      seen.add(key);
    }
    expect(quirk(m(), 'related', 'duplicatePair')).toBeGreaterThan(0);
    // The manifest counts the deliberate (repeated-previous) duplicates; chance can add a few more.
    expect(duplicates).toBeGreaterThanOrEqual(quirk(m(), 'related', 'duplicatePair'));
  });
});

describe('realistic values', () => {
  it('sizes include XS..XXL, "One Size" and half shoe sizes, and repeat within a style', () => {
    const skus = dataLines(dirs.e, 'skus');
    const sizes = new Set(skus.map((l) => (l.split(',')[2] as string).replaceAll('"', '')));
    for (const size of ['XS', 'S', 'M', 'L', 'XL', 'XXL', 'One Size', '7.5']) expect(sizes.has(size), size).toBe(true);
    // Two skus of one style with the same size (why legacy keys skus by id).
    const seen = new Set<string>();
    let repeated = 0;
    for (const line of skus) {
      const [, style, size] = line.split(',');
      const key = `${style}:${size}`;
      if (seen.has(key)) repeated++;
      seen.add(key);
    }
    expect(repeated).toBeGreaterThan(0);
  });

  it('photo urls and thumbnails are https URLs', () => {
    const photo = /^\d+,\d+,"([^"]*)","([^"]*)"$/;
    let checked = 0;
    const bad: string[] = [];
    for (const line of dataLines(dirs.e, 'photos')) {
      const match = photo.exec(line);
      if (!match) continue; // the unterminated-quote rows
      for (const u of [match[1] as string, match[2] as string]) {
        const parsed = URL.parse(u);
        if (parsed?.protocol !== 'https:' || parsed.hostname === '') bad.push(u);
      }
      checked++;
    }
    expect(bad.slice(0, 3)).toEqual([]);
    const broken = quirk(manifests.e, 'photos', 'unterminatedAtEnd') + quirk(manifests.e, 'photos', 'unterminatedInMiddle');
    expect(checked).toBe(dataLines(dirs.e, 'photos').length - broken);
  });

  it('product descriptions average at least 100 characters, and names and slogans are never empty', () => {
    const products = dataLines(dirs.e, 'product').map((l) => PRODUCT_LINE.exec(l));
    expect(products.every((p) => p !== null)).toBe(true);
    const descriptions = products.map((p) => p![4] as string);
    const average = descriptions.reduce((n, d) => n + d.length, 0) / descriptions.length;
    expect(average).toBeGreaterThanOrEqual(100);
    expect(products.every((p) => p![2]!.length > 0 && p![3]!.length > 0)).toBe(true);
  });

  it('categories come from a small fixed set, independent of scale and seed', () => {
    const categories = (dir: string) => {
      const counts = new Map<string, number>();
      for (const line of dataLines(dir, 'product')) {
        const category = PRODUCT_LINE.exec(line)![5] as string;
        counts.set(category, (counts.get(category) ?? 0) + 1);
      }
      return counts;
    };
    const large = categories(dirs.e);
    expect(large.size).toBeGreaterThanOrEqual(5);
    expect(large.size).toBeLessThanOrEqual(20);
    for (const [category, count] of large) {
      expect(category).toMatch(/^[A-Z][A-Za-z ]+$/);
      expect(count, category).toBeGreaterThan(productCount(dirs.e) / large.size / 3);
    }
    // Smaller catalogues with other seeds draw from the same set.
    for (const dir of [dirs.a, dirs.c, dirs.d]) {
      for (const category of categories(dir).keys()) expect(large.has(category), category).toBe(true);
    }
  });
});

/** Product text fields of a generated directory. */
function texts(dir: string): { name: string; slogan: string; description: string }[] {
  return dataLines(dir, 'product').map((line) => {
    const match = PRODUCT_LINE.exec(line)!;
    const unquote = (field: string) => field.replaceAll('""', '"');
    return { name: unquote(match[2]!), slogan: unquote(match[3]!), description: unquote(match[4]!) };
  });
}

/** Words as a reader splits them: letters, digits and apostrophes, lower case. */
const wordsOf = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}']+/u).filter(Boolean);

describe('realistic text (the default)', () => {
  it('descriptions are distinct per product at every scale (at least 95%)', () => {
    for (const dir of [dirs.a, dirs.c, dirs.d, dirs.e]) {
      const descriptions = texts(dir).map((t) => t.description);
      expect(new Set(descriptions).size / descriptions.length, dir).toBeGreaterThanOrEqual(0.95);
    }
    // The repetitive option is what the realistic text replaced: it fails the same bar.
    const repetitive = texts(dirs.r).map((t) => t.description);
    expect(new Set(repetitive).size / repetitive.length).toBeLessThan(0.95);
  });

  it('uses at least 3,000 distinct words, all from the exported vocabulary, with Zipf-like frequencies', () => {
    const counts = new Map<string, number>();
    let tokens = 0;
    for (const t of texts(dirs.e)) {
      for (const word of wordsOf(`${t.name} ${t.slogan} ${t.description}`)) {
        counts.set(word, (counts.get(word) ?? 0) + 1);
        tokens++;
      }
    }
    expect(counts.size).toBeGreaterThanOrEqual(3_000);
    // Every word comes from the vocabulary module (a judged query set can be built from it),
    // except the odd misspelling and a year.
    const vocabulary = vocabularyWords();
    const outside = [...counts.keys()].filter((w) => !vocabulary.has(w) && !/^\d{4}$/.test(w));
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.length / counts.size).toBeLessThan(0.1);
    const frequencies = [...counts.values()].sort((x, y) => y - x);
    // A few very common words...
    const top10 = frequencies.slice(0, 10).reduce((n, f) => n + f, 0);
    expect(top10 / tokens).toBeGreaterThan(0.1);
    // ...and a long tail: a fifth of the words come up at most three times in 10,000 products.
    expect(frequencies.filter((f) => f <= 3).length / counts.size).toBeGreaterThan(0.2);
    // log(frequency) against log(rank) is close to a straight line of slope about -1 (Zipf's law).
    const points = frequencies.slice(9, 2_000).map((f, i) => [Math.log(i + 10), Math.log(f)] as const);
    const n = points.length;
    const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / n;
    const mx = mean(points.map(([x]) => x));
    const my = mean(points.map(([, y]) => y));
    const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
    const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
    const syy = points.reduce((s, [, y]) => s + (y - my) ** 2, 0);
    const slope = sxy / sxx;
    expect(slope).toBeGreaterThan(-1.8);
    expect(slope).toBeLessThan(-0.8);
    expect((sxy * sxy) / (sxx * syy)).toBeGreaterThan(0.85);
    // The repetitive option's whole vocabulary is a few hundred words.
    const repetitiveWords = new Set(texts(dirs.r).flatMap((t) => wordsOf(`${t.name} ${t.slogan} ${t.description}`)));
    expect(repetitiveWords.size).toBeLessThan(400);
  });

  it('descriptions have sentences of varying length', () => {
    const lengths = new Map<number, number>();
    const perDescription = new Set<number>();
    for (const t of texts(dirs.e)) {
      const sentences = t.description.split(/(?<=[.!?:])\s+(?=[A-Z])/);
      perDescription.add(sentences.length);
      for (const s of sentences) {
        const n = wordsOf(s).length;
        lengths.set(n, (lengths.get(n) ?? 0) + 1);
      }
    }
    expect(Math.min(...lengths.keys())).toBeLessThanOrEqual(4);
    expect(Math.max(...lengths.keys())).toBeGreaterThanOrEqual(20);
    expect(lengths.size).toBeGreaterThanOrEqual(15);
    expect(perDescription.size).toBeGreaterThanOrEqual(4);
  });

  it('names: thousands of combinations of one to four words, the commonest repeated across products', () => {
    const names = texts(dirs.e).map((t) => t.name);
    const counts = new Map<string, number>();
    for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
    expect(counts.size).toBeGreaterThanOrEqual(3_000);
    const wordCounts = new Set(names.map((name) => name.split(' ').length));
    expect([...wordCounts].sort()).toEqual([1, 2, 3, 4]);
    const repeated = names.filter((name) => counts.get(name)! > 1).length;
    expect(repeated / names.length).toBeGreaterThan(0.05);
    expect(Math.max(...counts.values())).toBeGreaterThan(5);
    // Every name holds a category's noun (last, or before a model suffix), or is a brand alone (with an optional suffix).
    const nouns = new Set(Object.values(NAME_PARTS.nouns).flat());
    const brands = new Set(NAME_PARTS.brands);
    const shapeless = names.filter((name) => ![...nouns].some((noun) => ` ${name} `.includes(` ${noun} `)) && !brands.has(name.split(' ')[0]!));
    expect(shapeless.slice(0, 3)).toEqual([]);
  });

  it('slogans vary', () => {
    const slogans = texts(dirs.e).map((t) => t.slogan);
    expect(new Set(slogans).size / slogans.length).toBeGreaterThan(0.5);
  });

  it('a little non-ASCII (accents, the odd emoji) and the odd misspelling', () => {
    const all = texts(dirs.e);
    const nonAscii = all.filter((t) => /[^\x00-\x7f]/.test(`${t.name}${t.slogan}${t.description}`)).length;
    expect(nonAscii).toBeGreaterThan(0);
    expect(nonAscii / all.length).toBeLessThan(0.3);
    expect(all.some((t) => /\p{Extended_Pictographic}/u.test(`${t.slogan}${t.description}`))).toBe(true);
    expect(all.some((t) => /[éöåñü]/.test(t.name))).toBe(true);
    // A misspelt word: a word outside the vocabulary that is a vocabulary word with two letters swapped.
    const vocabulary = vocabularyWords();
    const swappedBack = (word: string) => {
      for (let i = 0; i + 1 < word.length; i++) {
        if (vocabulary.has(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2))) return true;
      }
      return false;
    };
    const misspelt = all.filter((t) => wordsOf(t.description).some((w) => !vocabulary.has(w) && swappedBack(w))).length;
    expect(misspelt).toBeGreaterThan(0);
    expect(misspelt / all.length).toBeLessThan(0.05);
  });
});

describe('manifest', () => {
  it('expected = rows minus the rejected quirks, per file, for every generated set', () => {
    for (const [key, manifest] of Object.entries(manifests)) {
      const rejected: Record<FileName, number> = {
        product: 0,
        features: quirk(manifest, 'features', 'orphan'),
        styles: quirk(manifest, 'styles', 'orphan'),
        photos: quirk(manifest, 'photos', 'orphan'), // unterminated quotes are all repaired
        skus: quirk(manifest, 'skus', 'orphan'),
        related: quirk(manifest, 'related', 'orphan') + quirk(manifest, 'related', 'zeroTarget') + quirk(manifest, 'related', 'missingTarget'),
      };
      for (const file of FILES) {
        const rows = manifest.files[file].rows;
        expect(manifest.expected[TABLE_OF[file]], `${key} ${file}`).toBe(rows - rejected[file]);
        expect(manifest.files[file].expectedLoaded, `${key} ${file}`).toBe(manifest.expected[TABLE_OF[file]]);
      }
      expect(manifest.scale).toBeGreaterThan(0);
      expect(manifest.generator).toBe('catalogue-api');
    }
  });

  it('records scale and seed', () => {
    expect([manifests.a.scale, manifests.a.seed]).toEqual([0.001, 1]);
    expect([manifests.c.scale, manifests.c.seed]).toEqual([0.001, 2]);
    expect(manifests.e.text).toBe('realistic');
    expect([manifests.e.scale, manifests.e.seed]).toEqual([0.01, 7]);
  });
});
