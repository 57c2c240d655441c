import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse } from 'graphql';
import { operationCost } from './src/graphql/cost.ts';
import { readTypeDefs } from './src/graphql/schema.ts';
const schema = makeExecutableSchema({ typeDefs: readTypeDefs() });
const STYLE = 'id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity }';
const CARD = 'id name category defaultPrice styles { name originalPrice salePrice photos { thumbnailUrl } }';
const NESTED = 'id features { feature } styles { photos { url } skus { size } } related { name styles { name } }';
const LEGACY = 'id name slogan description category defaultPrice features { feature value } styles { id name originalPrice salePrice isDefault photos { thumbnailUrl url } skus { id quantity size } } related { id name styles { name } }';
const qs: Record<string, string> = {
  'page+related cards': `{ product(id: "1") { id name slogan description category defaultPrice features { feature value } styles { ${STYLE} } related { ${CARD} } } }`,
  'k6 ProductDetailPage': `{ product(id: "1") { id name slogan description category defaultPrice features { feature value } styles { ${STYLE} } related { id name category defaultPrice defaultStyle { id originalPrice salePrice photos { thumbnailUrl } } } } }`,
  'k6 ProductWithStyles': `{ product(id: "1") { id name defaultPrice styles { ${STYLE} } } }`,
  'IDE example': (await import('./src/graphql/ide.ts')).EXAMPLE_QUERY,
  'listing 20 styles photos prices': `{ products(count: 20) { id name category defaultPrice styles { id name originalPrice salePrice photos { thumbnailUrl url } } } }`,
  'listing 20 + skus': `{ products(count: 20) { id name category defaultPrice styles { id name originalPrice salePrice photos { thumbnailUrl url } skus { size quantity } } } }`,
  'NestedProducts 5': `{ products(count: 5) { ${NESTED} } }`,
  'legacy full 5': `{ products(count: 5) { ${LEGACY} } }`,
  'NestedProducts 10': `{ products(count: 10) { ${NESTED} } }`,
  'legacy full 20': `{ products(count: 20) { ${LEGACY} } }`,
  'products 100 id name': '{ products(count: 100) { id name } }',
  'conn 100 cursors': '{ productConnection(first: 100) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
  'related x2 ids': '{ product(id: "1") { related { id related { id } } } }',
  'related x3 ids': '{ product(id: "1") { related { id related { id related { id } } } } }',
  'related x4 ids': '{ product(id: "1") { related { related { related { related { id } } } } } }',
  'related x3 cards': `{ product(id: "1") { related { id related { id related { ${CARD} } } } } }`,
  'NestedProducts 50': `{ products(count: 50) { ${NESTED} } }`,
  'NestedProducts 100': `{ products(count: 100) { ${NESTED} } }`,
  'legacy full 100': `{ products(count: 100) { ${LEGACY} } }`,
  'DeepRelated 1': '{ productsByIds(ids: ["1"]) { id related { id related { id related { id name styles { skus { size } } } } } } }',
  'conn 100 features skus': '{ productConnection(first: 100) { edges { cursor node { id features { feature } styles { skus { size } } } } pageInfo { hasNextPage endCursor } } }',
  'listing 100 styles photos': `{ products(count: 100) { id name category defaultPrice styles { id name originalPrice salePrice photos { thumbnailUrl url } } } }`,
  'tight 5': '{ products(count: 5) { id features { feature } } }',
  'tight 6': '{ products(count: 6) { id features { feature } } }',
  'ratelimit EXPENSIVE': '{ product(id: "1") { id name slogan description category defaultPrice features { feature value } styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } } related { id name } } }',
  'REST product eq': '{ product(id: "1") { id name slogan description category defaultPrice features { feature value } } }',
};
for (const [k, q] of Object.entries(qs)) console.log(k.padEnd(34), String(operationCost(schema, parse(q))).padStart(9));
