// Words the generator builds realistic catalogue values from.

export const CATEGORIES = [
  'Jackets', 'Accessories', 'Pants', 'Kicks', 'Dress Shoes', 'Heels', 'Shorts', 'Boots',
  'Sweatpants', 'Shirts', 'Tank Tops', 'Coats', 'Socks', 'Sandals', 'Hoodies', 'Slacks',
] as const;

export const NOUNS: Record<(typeof CATEGORIES)[number], readonly string[]> = {
  Jackets: ['Jacket', 'Onesie', 'Windbreaker', 'Bomber', 'Parka', 'Blazer'],
  Accessories: ['Sunglasses', 'Cap', 'Beanie', 'Scarf', 'Belt', 'Backpack', 'Watch'],
  Pants: ['Pants', 'Joggers', 'Chinos', 'Cargos', 'Jeans'],
  Kicks: ['Sneakers', 'Kicks', 'Trainers', 'High-Tops', 'Runners'],
  'Dress Shoes': ['Oxfords', 'Loafers', 'Brogues', 'Derbies'],
  Heels: ['Heels', 'Pumps', 'Stilettos', 'Wedges'],
  Shorts: ['Shorts', 'Trunks', 'Board Shorts'],
  Boots: ['Boots', 'Chelsea Boots', 'Hikers', 'Combat Boots'],
  Sweatpants: ['Sweatpants', 'Lounge Pants', 'Trackies'],
  Shirts: ['Shirt', 'Tee', 'Henley', 'Polo', 'Button-Down'],
  'Tank Tops': ['Tank Top', 'Muscle Tee', 'Camisole'],
  Coats: ['Coat', 'Trench', 'Overcoat', 'Peacoat'],
  Socks: ['Socks', 'Crew Socks', 'Ankle Socks'],
  Sandals: ['Sandals', 'Slides', 'Flip Flops'],
  Hoodies: ['Hoodie', 'Zip Hoodie', 'Pullover'],
  Slacks: ['Slacks', 'Trousers', 'Dress Pants'],
};


/** More of each category's nouns, for realistic names (after the legacy ones). */
export const MORE_NOUNS: Record<(typeof CATEGORIES)[number], readonly string[]> = {
  Jackets: ['Shell', 'Anorak', 'Puffer', 'Gilet', 'Shacket', 'Softshell', 'Rain Jacket', 'Field Jacket'],
  Accessories: ['Tote', 'Wallet', 'Gloves', 'Bucket Hat', 'Headband', 'Bandana', 'Duffel', 'Keyring'],
  Pants: ['Trousers', 'Culottes', 'Carpenter Pants', 'Leggings', 'Flares', 'Overalls'],
  Kicks: ['Skate Shoes', 'Court Shoes', 'Slip-Ons', 'Low-Tops', 'Ones', 'Plimsolls'],
  'Dress Shoes': ['Monk Straps', 'Wingtips', 'Mules', 'Ballet Flats', 'Mary Janes'],
  Heels: ['Slingbacks', 'Kitten Heels', 'Block Heels', 'Platforms', 'Espadrilles'],
  Shorts: ['Cargo Shorts', 'Swim Shorts', 'Bermudas', 'Running Shorts', 'Cutoffs'],
  Boots: ['Ankle Boots', 'Work Boots', 'Rain Boots', 'Snow Boots', 'Desert Boots', 'Wellies'],
  Sweatpants: ['Joggers', 'Track Pants', 'Sweats', 'Fleece Pants'],
  Shirts: ['Oxford Shirt', 'Flannel', 'Overshirt', 'Blouse', 'Long Sleeve', 'Rugby Shirt', 'Tunic'],
  'Tank Tops': ['Singlet', 'Racerback', 'Crop Top', 'Vest Top', 'Halter'],
  Coats: ['Duffle Coat', 'Car Coat', 'Raincoat', 'Topcoat', 'Cape', 'Mac'],
  Socks: ['Hiking Socks', 'Wool Socks', 'No-Show Socks', 'Knee Socks', 'Liners'],
  Sandals: ['Huaraches', 'Sliders', 'Gladiators', 'Clogs', 'Trail Sandals'],
  Hoodies: ['Sweatshirt', 'Crewneck', 'Half-Zip', 'Fleece', 'Quarter-Zip'],
  Slacks: ['Pleated Trousers', 'Cigarette Pants', 'Wide Legs', 'Suit Trousers'],
};

export const ADJECTIVES = [
  'Camo', 'Bright Future', 'Morning Joy', 'Slacker\'s', 'Heir Force', 'Pumped Up', 'Blues Suede',
  'YEasy', 'Summer', 'Infinity', 'Alberto', 'Midnight', 'Coastal', 'Urban', 'Vintage', 'Classic',
  'Retro', 'Everyday', 'Weekend', 'Trail', 'Cozy', 'Featherlight', 'Rugged', 'Sleek', 'Bold',
  'Quiet Storm', 'Golden Hour', 'Northern', 'Desert', 'Electric', 'Velvet', 'Cloud Nine',
];

export const SLOGAN_OPENERS = [
  'Blend in to your crowd', 'You\'ve got to wear shades', 'Make yourself a morning person',
  'Comfortable for everything, or nothing', 'A summer staple', 'Walk the line', 'Built to last',
  'Step up your game', 'Stand out without trying', 'Dress for the day you want',
  'For the long way home', 'Made for moving', 'Light on your feet', 'Keep it simple',
];

export const SLOGAN_CLOSERS = [
  '', ' and love every minute', ' all year round', ' in style', ' without the fuss',
  ', rain or shine', ' from dawn to dusk', ' wherever you go',
];

export const DESCRIPTION_SENTENCES = [
  'The So Fatigues will wake you up and fit you in.',
  'This high-energy piece will make you stand out from the crowd, whether you are headed to work or the weekend.',
  'Where you\'re going you might not need roads, but you will definitely need these.',
  'I\'ll tell you how great they are after I nap for a bit.',
  'Cut from breathable, mid-weight fabric, it keeps its shape wash after wash.',
  'Reinforced stitching at every seam means it lasts as long as you need it to.',
  'Designed in-house, tested on the street, and loved by everyone who has tried it.',
  'A relaxed fit, a clean silhouette, and pockets that actually hold your phone.',
  'Pair it with anything in your closet; it was made to go with everything.',
  'Sustainably sourced materials, because looking good should not cost the earth.',
  'Our best-selling design, updated with softer materials and a sharper cut.',
  'Built for cold mornings, warm afternoons, and everything in between.',
  'Every detail, from the zipper pulls to the lining, has been thought through twice.',
  'Machine washable, quick drying, and ready for whatever the day throws at it.',
];

export const FEATURES: readonly (readonly [string, readonly string[]])[] = [
  ['Fabric', ['Canvas', '100% Cotton', 'Denim', 'Fleece', 'Wool Blend', 'Linen', 'Polyester']],
  ['Buttons', ['Brass', 'Wood', 'Plastic', 'Horn']],
  ['Lenses', ['Ultrasheen', 'Polarized', 'Gradient', 'Mirrored']],
  ['UV Protection', ['UV400', 'Full']],
  ['Frame', ['LightCompose', 'DuraResin', 'Titanium']],
  ['Sole', ['Rubber', 'FullControlSkin', 'Leather', 'EVA Foam']],
  ['Material', ['FullControlSkin', 'Leather', 'Suede', 'Mesh', 'Nylon']],
  ['Stitching', ['Double Stitch', 'Cross Stitch', 'Blanket Stitch']],
  ['Mid-Sole', ['ControlSupport Arch Bridge', 'Air Cushion', 'Gel']],
  ['Cut', ['Loose', 'Skinny', 'Straight', 'Relaxed', 'Slim']],
  ['Green Leaf Certified', ['', 'Yes']],
  ['Non-GMO', ['', 'Yes']],
  ['Satisfaction Guaranteed', ['', 'Yes']],
  ['Fair Trade Certified', ['', 'Yes']],
];

export const COLORS = [
  'Black', 'White', 'Forest Green', 'Navy', 'Ocean Blue', 'Desert Brown', 'Maroon', 'Sky Blue',
  'Charcoal', 'Cream', 'Olive', 'Red', 'Mustard', 'Dark Grey', 'Light Grey', 'Coral', 'Lavender',
  'Tan', 'Burgundy', 'Teal', 'Sand', 'Goldenrod', 'Hot Pink', 'Khaki',
];

export const CLOTHING_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;
export const SHOE_SIZES = ['7', '7.5', '8', '8.5', '9', '9.5', '10', '10.5', '11', '11.5', '12', '13'] as const;
export const ONE_SIZE = ['One Size'] as const;

const SHOE_CATEGORIES = new Set<string>(['Kicks', 'Dress Shoes', 'Heels', 'Boots', 'Sandals']);

export function sizesFor(category: string): readonly string[] {
  if (SHOE_CATEGORIES.has(category)) return SHOE_SIZES;
  if (category === 'Accessories' || category === 'Socks') return ONE_SIZE;
  return CLOTHING_SIZES;
}

const list = (text: string): readonly string[] => text.trim().split(/\s+/).map((w) => w.replaceAll('_', ' '));

/** Qualities (lower case, as in a sentence). */
export const QUALITIES = list(`
soft warm light durable breathable classic comfortable easy bold clean simple rugged sleek cozy smooth
sturdy relaxed tailored fitted roomy cropped flexible stretchy waterproof windproof lightweight heavyweight
supple crisp airy plush quiet sharp versatile timeless modern vintage retro minimal practical technical
casual polished sporty elegant refined understated generous slim compact cushioned padded insulated quilted
brushed washed faded raw textured ribbed knitted woven stitched bonded sealed lined unlined reversible
adjustable detachable packable foldable stackable washable recycled organic natural sustainable responsible
honest thoughtful careful precise dependable reliable trusted proven tested everyday weekend seasonal
essential iconic signature original authentic handmade handcrafted hand-finished small-batch limited
premium affordable honest-to-goodness generous-cut slim-fit loose-fit true-to-size oversized boxy longline
bright muted deep rich earthy warm-toned cool-toned neutral tonal contrast two-tone striped checked plaid
speckled marled heathered dyed garment-dyed stonewashed distressed weathered soft-touch silky velvety
feathery fluffy chunky fine thick thin dense open loose tight snug secure steady grippy springy bouncy
responsive stable supportive protective resilient tough hardwearing long-lasting low-key high-rise low-rise
mid-weight all-season all-day four-season cold-weather warm-weather wet-weather urban coastal alpine
outdoor indoor nautical tropical nordic rustic utilitarian industrial sculptural graphic playful cheerful
confident effortless honestly-made considered balanced proportioned streamlined lean agile nimble swift
quick fast slow gentle mellow vivid luminous glossy matte satin reflective translucent opaque
`);

/** Things: parts, places in a day, occasions (singular). */
export const THINGS = list(`
fabric seam collar cuff hem pocket zipper button lining hood sleeve waistband drawstring strap buckle
sole heel toe insole outsole midsole lace eyelet tongue shank footbed arch ankle knee shoulder back
chest neckline placket yoke pleat dart panel gusset vent loop tab snap rivet grommet toggle cord
thread stitch weave knit blend finish texture drape silhouette shape fit cut length weight color
shade tone print pattern stripe check motif logo label detail trim edge corner layer shell core
morning afternoon evening night day week weekend season year summer winter spring autumn fall moment
city street road trail path track park garden beach coast shore harbour island mountain valley river lake
forest meadow field desert canyon village town market cafe studio office desk meeting commute journey
trip holiday vacation getaway adventure expedition hike walk run ride climb swim workout session
practice game match race festival concert party dinner wedding date brunch picnic barbecue campfire
cabin tent camp porch balcony terrace rooftop kitchen sofa couch bed closet wardrobe drawer suitcase
bag backpack wallet phone key ticket map book notebook camera bike board skateboard surfboard kayak
dog friend family partner crowd team neighbour traveller commuter runner hiker climber rider skater
designer maker tailor craftsman workshop mill factory atelier archive collection capsule edition
drop range line series classic staple favourite essential bestseller update version upgrade refresh
weather rain snow wind sun heat cold frost fog storm drizzle breeze chill shade light sunset sunrise
comfort warmth style ease freedom movement support protection confidence character charm personality
quality value detail craft care attention purpose intention idea inspiration story heritage history
tradition future past present memory habit routine rhythm pace balance energy spirit mood feeling
`);

/** The same things, as plurals, where a sentence counts them. */
export const PLURAL_THINGS = list(`
seams collars cuffs pockets zippers buttons sleeves straps buckles soles heels laces eyelets panels
vents loops snaps rivets toggles cords threads stitches layers details edges corners shoulders knees
mornings afternoons evenings nights days weeks weekends seasons years summers winters moments streets
roads trails paths parks gardens beaches coasts mountains valleys rivers lakes forests meadows fields
villages towns markets cafes studios offices meetings commutes journeys trips holidays adventures
hikes walks runs rides climbs workouts games matches races festivals concerts parties dinners weddings
dates picnics cabins tents kitchens closets bags keys tickets maps books notebooks cameras bikes boards
dogs friends families crowds teams neighbours travellers commuters runners hikers climbers riders skaters
designers makers tailors workshops mills factories collections editions drops ranges lines series
classics staples favourites essentials bestsellers updates versions washes wears miles hours years
`);

/** What it does (third person singular). */
export const DOES = list(`
keeps holds fits moves breathes stretches protects supports cushions warms cools dries repels resists
lasts wears washes packs folds layers pairs matches works goes travels performs adapts responds
softens shapes flatters frames balances grips grounds lifts carries stores hides secures seals blocks
shields shelters wicks absorbs insulates traps releases vents sheds handles survives outlasts rewards
invites welcomes celebrates honours remembers echoes borrows revisits reimagines reinvents updates
refines simplifies elevates sharpens brightens lightens strengthens reinforces improves completes
finishes follows leads keeps_up stands_out blends_in dresses_up dresses_down slips_on zips_up
`);

/** How (adverbs). */
export const HOW = list(`
easily quietly gently firmly neatly cleanly quickly slowly softly comfortably naturally effortlessly
perfectly beautifully simply honestly carefully thoughtfully precisely reliably evenly smoothly
securely snugly loosely lightly warmly brightly boldly subtly always never rarely often usually
really truly genuinely surprisingly remarkably especially particularly nearly almost barely hardly
still already finally instantly immediately gradually eventually properly fully completely entirely
`);

/** Doing (gerunds), for "made for ...". */
export const DOING = list(`
walking running hiking climbing cycling skating surfing swimming paddling sailing fishing camping
travelling commuting working lounging relaxing dancing training stretching lifting jumping exploring
wandering strolling layering packing gardening cooking reading writing drawing painting shopping
celebrating gathering meeting dining sleeping napping waiting dreaming driving flying boarding
skiing snowboarding sledding trekking scrambling bouldering jogging sprinting racing playing
`);

/** Real materials and finishes. */
export const MATERIALS = list(`
cotton linen wool merino cashmere alpaca mohair silk satin velvet corduroy denim chambray canvas twill
poplin oxford flannel fleece jersey terry pique seersucker tweed gabardine suede leather nubuck
nylon polyester spandex elastane lycra modal viscose rayon lyocell tencel hemp bamboo jute cork rubber
neoprene mesh ripstop cordura gore-tex down shearling sherpa boucle chenille organza tulle lace crochet
`);

/** Real places (some with accents, as real copy has). */
export const REAL_PLACES = list(`
Lisbon Porto Kyoto Osaka Oslo Bergen Copenhagen Stockholm Helsinki Reykjavik Dublin Galway Edinburgh
Glasgow Cornwall Brooklyn Portland Seattle Vancouver Montréal Québec Toronto Chicago Austin Denver
Marseille Nîmes Lyon Bordeaux Florence Milan Napoli Sevilla Málaga Barcelona Bilbao Zürich Genève
Malmö Göteborg Kraków Gdańsk Praha Wien München Köln Hamburg Berlin Tromsø Ålesund Bogotá Medellín
São_Paulo Curaçao Mérida Oaxaca Tulum Cancún Patagonia Tasmania Queenstown Bali Seoul Busan Hokkaido
`);

/** Real first names, for designers and makers. */
export const FIRST_NAMES = list(`
Ana Ben Clara Dario Elena Felix Greta Hugo Ines Jonas Kaia Luca Maya Nico Olga Pablo Quinn Rosa Sami
Tara Umar Vera Wen Xavier Yara Zoe Aiko Björn Chloé Dmitri Émile Farah Gustavo Hana Ingrid José
Kenji Léa Mateo Noémie Oskar Priya Raúl Søren Thiago Ulla Valérie Wiebke Yusuf Zoë Amara Bruno
`);

/** Little words that make sentences, for the frequency count's head. */
export const FUNCTION_WORDS = list(`the a an and or but with without for from to of in on at by into over under
through around between after before while when where as so it its this that these those your you our we
every each all any more most less than then just also even only not no yes well very too`);

// Syllables for coined proper nouns: one or two of onset, vowel and a
// light coda, then an ending ("Saxora", "Belika", "Taltford").
const ONSETS = list('b br c cl d dr f fl g gr h j k kr l m n p pl r s sk sl st t tr v w z th sh ch');
const VOWELS = list('a e i o u a e o a i ai ea io ou y');
const CODAS = ['', '', '', '', 'n', 'r', 'l', 's', 'm', 'x', 'rn', 'lt', 'nd'];
const ENDINGS = list('a o en ar ia ix on ova ara ell ion ora ex ino ette ika und holm berg ton ley wick dale mere field ford');
const ACCENTED: Record<string, string> = { e: 'é', o: 'ö', a: 'å', n: 'ñ', u: 'ü' };

/** Deterministic integer hash (the vocabulary is the same whatever the catalogue's seed). */
function mix(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * `count` distinct coined words of one kind (`salt` keeps kinds apart), none
 * of them a word of the lists above, with `ending` (or one of ENDINGS); about
 * one in twenty-five carries an accent.
 */
function coin(count: number, salt: number, taken: Set<string>, ending?: (h: number) => string): string[] {
  const words: string[] = [];
  for (let i = 0; words.length < count; i++) {
    const h = mix(salt * 1_000_003 + i);
    const h2 = mix(h ^ 0x5bd1e995);
    let word = ONSETS[h % ONSETS.length]! + VOWELS[(h >>> 8) % VOWELS.length]!;
    // A second syllable for a third of the words, the first then open.
    if ((h >>> 16) % 3 === 0) word += ONSETS[h2 % ONSETS.length]! + VOWELS[(h2 >>> 8) % VOWELS.length]!;
    word += CODAS[(h >>> 20) % CODAS.length]!;
    word += ending ? ending(h2) : ENDINGS[(h2 >>> 16) % ENDINGS.length]!;
    if (word.length < 4 || word.length > 11 || /(.)\1\1|[aeiouy]{3}/.test(word)) continue;
    if ((h2 & 0xff) < 10) {
      const at = [...word].findIndex((c, j) => j > 1 && ACCENTED[c] !== undefined);
      if (at > 0) word = word.slice(0, at) + ACCENTED[word[at]!]! + word.slice(at + 1);
    }
    word = capitalise(word);
    if (taken.has(word.toLowerCase())) continue;
    taken.add(word.toLowerCase());
    words.push(word);
  }
  return words;
}

/**
 * Realistic descriptions' sentence templates, from three words to thirty, in
 * frequency order. A slot in braces is a word drawn from a list (text.ts
 * CLASSES; a capital first letter capitalises it): q quality, t thing, ts
 * things, d does, h how, g doing, m material, tn trade name, p place, b
 * brand, n a designer's name, name the product's noun, cat its category.
 */
export const SENTENCE_TEMPLATES: readonly string[] = [
  'It {d} {h}.',
  'The {m} {t} {d} {h}.',
  '{Q} and {q}.',
  'Made for {g} and {g}.',
  'Cut from {q} {m} with a {q} {t}, it {d} from {t} to {t}.',
  'Our {q} {name}, now in {q} {m}.',
  'Pair it with {q} {ts} for {q} {ts} in {p}.',
  'Whether you are {g} in {p} or {g} on a {q} {t}, it {d} {h}.',
  'Designed by {N} in {p}, this {name} {d} {h} and {d} {ts} {h}.',
  '{Tn} at the {t} {d} the {t} {h}, so your {ts} stay {q} through long {ts} of {g}.',
  'Built around a {tn} {t} and {q} {ts}, it {d} well after {ts} of {g}.',
  '{B} has made {ts} in {p} since {year}.',
  'Not too {q}, not too {q}: just {q}.',
  '{Q}, {q}, {q}.',
  'Finished with {q} {ts}, a {q} {t} and a {tn} {t}, this is the {name} we reach for every {t}.',
  'From {p} to {p}, it {d} {h} and {d} {h}.',
  'Each piece is {q} and {q}, sewn in {p} by a small team led by {N}.',
  'Tested on {ts} around {p}, where the {t} {d} {h}.',
  'Wash cold, dry flat, and it {d} for {ts}.',
  'Also in {q} {m}.',
  'The {q} {t} and {q} {ts} mean it {d} {h}, even on {q} {ts} in {p} when the {t} turns {q}.',
  'One {name} for {g}, {g} and everything in between.',
  'Part of the {B} {t} collection.',
  'A {q} take on the {cat} you already love.',
  'If you are {g} this {t}, bring it.',
];

/** Slogan templates: v a slogan verb, c a closer (SLOGAN_CLOSERS, " in {m}", ", {h}"). */
export const SLOGAN_TEMPLATES: readonly string[] = [
  '{verb} your {t}{closer}',
  '{verb} the {q} {t}{closer}',
  '{verb} every {t}{closer}',
  '{Q} for {ts}, {q} for {ts}',
  'Made for {g}{closer}',
  'The {name} for {g} in {p}',
  '{Q}. {Q}. {Q}.',
  'Your next {t} starts here',
  'From {p}, with {q} {ts}',
  '{Q} by design',
];

export const SLOGAN_VERBS = [
  'Blend in to', 'Step into', 'Make room for', 'Own', 'Chase', 'Take on', 'Embrace', 'Meet', 'Dress for', 'Walk into',
  'Get ready for', 'Say yes to', 'Carry on through', 'Slow down for', 'Keep up with', 'Show up for', 'Head out into', 'Come home from',
];

const realWords = new Set<string>();
for (const group of [QUALITIES, THINGS, PLURAL_THINGS, DOES, HOW, DOING, MATERIALS, REAL_PLACES, FIRST_NAMES, FUNCTION_WORDS]) {
  for (const phrase of group) for (const word of phrase.toLowerCase().split(/[\s-]+/)) realWords.add(word);
}
const coinedTaken = new Set(realWords);

/** Coined brands and collections: the first word of many names. */
export const BRANDS: readonly string[] = coin(1_400, 1, coinedTaken);
/** Coined places ("made in ..."). */
export const COINED_PLACES: readonly string[] = coin(700, 2, coinedTaken);
/** Coined trade names of fabrics and parts ("...Tex", "...Flex", "...Knit"). */
const TRADE_ENDINGS = list('tex flex knit loft grip shell dry cell lite therm');
export const TRADE_NAMES: readonly string[] = coin(500, 3, coinedTaken, (h) => TRADE_ENDINGS[h % TRADE_ENDINGS.length]!);
/** Coined family names of designers. */
export const FAMILY_NAMES: readonly string[] = coin(600, 4, coinedTaken);

/** Coined nouns and qualities of the `unrelated` text shape only (text.ts): another vocabulary size. */
export const EXTRA_THINGS: readonly string[] = coin(3_000, 5, coinedTaken);
export const EXTRA_QUALITIES: readonly string[] = coin(2_000, 6, coinedTaken);

/** Places, real and coined, in frequency order (real ones first: they are the commonest). */
export const PLACES: readonly string[] = [...REAL_PLACES, ...COINED_PLACES];

/**
 * What a realistic name is made of: a brand or collection (optional), one
 * or two modifiers (optional) and the category's noun, one to four words;
 * a few names are a coined model name alone. Each part is drawn with
 * Zipf-like weights, so the commonest combinations repeat across products.
 */
export const NAME_PARTS = {
  brands: BRANDS,
  /** Legacy adjectives first (the commonest), then colours, qualities, materials and places. */
  modifiers: [
    ...ADJECTIVES, ...COLORS, ...QUALITIES.filter((q) => !q.includes('-')).map(capitalise),
    ...MATERIALS.map(capitalise), ...REAL_PLACES,
  ] as readonly string[],
  nouns: Object.fromEntries(CATEGORIES.map((c) => [c, [...NOUNS[c], ...MORE_NOUNS[c]]])) as unknown as Record<(typeof CATEGORIES)[number], readonly string[]>,
  suffixes: ['Pro', 'Lite', 'II', 'Max', 'Plus', 'Classic', 'Original', 'Mini'] as readonly string[],
};

/** Emoji a few slogans and descriptions end with, as real copy does. */
export const EMOJI = ['✨', '🔥', '👟', '❄️', '🌿', '☀️', '🌊', '💯', '🏔️', '🖤'] as const;

/** Every word realistic text can contain, lower case, split the way a reader splits words. */
export function vocabularyWords(): Set<string> {
  const words = new Set<string>();
  const add = (phrase: string) => { for (const w of phrase.toLowerCase().split(/[^\p{L}\p{N}']+/u)) if (w) words.add(w); };
  const groups = [
    QUALITIES, THINGS, PLURAL_THINGS, DOES, HOW, DOING, MATERIALS, PLACES, FIRST_NAMES, FAMILY_NAMES, FUNCTION_WORDS, BRANDS, TRADE_NAMES,
    NAME_PARTS.modifiers, NAME_PARTS.suffixes, ...Object.values(NAME_PARTS.nouns), SLOGAN_VERBS, SLOGAN_OPENERS, SLOGAN_CLOSERS, DESCRIPTION_SENTENCES,
    [...SENTENCE_TEMPLATES, ...SLOGAN_TEMPLATES].map((template) => template.replaceAll(/\{[A-Za-z]+\}/g, ' ')),
  ];
  for (const group of groups) group.forEach(add);
  return words;
}
