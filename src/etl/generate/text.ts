// Realistic product text: names from thousands of combinations (some
// repeated, as real catalogues repeat them), varied slogans, and
// descriptions distinct per product, of sentences of varying length built
// from the vocabulary (vocabulary.ts) with Zipf-like word frequencies, a
// little non-ASCII and the odd misspelling. Everything is drawn from the
// product's own Rng, so a product's text depends on (seed, id) alone.
import { type Rng, Zipf } from './random.ts';
import {
  BRANDS, CATEGORIES, DESCRIPTION_SENTENCES, DOES, DOING, EMOJI, EXTRA_QUALITIES, EXTRA_THINGS, FAMILY_NAMES, FIRST_NAMES, HOW, MATERIALS, NAME_PARTS, PLACES,
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


/**
 * How a catalogue's text is drawn: `realistic` (the default) names each
 * product from its category's nouns; `unrelated` (a second shape, made
 * different on purpose) names products from every category's nouns, so a
 * name says nothing of the category, adds coined words to the description
 * vocabulary (another vocabulary size) and steepens every list's Zipf
 * skew (other word frequencies: the commonest words commoner, a longer
 * tail of rare ones).
 */
export interface TextShape {
  /** Multiplies every list's Zipf exponent. */
  skew: number;
  /** Coined nouns and qualities added to the lists descriptions and slogans draw from. */
  extraThings: readonly string[];
  extraQualities: readonly string[];
  /** Names drawn from every category's nouns, not the product's own. */
  namesOfAnyCategory: boolean;
}

export const TEXT_SHAPES = {
  realistic: { skew: 1, extraThings: [], extraQualities: [], namesOfAnyCategory: false },
  unrelated: { skew: 1.3, extraThings: EXTRA_THINGS, extraQualities: EXTRA_QUALITIES, namesOfAnyCategory: true },
} as const satisfies Record<string, TextShape>;

/** The lists template slots draw from, by slot name. */
function slotClasses(shape: TextShape): Record<string, Drawn> {
  const k = shape.skew;
  return {
    q: new Drawn([...QUALITIES, ...shape.extraQualities], 1.25 * k),
    t: new Drawn([...THINGS, ...shape.extraThings], 0.85 * k),
    ts: new Drawn(PLURAL_THINGS, 0.85 * k),
    d: new Drawn(DOES, 1.1 * k),
    h: new Drawn(HOW, 1.1 * k),
    g: new Drawn(DOING, k),
    m: new Drawn(MATERIALS, k),
    tn: new Drawn(TRADE_NAMES, 0.85 * k),
    p: new Drawn(PLACES, 0.85 * k),
    b: new Drawn(BRANDS, 0.85 * k),
    first: new Drawn(FIRST_NAMES, k),
    family: new Drawn(FAMILY_NAMES, 0.85 * k),
    v: new Drawn(SLOGAN_VERBS.map((v) => v.toLowerCase()), k),
    /** Slogan closers; two hold a slot of their own, expanded after the template. */
    c: new Drawn([...SLOGAN_CLOSERS, ' in {m}', ', {h}'], 0.9 * k),
  };
}

/** What a slot of a template becomes, for one product. */
type Slot = (rng: Rng, product: ProductContext) => string;
interface ProductContext { noun: string; category: string }

function slot(name: string, classes: Record<string, Drawn>): Slot {
  const upper = name !== name.toLowerCase();
  const key = name.toLowerCase();
  let base: Slot;
  if (key === 'n') base = (rng) => `${classes.first!.pick(rng)} ${classes.family!.pick(rng)}`;
  else if (key === 'name') base = (_rng, product) => product.noun.toLowerCase();
  else if (key === 'cat') base = (_rng, product) => product.category.toLowerCase();
  else if (key === 'year') base = (rng) => String(rng.int(1890, 2021));
  else {
    const drawn = classes[key];
    if (!drawn) throw new Error(`unknown template slot {${name}}`);
    base = (rng) => drawn.pick(rng);
  }
  return upper ? (rng, product) => capitalise(base(rng, product)) : base;
}

/** A template compiled once: literal text and slots in turn. */
type Template = readonly (string | Slot)[];

function compile(text: string, classes: Record<string, Drawn>): Template {
  return text.split(/(\{[A-Za-z]+\})/).filter(Boolean).map((part) => (part.startsWith('{') ? slot(part.slice(1, -1), classes) : part));
}

function render(template: Template, rng: Rng, product: ProductContext): string {
  let out = '';
  for (const part of template) out += typeof part === 'string' ? part : part(rng, product);
  return out;
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

/** How a shape draws names: a name of one to four words, [brand] [modifier] [modifier] noun [suffix], or a coined model name alone. */
function namer(shape: TextShape): (rng: Rng, category: Category) => { name: string; noun: string } {
  const k = shape.skew;
  const nouns = Object.fromEntries(CATEGORIES.map((c) => [c, new Drawn(NAME_PARTS.nouns[c], 1.1 * k)])) as Record<Category, Drawn>;
  const anyNoun = new Drawn(CATEGORIES.flatMap((c) => NAME_PARTS.nouns[c]), 1.1 * k);
  const modifiers = new Drawn(NAME_PARTS.modifiers, k);
  const brands = new Drawn(NAME_PARTS.brands, 0.85 * k);
  const suffixes = new Drawn(NAME_PARTS.suffixes, k);
  return (rng, category) => {
    const noun = (shape.namesOfAnyCategory ? anyNoun : nouns[category]).pick(rng);
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
  };
}

/** A product's text in a shape, from its own Rng. */
export type TextWriter = (rng: Rng, category: string) => ProductText;

export function textWriter(shape: TextShape): TextWriter {
  const classes = slotClasses(shape);
  const name = namer(shape);
  /** Description sentences, from three words to thirty; drawn with Zipf-like weights too (commonest first). */
  const sentences = new Drawn(SENTENCE_TEMPLATES.map((text) => compile(text, classes)), 0.6 * shape.skew);
  const slogans = new Drawn(SLOGAN_TEMPLATES.map((text) => compile(text.replace('{verb}', '{V}').replace('{closer}', '{c}'), classes)), 0.8 * shape.skew);
  /** Closers may themselves hold a slot; expanded after the template. */
  const expandClosers = (text: string, rng: Rng) =>
    text.replace(' in {m}', () => ` in ${classes.m!.pick(rng)}`).replace(', {h}', () => `, ${classes.h!.pick(rng)}`);
  return (rng, category) => {
    const { name: productName, noun } = name(rng, category as Category);
    const product = { noun, category };

    let slogan = rng.chance(0.12)
      ? `${rng.pick(SLOGAN_OPENERS)}${rng.pick(SLOGAN_CLOSERS)}`
      : capitalise(expandClosers(render(slogans.pick(rng), rng, product), rng));
    if (rng.chance(TEXT_QUIRKS.sloganMisspelt)) slogan = misspell(slogan, rng);
    if (rng.chance(TEXT_QUIRKS.sloganEmoji)) slogan += ` ${rng.pick(EMOJI)}`;

    // 1 to 7 sentences, 3 and 4 the commonest.
    const count = [1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 6, 7][rng.int(0, 12)] as number;
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      parts.push(rng.chance(TEXT_QUIRKS.legacySentence) ? rng.pick(DESCRIPTION_SENTENCES) : capitalise(render(sentences.pick(rng), rng, product)));
    }
    let description = parts.join(' ');
    if (rng.chance(TEXT_QUIRKS.descriptionMisspelt)) description = misspell(description, rng);
    if (rng.chance(TEXT_QUIRKS.descriptionEmoji)) description += ` ${rng.pick(EMOJI)}`;
    return { name: productName, slogan, description };
  };
}

/** The default shape's text. */
export const realisticText: TextWriter = textWriter(TEXT_SHAPES.realistic);
