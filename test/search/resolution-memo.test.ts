// The memo of searches' resolved words (src/search/dictionary/resolution-memo.ts): what
// it keeps, for how long, and what it refuses to keep. Through the API with a
// real change feed: test/graphql/query-count.test.ts.
import { describe, expect, it, vi } from 'vitest';
import { ResolutionMemo } from '../../src/search/dictionary/resolution-memo.ts';
import type { Resolved } from '../../src/search/dictionary/resolved.ts';

const resolution = (query: string): Resolved => ({
  query, searched: { terms: [query], pairs: [], adjacent: true, together: true }, uncorrected: null, typed: [query], nameKey: query, correctedNameKey: null, corrected: false, beyondTyped: false, implying: null,
});

function remember(memo: ResolutionMemo, words: string[], resolved: Resolved | null, bytes = 100) {
  const recall = memo.recall(words);
  expect(recall.found).toBe(false);
  if (!recall.found) recall.keep(resolved, bytes);
}

describe('ResolutionMemo', () => {
  it('answers what it was given for the same words (stop words alone too), and nothing for others', () => {
    const memo = new ResolutionMemo(() => true);
    remember(memo, ['coat'], resolution("'coat'"));
    remember(memo, ['the'], null);
    expect(memo.recall(['coat'])).toEqual({ found: true, resolved: resolution("'coat'") });
    expect(memo.recall(['the'])).toEqual({ found: true, resolved: null });
    // Words are a list, not their text joined: ["a b"] is not ["a", "b"].
    remember(memo, ['a', 'b'], resolution("'a' & 'b'"));
    expect(memo.recall(['a b']).found).toBe(false);
    expect(memo.snapshot()).toMatchObject({ hits: 2, entries: 3 });
  });

  it('hands out resolutions nobody can change', () => {
    const memo = new ResolutionMemo(() => true);
    remember(memo, ['coat'], resolution("'coat'"));
    const recall = memo.recall(['coat']);
    if (!recall.found || !recall.resolved) throw new Error('not kept');
    expect(() => { (recall.resolved!.searched.terms as string[]).push('x'); }).toThrow(TypeError);
  });

  it('keeps at most its entries and bytes, forgetting the least recently used first', () => {
    const memo = new ResolutionMemo(() => true, { entries: 3, bytes: 10_000 });
    for (const word of ['a', 'b', 'c']) remember(memo, [word], resolution(word));
    expect(memo.recall(['a']).found).toBe(true); // a used: b is now the oldest
    remember(memo, ['d'], resolution('d'));
    expect(['a', 'b', 'c', 'd'].map((word) => memo.recall([word]).found)).toEqual([true, false, true, true]);
    const small = new ResolutionMemo(() => true, { bytes: 1_000 });
    remember(small, ['a'], resolution('a'), 600);
    remember(small, ['b'], resolution('b'), 600);
    expect(small.snapshot()).toMatchObject({ entries: 1 });
    expect(small.recall(['a']).found).toBe(false);
    remember(small, ['huge'], resolution('huge'), 5_000); // larger than the whole memo: not kept
    expect(small.recall(['huge']).found).toBe(false);
  });

  it('reads an entry again after its maximum age', () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const memo = new ResolutionMemo(() => true, { maxAgeMs: 1_000 });
      remember(memo, ['coat'], resolution('coat'));
      vi.advanceTimersByTime(900);
      expect(memo.recall(['coat']).found).toBe(true);
      vi.advanceTimersByTime(200);
      expect(memo.recall(['coat']).found).toBe(false);
      expect(memo.snapshot()).toMatchObject({ entries: 0, bytes: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('forgets everything when cleared, and does not keep a resolution read before the clear', () => {
    const memo = new ResolutionMemo(() => true);
    remember(memo, ['coat'], resolution('coat'));
    const reading = memo.recall(['vest']);
    memo.clear();
    expect(memo.recall(['coat']).found).toBe(false);
    if (!reading.found) reading.keep(resolution('vest (the old dictionary)'), 100);
    expect(memo.recall(['vest']).found).toBe(false);
    expect(memo.snapshot()).toMatchObject({ clears: 1, entries: 0 });
  });

  it('neither serves nor keeps anything while changes could go unheard', () => {
    let listening = true;
    const memo = new ResolutionMemo(() => listening);
    remember(memo, ['coat'], resolution('coat'));
    listening = false;
    expect(memo.recall(['coat']).found).toBe(false);
    const recall = memo.recall(['vest']);
    if (!recall.found) recall.keep(resolution('vest'), 100);
    listening = true;
    expect(memo.recall(['vest']).found).toBe(false);
  });
});
