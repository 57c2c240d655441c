// Cursors the API hands out are taken back, whatever the sort key holds;
// keys Postgres would refuse are a 400 here, not a 500 from the cast.
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, MAX_CURSOR_CHARACTERS } from '../../src/catalog/browse/browse-cursor.ts';
import { ValidationError } from '../../src/catalog/model/validation.ts';

describe('browse cursors', () => {
  it.each([
    ['255 CJK characters', '商'.repeat(255)],
    ['255 control characters (6 bytes each in JSON)', '\u0001'.repeat(255)],
    ['255 astral characters', '😀'.repeat(255)],
  ])('a name key of %s round-trips, within the length cap', (_, key) => {
    for (const ordering of ['NAME ASC', 'NAME DESC'] as const) {
      const cursor = encodeCursor(ordering, { key, id: 2_147_483_647 });
      expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_CHARACTERS);
      expect(decodeCursor(cursor, ordering)).toEqual({ key, id: 2_147_483_647 });
    }
  });

  it.each(['2026-02-30T00:00:00.000Z', '2026-13-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z', '2026-01-01T00:60:00.000Z'])(
    'refuses the timestamp key %s (right format, no such time) as not a cursor', (key) => {
      for (const ordering of ['CREATED_AT DESC', 'UPDATED_AT ASC'] as const) {
        const cursor = Buffer.from(`${ordering}|${JSON.stringify([key, 5])}`).toString('base64url');
        expect(() => decodeCursor(cursor, ordering)).toThrow(ValidationError);
      }
    });

  it('takes real timestamps, the first and the last day of a leap February included', () => {
    for (const key of ['2024-02-29T23:59:59.999Z', '0001-01-01T00:00:00.000Z', '2026-11-24T17:00:00.000Z']) {
      expect(decodeCursor(encodeCursor('UPDATED_AT ASC', { key, id: 1 }), 'UPDATED_AT ASC')).toEqual({ key, id: 1 });
    }
  });

  it('refuses a cursor longer than any the API hands out', () => {
    expect(() => decodeCursor('A'.repeat(MAX_CURSOR_CHARACTERS + 1), 'NAME ASC')).toThrow(/not a cursor/);
  });
});
