// The product page as PostGraphile v5 serves it (amber preset with
// @graphile/simplify-inflection, the base tables), beside ours
// (ProductPageWithRelatedIds of k6/operations.graphql): the same fields, and
// both answers brought to one shape so that npm run bench:postgraphile can
// check they carry the same values before it measures them. Also the
// figures of that bench: medians, ratios, and a CPU profile's top functions.
import { median } from './median.ts';

/**
 * The page from PostGraphile: the product with its features, its styles with
 * photos and skus, and its related products' ids, each list in id order (as
 * our read model builds them: prisma/functions/refresh_product_*_documents.sql).
 * Amber names a table's primary key `rowId` (`id` is the global node id) and
 * its root field takes it; `skus` is pluralised again to `skuses`.
 */
export const POSTGRAPHILE_PAGE_QUERY = `query ProductPage($id: Int!) {
  product(rowId: $id) {
    rowId
    name
    slogan
    description
    category
    defaultPrice
    features(orderBy: PRIMARY_KEY_ASC) { nodes { feature value } }
    styles(orderBy: PRIMARY_KEY_ASC) {
      nodes {
        rowId
        name
        originalPrice
        salePrice
        isDefault
        photos(orderBy: PRIMARY_KEY_ASC) { nodes { url thumbnailUrl } }
        skus: skuses(orderBy: PRIMARY_KEY_ASC) { nodes { rowId size quantity } }
      }
    }
    relatedsByCurrentProductId(orderBy: PRIMARY_KEY_ASC) { nodes { relatedProductId } }
  }
}`;

/** The page's values, whoever answered: ids as strings, prices as numbers. */
export interface PageValues {
  id: string;
  name: string;
  slogan: string;
  description: string;
  category: string;
  defaultPrice: number;
  features: { feature: string; value: string | null }[];
  styles: {
    id: string; name: string; originalPrice: number; salePrice: number | null; isDefault: boolean;
    photos: { url: string; thumbnailUrl: string }[];
    skus: { id: string; size: string; quantity: number }[];
  }[];
  relatedIds: string[];
}

type Json = Record<string, any>;
const price = (value: unknown): number => Number(value);
const priceOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** Our answer's `data.product` (ProductPageWithRelatedIds), or null. */
export function ourPage(product: Json | null): PageValues | null {
  if (product === null) return null;
  return {
    id: String(product.id), name: product.name, slogan: product.slogan, description: product.description, category: product.category,
    defaultPrice: price(product.defaultPrice),
    features: (product.features as Json[]).map((f) => ({ feature: f.feature, value: f.value ?? null })),
    styles: (product.styles as Json[]).map((s) => ({
      id: String(s.id), name: s.name, originalPrice: price(s.originalPrice), salePrice: priceOrNull(s.salePrice), isDefault: s.isDefault,
      photos: (s.photos as Json[]).map((p) => ({ url: p.url, thumbnailUrl: p.thumbnailUrl })),
      skus: (s.skus as Json[]).map((k) => ({ id: String(k.id), size: k.size, quantity: k.quantity })),
    })),
    relatedIds: (product.relatedIds as unknown[]).map(String),
  };
}

/** PostGraphile's answer's `data.product` (POSTGRAPHILE_PAGE_QUERY), or null. */
export function postgraphilePage(product: Json | null): PageValues | null {
  if (product === null) return null;
  return {
    id: String(product.rowId), name: product.name, slogan: product.slogan, description: product.description, category: product.category,
    defaultPrice: price(product.defaultPrice),
    features: (product.features.nodes as Json[]).map((f) => ({ feature: f.feature, value: f.value ?? null })),
    styles: (product.styles.nodes as Json[]).map((s) => ({
      id: String(s.rowId), name: s.name, originalPrice: price(s.originalPrice), salePrice: priceOrNull(s.salePrice), isDefault: s.isDefault,
      photos: (s.photos.nodes as Json[]).map((p) => ({ url: p.url, thumbnailUrl: p.thumbnailUrl })),
      skus: (s.skus.nodes as Json[]).map((k) => ({ id: String(k.rowId), size: k.size, quantity: k.quantity })),
    })),
    relatedIds: (product.relatedsByCurrentProductId.nodes as Json[]).map((r) => String(r.relatedProductId)),
  };
}

/** Where two pages first differ (a path such as `styles[1].skus[0].quantity`), or undefined when they hold the same values. */
export function firstDifference(a: unknown, b: unknown, at = ''): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return at || '(the page)';
  if (Array.isArray(a) !== Array.isArray(b)) return at || '(the page)';
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${at}.length`;
    for (let i = 0; i < a.length; i++) {
      const found = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Json)[key], (b as Json)[key], at ? `${at}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/**
 * A ratio of two targets measured in interleaved runs: of their medians, and
 * its range over the runs paired by their order (run i of one against run i
 * of the other: the same minutes of a noisy machine).
 */
export function ratioOf(numerator: readonly number[], denominator: readonly number[]): { median: number; min: number; max: number } {
  const paired = numerator.slice(0, denominator.length).map((n, i) => n / denominator[i]!);
  return { median: median(numerator) / median(denominator), min: Math.min(...paired), max: Math.max(...paired) };
}

/** A V8 CPU profile (`node --cpu-prof`'s .cpuprofile). */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** function (file:line), the file shortened to its package or the project's path. */
  name: string;
  /** Share of the window's samples. */
  share: number;
}

/** A file URL shortened: node_modules/<package>/… to the package, this project's files to their path in it. */
export function shortFile(url: string): string {
  if (url === '') return '';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.search(/\/(src|bench)\//);
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

/**
 * The functions with the most self time in a profile, over the samples taken
 * within [from, to] µs after its start (the measured run, not the start-up
 * or the warm-up), and the share of them by package (or project folder);
 * shares are of the busy samples (`idle`: the share of the window idle).
 */
export function topSelfTime(profile: CpuProfile, window: { from: number; to: number }, count = 15): { functions: SelfTime[]; packages: SelfTime[]; samples: number; idle: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const perFunction = new Map<string, number>();
  const perPackage = new Map<string, number>();
  let time = 0;
  let samples = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    if (time < window.from || time > window.to) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    // Waiting (for Postgres, for the next request) is not CPU: shares are of the busy samples.
    if (node.callFrame.functionName === '(idle)') {
      idle++;
      continue;
    }
    samples++;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = shortFile(url);
    // V8's own entries ((garbage collector), (program)) keep their names; other functions without a file are native code.
    const name = file ? `${functionName || '(anonymous)'} (${file}:${lineNumber + 1})` : /^\(.*\)$/.test(functionName) ? functionName : `${functionName || '(anonymous)'} (native)`;
    perFunction.set(name, (perFunction.get(name) ?? 0) + 1);
    const where = file === '' ? (/^\(.*\)$/.test(functionName) ? functionName : '(native: V8 and libuv)') : /^(src|bench)\//.test(file) ? file.split('/').slice(0, 2).join('/') : file.startsWith('node:') ? 'node: (built-in modules)' : file;
    perPackage.set(where, (perPackage.get(where) ?? 0) + 1);
  }
  const top = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, n]) => ({ name, share: samples > 0 ? n / samples : 0 }));
  return { functions: top(perFunction), packages: top(perPackage), samples, idle: samples + idle > 0 ? idle / (samples + idle) : 0 };
}
