// Realistic values for one row, derived from (seed, id) alone.
export type { ProductText } from './text.ts';
import { Rng, Stream } from './random.ts';
import { type ProductText, realisticText, TEXT_SHAPES, type TextWriter, textWriter } from './text.ts';
import {
  ADJECTIVES, CATEGORIES, COLORS, DESCRIPTION_SENTENCES, FEATURES, NOUNS, SLOGAN_CLOSERS, SLOGAN_OPENERS,
} from './vocabulary.ts';

export interface ProductBasics {
  category: string;
  price: number;
  rng: Rng;
}

/** Category and price: what styles and skus also need, without the text. */
export function productBasics(seed: number, id: number): ProductBasics {
  const rng = new Rng(seed, Stream.product, id);
  const category = rng.pick(CATEGORIES);
  const price = rng.int(1, 20) * 5 + rng.pick([0, 0, 4, 9]) + 5;
  return { category, price, rng };
}

/**
 * Which text the generator writes: `realistic` (the default: text.ts);
 * `unrelated`, a second catalogue shape made different on purpose (names
 * that say nothing of the category, a larger vocabulary, steeper word
 * frequencies: TEXT_SHAPES in text.ts); or `repetitive`, the first
 * generator's few hundred words (2,170 distinct descriptions and about
 * 2,080 names at full scale), kept to compare with.
 */
export const TEXT_STYLES = ['realistic', 'unrelated', 'repetitive'] as const;
export type TextStyle = (typeof TEXT_STYLES)[number];

let unrelatedText: TextWriter | undefined;

export function productText(basics: ProductBasics, style: TextStyle = 'realistic'): ProductText {
  if (style === 'realistic') return realisticText(basics.rng, basics.category);
  if (style === 'unrelated') return (unrelatedText ??= textWriter(TEXT_SHAPES.unrelated))(basics.rng, basics.category);
  return repetitiveText(basics);
}

function repetitiveText(basics: ProductBasics): ProductText {
  const { rng, category } = basics;
  const name = `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS[category as (typeof CATEGORIES)[number]])}`;
  const slogan = `${rng.pick(SLOGAN_OPENERS)}${rng.pick(SLOGAN_CLOSERS)}`;
  const sentences = rng.int(2, 4);
  const parts: string[] = [];
  let start = rng.int(0, DESCRIPTION_SENTENCES.length - 1);
  for (let i = 0; i < sentences; i++) {
    parts.push(DESCRIPTION_SENTENCES[start % DESCRIPTION_SENTENCES.length] as string);
    start += rng.int(1, 5);
  }
  return { name, slogan, description: parts.join(' ') };
}

export function featureValues(rng: Rng, index: number, start: number): { feature: string; value: string | null } {
  const [feature, values] = FEATURES[(start + index) % FEATURES.length] as (typeof FEATURES)[number];
  const value = rng.pick(values);
  return { feature, value: value === '' ? null : value };
}

export function styleName(rng: Rng): string {
  const first = rng.pick(COLORS);
  if (rng.chance(0.55)) return first;
  let second = rng.pick(COLORS);
  if (second === first) second = 'Black';
  return `${first} & ${second}`;
}

const PHOTO_QUERY = '?ixlib=rb-1.2.1&ixid=eyJhcHBfaWQiOjEyMDd9&auto=format&fit=crop';

export function photoUrls(seed: number, id: number): { url: string; thumbnailUrl: string } {
  const rng = new Rng(seed, Stream.photo, id);
  const stamp = 1_400_000_000_000 + Math.floor(rng.next() * 200_000_000_000);
  const hex = (Math.floor(rng.next() * 0x1000000).toString(16) + Math.floor(rng.next() * 0x1000000).toString(16)).padStart(12, '0');
  const base = `https://images.unsplash.com/photo-${stamp}-${hex}${PHOTO_QUERY}`;
  return { url: `${base}&w=668&q=80`, thumbnailUrl: `${base}&w=300&q=80` };
}
