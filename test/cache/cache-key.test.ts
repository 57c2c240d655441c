// The response cache's keys (src/cache/cache-key.ts): built in one place for
// GraphQL (both of its paths) and REST.
import { describe, expect, it } from 'vitest';
import { graphqlCacheKey, restCacheKey } from '../../src/cache/cache-key.ts';

describe('cache keys, built in one place for both APIs', () => {
  it('GraphQL: the document, the name as sent and only the declared variables, in any order', () => {
    const key = graphqlCacheKey('abc', 'Page', ['id', 'first'], { first: 2, id: '1', padding: 'x' });
    expect(key).toBe('gql:abc:Page:{"first":2,"id":"1"}');
    expect(graphqlCacheKey('abc', 'Page', ['id', 'first'], { id: '1', first: 2 })).toBe(key);
    expect(graphqlCacheKey('abc', undefined, [], null)).toBe('gql:abc::{}');
  });

  it('REST: the route with its parameters, then only the declared query parameters, in the route\'s order', () => {
    expect(restCacheKey('/products/:id/styles', { id: 1 }, [], { cb: 'x' })).toBe('rest:/products/1/styles');
    expect(restCacheKey('/products', {}, ['page', 'count'], { count: 5, cb: 'x', page: 2 })).toBe('rest:/products?page=2&count=5');
    expect(restCacheKey('/search/:text', { text: 'a b/c' }, ['page'], {})).toBe('rest:/search/a%20b%2Fc');
  });
});
