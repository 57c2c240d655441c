// Realistic product text: names from thousands of combinations (some
// repeated, as real catalogues repeat them), varied slogans, and
// descriptions distinct per product, of sentences of varying length built
// from the vocabulary (vocabulary.ts) with Zipf-like word frequencies, a
// little non-ASCII and the odd misspelling. Everything is drawn from the
// product's own Rng, so a product's text depends on (seed, id) alone.
import { type Rng, Zipf } from './random.ts';
import {
  BRANDS, CATEGORIES, DESCRIPTION_SENTENCES, DOES, DOING, EMOJI, FAMILY_NAMES, FIRST_NAMES, HOW, MATERIALS, NAME_PARTS, PLACES,
  PLURAL_THINGS, QUALITIES, SENTENCE_TEMPLATES, SLOGAN_CLOSERS, SLOGAN_OPENERS, SLOGAN_TEMPLATES, SLOGAN_VERBS, THINGS, TRADE_NAMES,
} from './vocabulary.ts';

type Category = (typeof CATEGORIES)[number];

/** A list drawn from with Zipf-like weights (its order is its frequency order). */
class Drawn<T = string> {
  private readonly zipf: Zipf;
  private readonly items: readonly T[];
  constructor(items: readonly T[], exponent = 1) {
    this.items = items;
    this.zipf = new Zipf(items.length, exponent);
  }
  pick(rng: Rng): T {
    return this.items[this.zipf.index(rng)] as T;
  }
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);


const CLASSES: Record<string, Drawn> = {
  q: new Drawn(QUALITIES, 1.25),
  t: new Drawn(THINGS, 0.85),
  ts: new Drawn(PLURAL_THINGS, 0.85),
  d: new Drawn(DOES, 1.1),
  h: new Drawn(HOW, 1.1),
  g: new Drawn(DOING),
  m: new Drawn(MATERIALS),
  tn: new Drawn(TRADE_NAMES, 0.85),
  p: new Drawn(PLACES, 0.85),
  b: new Drawn(BRANDS, 0.85),
  first: new Drawn(FIRST_NAMES),
  family: new Drawn(FAMILY_NAMES, 0.85),
  v: new Drawn(SLOGAN_VERBS.map((v) => v.toLowerCase())),
  /** Slogan closers; two hold a slot of their own, expanded after the template. */
  c: new Drawn([...SLOGAN_CLOSERS, ' in {m}', ', {h}'], 0.9),
};

/** What a slot of a template becomes, for one product. */
type Slot = (rng: Rng, product: ProductContext) => string;
interface ProductContext { noun: string; category: string }

function slot(name: string): Slot {
  const upper = name !== name.toLowerCase();
  const key = name.toLowerCase();
  let base: Slot;
  if (key === 'n') base = (rng) => `${CLASSES.first!.pick(rng)} ${CLASSES.family!.pick(rng)}`;
  else if (key === 'name') base = (_rng, product) => product.noun.toLowerCase();
  else if (key === 'cat') base = (_rng, product) => product.category.toLowerCase();
  else if (key === 'year') base = (rng) => String(rng.int(1890, 2021));
  else {
    const drawn = CLASSES[key];
    if (!drawn) throw new Error(`unknown template slot {${name}}`);
    base = (rng) => drawn.pick(rng);
  }
  return upper ? (rng, product) => capitalise(base(rng, product)) : base;
}

/** A template compiled once: literal text and slots in turn. */
type Template = readonly (string | Slot)[];

function compile(text: string): Template {
  return text.split(/(\{[A-Za-z]+\})/).filter(Boolean).map((part) => (part.startsWith('{') ? slot(part.slice(1, -1)) : part));
}

function render(template: Template, rng: Rng, product: ProductContext): string {
  let out = '';
  for (const part of template) out += typeof part === 'string' ? part : part(rng, product);
  return out;
}

/** Description sentences, from three words to thirty; drawn with Zipf-like weights too (commonest first). */
const SENTENCES = new Drawn(SENTENCE_TEMPLATES.map(compile), 0.6);

const SLOGANS = new Drawn(SLOGAN_TEMPLATES.map((text) => compile(text.replace('{verb}', '{V}').replace('{closer}', '{c}'))), 0.8);

/** Closers may themselves hold a slot; expanded after the template. */
function expandClosers(text: string, rng: Rng): string {
  return text.replace(' in {m}', () => ` in ${CLASSES.m!.pick(rng)}`).replace(', {h}', () => `, ${CLASSES.h!.pick(rng)}`);
}

const nouns = Object.fromEntries(CATEGORIES.map((c) => [c, new Drawn(NAME_PARTS.nouns[c], 1.1)])) as Record<Category, Drawn>;
const modifiers = new Drawn(NAME_PARTS.modifiers, 1);
const brands = new Drawn(NAME_PARTS.brands, 0.85);
const suffixes = new Drawn(NAME_PARTS.suffixes, 1);

/** A name of one to four words: [brand] [modifier] [modifier] noun [suffix], or a coined model name alone. */
function realisticName(rng: Rng, category: Category): { name: string; noun: string } {
  const noun = nouns[category].pick(rng);
  const roll = rng.next();
  let parts: string[];
  if (roll < 0.03) parts = [noun];
  else if (roll < 0.06) parts = [brands.pick(rng), ...(rng.chance(0.5) ? [suffixes.pick(rng)] : [])];
  else if (roll < 0.5) parts = [modifiers.pick(rng), noun];
  else if (roll < 0.7) parts = [brands.pick(rng), modifiers.pick(rng), noun];
  else if (roll < 0.85) parts = [modifiers.pick(rng), modifiers.pick(rng), noun];
  else if (roll < 0.95) parts = [brands.pick(rng), modifiers.pick(rng), modifiers.pick(rng), noun];
  else parts = [brands.pick(rng), modifiers.pick(rng), noun, suffixes.pick(rng)];
  // Some modifiers and nouns are two words: drop the leading parts past four words.
  const words = (list: string[]) => list.reduce((n, p) => n + p.split(' ').length, 0);
  while (parts.length > 1 && words(parts) > 4) parts.shift();
  if (words(parts) > 4) parts = [noun];
  return { name: parts.join(' '), noun };
}

/** Swaps two adjacent letters inside one longer word (a typist's slip), if the text has such a word. */
function misspell(text: string, rng: Rng): string {
  const words = [...text.matchAll(/\b[a-z]{6,}\b/g)];
  if (words.length === 0) return text;
  const match = words[rng.int(0, words.length - 1)]!;
  const word = match[0];
  const at = rng.int(1, word.length - 3);
  const slipped = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  return text.slice(0, match.index) + slipped + text.slice(match.index + word.length);
}

/** Probabilities of the odd things real copy has. */
export const TEXT_QUIRKS = { descriptionMisspelt: 0.02, sloganMisspelt: 0.005, descriptionEmoji: 0.005, sloganEmoji: 0.02, legacySentence: 0.05 } as const;

export interface ProductText { name: string; slogan: string; description: string }

export function realisticText(rng: Rng, category: string): ProductText {
  const { name, noun } = realisticName(rng, category as Category);
  const product = { noun, category };

  let slogan = rng.chance(0.12)
    ? `${rng.pick(SLOGAN_OPENERS)}${rng.pick(SLOGAN_CLOSERS)}`
    : capitalise(expandClosers(render(SLOGANS.pick(rng), rng, product), rng));
  if (rng.chance(TEXT_QUIRKS.sloganMisspelt)) slogan = misspell(slogan, rng);
  if (rng.chance(TEXT_QUIRKS.sloganEmoji)) slogan += ` ${rng.pick(EMOJI)}`;

  // 1 to 7 sentences, 3 and 4 the commonest.
  const count = [1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7][rng.int(0, 12)] as number;
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) {
    sentences.push(rng.chance(TEXT_QUIRKS.legacySentence) ? rng.pick(DESCRIPTION_SENTENCES) : capitalise(render(SENTENCES.pick(rng), rng, product)));
  }
  let description = sentences.join(' ');
  if (rng.chance(TEXT_QUIRKS.descriptionMisspelt)) description = misspell(description, rng);
  if (rng.chance(TEXT_QUIRKS.descriptionEmoji)) description += ` ${rng.pick(EMOJI)}`;
  return { name, slogan, description };
}
