// Opaque cursors of browse pages and search results: base64url of the
// ordering they belong to, the sort key of the last row and its id (ties are
// broken by id, so a position is always exact). The id ordering keeps the
// original form ("product:<id>"), so cursors handed out before filters and
// orderings existed stay valid. A cursor of another ordering is refused, not
// misread: the same key means something else there.
import { POSTGRES_INT_MAX } from '../../db/integers.ts';
import type { BrowseOrder } from './browse-input.ts';
import { ValidationError } from '../model/validation.ts';

/** Where a page continues from: the last row's sort key (text, as Postgres printed it) and id. */
export interface Position {
  key: string | null;
  id: number;
}

const ID_CURSOR = /^product:([1-9]\d{0,9})$/;

/** The name of an ordering in cursors and messages, e.g. "PRICE DESC", or "SEARCH" for search ranks. */
export type Ordering = `${BrowseOrder['field']} ${BrowseOrder['direction']}` | 'SEARCH';

export const orderingOf = (order: BrowseOrder): Ordering => `${order.field} ${order.direction}`;

export function encodeCursor(ordering: Ordering, position: Position): string {
  const text = ordering === 'ID ASC' ? `product:${position.id}` : `${ordering}|${JSON.stringify([position.key, position.id])}`;
  return Buffer.from(text).toString('base64url');
}

/**
 * What a sort key of each ordering looks like: a forged cursor whose key
 * would not cast to the column's type is refused here (a 400), not by
 * Postgres (a 500).
 */
const KEY_FORMATS: Record<string, RegExp> = {
  NAME: /^[^\u0000]{0,255}$/u,
  PRICE: /^\d{1,8}\.\d{2}$/,
  CREATED_AT: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  UPDATED_AT: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
  SEARCH: /^\d{1,3}\.\d{1,9}\.\d{1,16}$/,
};

/**
 * Longest cursor the API can hand out: a name sort key of 255 characters,
 * each up to 6 bytes in JSON (a control character as \u00XX), with the
 * ordering's name and the id, in base64url. Derived from the longest key
 * rather than chosen round, so that no cursor the API hands out (a page of
 * products named in 255 CJK characters gives cursors over 1,000) is one it
 * then refuses.
 */
export const MAX_CURSOR_CHARACTERS = Math.ceil(((255 * 6) + '"UPDATED_AT DESC|[,2147483647]"'.length) * 4 / 3);

/** A timestamp key Postgres takes: a real day of a year from 1 (the format alone let 2026-02-30 through, a 500). */
const realTimestamp = (key: string) => {
  const time = Date.parse(key);
  return Number.isFinite(time) && time >= Date.parse('0001-01-01T00:00:00.000Z') && new Date(time).toISOString() === key;
};

function notACursor(field: string): ValidationError {
  return new ValidationError(field, 'is not a cursor returned by this API');
}

/** The position `cursor` names in `ordering`; a 400 naming `field` for anything else. */
export function decodeCursor(cursor: string, ordering: Ordering, field = 'after'): Position {
  if (cursor.length > MAX_CURSOR_CHARACTERS) throw notACursor(field);
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const idOnly = ID_CURSOR.exec(text);
  let cursorOrdering: string;
  let position: Position;
  if (idOnly) {
    cursorOrdering = 'ID ASC';
    position = { key: null, id: Number(idOnly[1]) };
  } else {
    const bar = text.indexOf('|');
    if (bar < 0) throw notACursor(field);
    cursorOrdering = text.slice(0, bar);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.slice(bar + 1));
    } catch {
      throw notACursor(field);
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || !(typeof parsed[0] === 'string' || parsed[0] === null)) throw notACursor(field);
    position = { key: parsed[0] as string | null, id: parsed[1] as number };
  }
  if (!Number.isSafeInteger(position.id) || position.id < 1 || position.id > POSTGRES_INT_MAX) throw notACursor(field);
  if (cursorOrdering !== 'ID ASC' && cursorOrdering !== 'ID DESC') {
    const keyField = cursorOrdering.split(' ')[0] as string;
    const format = KEY_FORMATS[keyField];
    if (!format || position.key === null || !format.test(position.key)) throw notACursor(field);
    if ((keyField === 'CREATED_AT' || keyField === 'UPDATED_AT') && !realTimestamp(position.key)) throw notACursor(field);
  }
  if (cursorOrdering !== ordering) {
    throw new ValidationError(field, `is a cursor of the ${cursorOrdering} ordering; this request is ordered by ${ordering}: start again without ${field}`);
  }
  return position;
}
