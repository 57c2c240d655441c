// The pure parts of npm run bench:postgraphile (bench/lib/postgraphile-page.ts):
// PostGraphile's page and ours brought to one shape and compared, the ratios
// of interleaved runs, and a CPU profile's top functions. PostGraphile itself
// is never needed here (it lives in a scratch folder, outside the project).
import { describe, expect, it } from 'vitest';
import { median } from '../../bench/lib/median.ts';
import { type CpuProfile, firstDifference, ourPage, postgraphilePage, ratioOf, shortFile, topSelfTime } from '../../bench/lib/postgraphile-page.ts';

const ours = {
  id: '7', name: 'Shoe', slogan: 's', description: 'd', category: 'Shoes', defaultPrice: 140,
  features: [{ feature: 'Sole', value: 'Rubber' }, { feature: 'Lace', value: null }],
  styles: [{ id: '12', name: 'Red', originalPrice: 140, salePrice: null, isDefault: true, photos: [{ url: 'u', thumbnailUrl: 't' }], skus: [{ id: '99', size: '8', quantity: 3 }] }],
  relatedIds: ['3', '5'],
};
const theirs = {
  rowId: 7, name: 'Shoe', slogan: 's', description: 'd', category: 'Shoes', defaultPrice: '140.00',
  features: { nodes: [{ feature: 'Sole', value: 'Rubber' }, { feature: 'Lace', value: null }] },
  styles: { nodes: [{ rowId: 12, name: 'Red', originalPrice: '140.00', salePrice: null, isDefault: true, photos: { nodes: [{ url: 'u', thumbnailUrl: 't' }] }, skus: { nodes: [{ rowId: 99, size: '8', quantity: 3 }] } }] },
  relatedsByCurrentProductId: { nodes: [{ relatedProductId: 3 }, { relatedProductId: 5 }] },
};

describe('the product page from PostGraphile and from us', () => {
  it('holds the same values once ids are strings and prices numbers', () => {
    expect(firstDifference(ourPage(ours), postgraphilePage(theirs))).toBeUndefined();
    expect(firstDifference(ourPage(null), postgraphilePage(null))).toBeUndefined();
  });

  it('names where they first differ', () => {
    const changed = structuredClone(theirs);
    changed.styles.nodes[0]!.skus.nodes[0]!.quantity = 4;
    expect(firstDifference(ourPage(ours), postgraphilePage(changed))).toBe('styles[0].skus[0].quantity');
    changed.relatedsByCurrentProductId.nodes.pop();
    expect(firstDifference(ourPage(ours), postgraphilePage(changed))).toBe('styles[0].skus[0].quantity');
    expect(firstDifference(ourPage(ours), postgraphilePage({ ...theirs, relatedsByCurrentProductId: { nodes: [{ relatedProductId: 3 }] } }))).toBe('relatedIds.length');
    expect(firstDifference(ourPage(ours), postgraphilePage(null))).toBe('(the page)');
  });
});

describe('the figures of interleaved runs', () => {
  it('takes medians, and ratios of medians with their range over runs paired by round', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(ratioOf([100, 300, 200], [100, 100, 400])).toEqual({ median: 2, min: 0.5, max: 3 });
  });
});

describe('a CPU profile\'s top functions', () => {
  const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 9 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(garbage collector)') },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('answer', 'file:///work/main/src/graphql/fast-path.ts') },
      { id: 4, callFrame: frame('parseRow', 'file:///work/main/node_modules/pg/lib/result.js') },
      { id: 5, callFrame: frame('writeUtf8String') },
    ],
    startTime: 0, endTime: 10,
    // One sample a microsecond: the first two fall before the window.
    samples: [3, 3, 2, 2, 3, 1, 4, 5, 3, 2],
    timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
  };

  it('counts the window\'s busy samples by function and by package, and the idle share', () => {
    const top = topSelfTime(profile, { from: 3, to: 10 });
    expect(top.samples).toBe(5);
    expect(top.idle).toBeCloseTo(3 / 8);
    expect(top.functions[0]).toEqual({ name: 'answer (src/graphql/fast-path.ts:10)', share: 0.4 });
    expect(top.functions.map((f) => f.name)).toEqual(expect.arrayContaining(['writeUtf8String (native)', '(garbage collector)', 'parseRow (pg:10)']));
    expect(top.packages).toEqual([
      { name: 'src/graphql', share: 0.4 }, { name: '(garbage collector)', share: 0.2 }, { name: 'pg', share: 0.2 }, { name: '(native: V8 and libuv)', share: 0.2 },
    ]);
  });

  it('shortens files to their package or their place in the project', () => {
    expect(shortFile('file:///x/node_modules/@fastify/cors/index.js')).toBe('@fastify/cors');
    expect(shortFile('file:///x/node_modules/graphql-jit/dist/execution.js')).toBe('graphql-jit');
    expect(shortFile('file:///work/main/src/rest/routes.ts')).toBe('src/rest/routes.ts');
    expect(shortFile('node:events')).toBe('node:events');
    expect(shortFile('')).toBe('');
  });
});
