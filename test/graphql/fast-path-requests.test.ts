// How the fast path (src/graphql/fast-path.ts) reads a GraphQL
// request: the plain shapes only, everything else left to Apollo. Repeated
// and many distinct `extensions` texts (what a CDN and a hostile client send)
// are read the same every time.
import { describe, expect, it, vi } from 'vitest';
import { sentByGet, sentByPost } from '../../src/graphql/fast-path.ts';

const hash = 'a'.repeat(64);
const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });

describe('sentByGet', () => {
  it('reads a persisted query by hash, the same the first time and every time after', () => {
    for (let i = 0; i < 3; i++) {
      expect(sentByGet({ operationName: 'Page', variables: '{"id":"1"}', extensions }))
        .toEqual({ text: undefined, hash, operationName: 'Page', variables: { id: '1' } });
    }
  });

  it('leaves to Apollo what it does not read, however often it is sent', () => {
    const refused = [
      { extensions: '{"persistedQuery":{"version":2,"sha256Hash":"x"}}' },
      { extensions: '{"persistedQuery":' },
      { extensions: '[]' },
      { extensions },
    ].map((q, i) => (i === 3 ? { ...q, variables: '[1]' } : q));
    for (let round = 0; round < 2; round++) {
      for (const query of refused) expect(sentByGet(query)).toBeUndefined();
    }
    // A text with extensions is an APQ registration: Apollo's.
    expect(sentByGet({ query: '{ a }', extensions })).toBeUndefined();
  });

  it('reads each of 1,200 distinct hashes, twice each', () => {
    for (let i = 0; i < 1_200; i++) {
      const h = i.toString(16).padStart(64, '0');
      const text = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: h } });
      expect(sentByGet({ extensions: text })?.hash).toBe(h);
      expect(sentByGet({ extensions: text })?.hash).toBe(h);
    }
  });
});

describe('sentByGet, Apollo Client\'s spelling of extensions (read without parsing)', () => {
  it('reads the same hash as parsing does, and nothing more than parsing would', () => {
    const apolloClient4 = `{"clientLibrary":{"name":"@apollo/client","version":"4.3.8"},${extensions.slice(1)}`;
    const spellings = [
      extensions, // Apollo Client's own spellings: read at once
      apolloClient4,
      apolloClient4.replace('4.3.8', '4.3.8\\"x'), // the rest are parsed
      ` ${extensions}`, // anything else is parsed
      JSON.stringify({ persistedQuery: { sha256Hash: hash, version: 1 } }),
      extensions.replace(hash, hash.toUpperCase()),
      extensions.replace(hash, hash.slice(1)),
    ];
    for (const text of spellings) {
      const parsed = JSON.parse(text) as { persistedQuery: { sha256Hash: string } };
      expect(sentByGet({ extensions: text })?.hash).toBe(parsed.persistedQuery.sha256Hash);
    }
    // Apollo Client's spellings (3 and 4: an outside run found 4's missed) are read without parsing.
    const parse = vi.spyOn(JSON, 'parse');
    try {
      expect(sentByGet({ extensions })?.hash).toBe(hash);
      expect(sentByGet({ extensions: apolloClient4 })?.hash).toBe(hash);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    // What is not JSON stays Apollo's, however close to the form it is.
    for (const text of [`${extensions}x`, `${extensions}}`, extensions.slice(0, -1), `${extensions}\u0000`, apolloClient4.replace('4.3.8', '4\u00013'), `${apolloClient4}x`]) {
      expect(sentByGet({ extensions: text })).toBeUndefined();
    }
  });
});

describe('sentByPost', () => {
  it('reads a document with variables, and leaves extensions to Apollo', () => {
    expect(sentByPost({ query: '{ a }', variables: { id: 1 } })).toEqual({ text: '{ a }', hash: undefined, operationName: undefined, variables: { id: 1 } });
    expect(sentByPost({ query: '{ a }', extensions: {} })).toBeUndefined();
  });
});
