// What each REST read shows, as the GraphQL query that shows the same: the
// schema's @cacheControl hints for those fields bound how long browsers and
// CDNs may reuse the REST answer, exactly as they bound the GraphQL one
// (src/server.ts derives the seconds; src/http/http-caching.ts applies them).
export const REST_READS_AS_GRAPHQL = {
  list: '{ products { id name slogan description category defaultPrice } }',
  detail: '{ product(id: "1") { id name slogan description category defaultPrice features { feature value } } }',
  styles: '{ product(id: "1") { styles { id name originalPrice salePrice isDefault photos { thumbnailUrl url } skus { id quantity size } } } }',
  related: '{ product(id: "1") { relatedIds } }',
} as const;

export type RestRead = keyof typeof REST_READS_AS_GRAPHQL;
