// WAL positions as Postgres prints them ("16/B374D848") and as bigints.
import { describe, expect, it } from 'vitest';
import { formatLsn, parseLsn } from '../../src/db/reads/wal-position.ts';

describe('WAL positions', () => {
  it('reads both hexadecimal halves, past 2^53, and prints them back', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe(0x16b374d848n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
    expect(formatLsn(0x16b374d848n)).toBe('16/B374D848');
    expect(formatLsn(parseLsn('abc/1'))).toBe('ABC/1');
  });

  it('orders positions by where they are in the log, not as text', () => {
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('A/0') > parseLsn('9/FFFFFFFF')).toBe(true);
  });

  it('rejects anything else', () => {
    for (const bad of ['', '16', '16/', '/1', '16/B374D848/1', '123456789/0', 'G/0']) expect(() => parseLsn(bad)).toThrow(/not a WAL position/);
  });
});
