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
