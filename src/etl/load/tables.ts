// How each legacy file maps onto its table: the expected header, the columns,
// and the per-row cleaning rules. A rule either returns the row in Postgres COPY
// text format or the reason the row is rejected.
import type { FileName } from '../generate/plan.ts';
import { IdSet } from './id-set.ts';
import { POSTGRES_INT_MAX } from '../../db/integers.ts';

export type Table = 'products' | 'features' | 'styles' | 'photos' | 'skus' | 'related';

/** Ids loaded so far, shared by the files so children can check their parents. */
export interface LoadedIds {
  products: IdSet;
  styles: IdSet;
}

export interface TableSpec {
  file: FileName;
  fileName: string;
  table: Table;
  header: string;
  columns: string[];
  fieldCount: number;
  /** Ids of this table already accepted (duplicate ids are rejected). */
  clean(fields: string[], raw: string, loaded: LoadedIds, seen: IdSet): string | Rejection;
  /**
   * For a line that was rejected: its fields when its damage is unambiguous
   * and can be undone (clean() then checks them as usual), or undefined.
   */
  repair?(raw: string): string[] | undefined;
}

export class Rejection {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

const MAX_PRICE = 99_999_999.99; // numeric(10,2)

// Numbers may carry stray whitespace in the legacy files (`"Accessories", 69`).
// (A digit loop, not a regular expression: it runs on several fields of each
// of the 26 million rows.)
function positiveInt(raw: string): number | undefined {
  const text = isDigit(raw.charCodeAt(0)) && isDigit(raw.charCodeAt(raw.length - 1)) ? raw : raw.trim();
  if (text.length === 0 || text.length > 10) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return undefined;
    value = value * 10 + (c - 48);
  }
  return value >= 1 && value <= POSTGRES_INT_MAX ? value : undefined;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** A price: whole or with up to two decimals, as Postgres numeric(10,2) text. */
function price(raw: string): string | undefined {
  const text = raw.trim();
  if (!/^\d{1,8}(\.\d{1,2})?$/.test(text)) return undefined;
  return Number(text) <= MAX_PRICE ? text : undefined;
}

/** Escapes a value for COPY's text format. Most values need nothing. */
function copyText(value: string): string {
  if (!/[\\\t\n\r]/.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** The row's id, when its first field is a valid one. */
export function rowId(fields: string[]): number | undefined {
  return positiveInt(fields[0] as string);
}

function checkId(fields: string[], seen: IdSet): number | Rejection {
  const id = positiveInt(fields[0] as string);
  if (id === undefined) return new Rejection(`id "${fields[0]}" is not a positive integer`);
  if (seen.has(id)) return new Rejection(`duplicate id ${id}`);
  return id;
}

/** A reference to a parent row that must already be loaded (a product or a style). */
function parentRef(text: string, column: string, parents: IdSet, parentName: string): number | Rejection {
  const id = positiveInt(text);
  if (id === undefined) return new Rejection(`${column} "${text}" is not a positive integer`);
  if (!parents.has(id)) return new Rejection(`${parentName} ${id} does not exist`);
  return id;
}

function requiredText(value: string, column: string): string | Rejection {
  return value.length === 0 ? new Rejection(`${column} is empty`) : copyText(value);
}

const URL_PATTERN = /^https?:\/\/[^\s"]+$/;

/**
 * `id,parent,url,url` with quotes lost or stray anywhere (`"http://a,"http://b"`,
 * `http://a","http://b`): a URL never contains a quote and the second starts
 * with http(s)://, so with every quote dropped the line splits one way only.
 * Undefined when it does not (a URL with ",http" inside it, too few commas).
 */
function repairUrlRow(raw: string): string[] | undefined {
  const text = raw.replaceAll('"', '');
  const first = text.indexOf(',');
  const second = first === -1 ? -1 : text.indexOf(',', first + 1);
  if (second === -1) return undefined;
  const urls = text.slice(second + 1);
  const boundaries = [...urls.matchAll(/,https?:\/\//g)];
  if (boundaries.length !== 1) return undefined;
  const at = boundaries[0]!.index;
  return [text.slice(0, first), text.slice(first + 1, second), urls.slice(0, at), urls.slice(at + 1)];
}

export const TABLES: TableSpec[] = [
  {
    file: 'product', fileName: 'product.csv', table: 'products',
    header: 'id,name,slogan,description,category,default_price',
    columns: ['id', 'name', 'slogan', 'description', 'category', 'default_price'],
    fieldCount: 6,
    clean(f, _raw, _loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const name = requiredText(f[1] as string, 'name');
      if (name instanceof Rejection) return name;
      const defaultPrice = price(f[5] as string);
      if (defaultPrice === undefined) return new Rejection(`default_price "${f[5]}" is not a price`);
      return `${id}\t${name}\t${copyText(f[2] as string)}\t${copyText(f[3] as string)}\t${copyText(f[4] as string)}\t${defaultPrice}`;
    },
  },
  {
    file: 'features', fileName: 'features.csv', table: 'features',
    header: 'id,product_id,feature,value',
    columns: ['id', 'product_id', 'feature', 'value'],
    fieldCount: 4,
    clean(f, raw, loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const productId = parentRef(f[1] as string, 'product_id', loaded.products, 'product');
      if (productId instanceof Rejection) return productId;
      const feature = requiredText(f[2] as string, 'feature');
      if (feature instanceof Rejection) return feature;
      // The bare word null means SQL NULL; the quoted string "null" is a value.
      const value = (f[3] as string).trim() === 'null' && !raw.trimEnd().endsWith('"') ? '\\N' : copyText(f[3] as string);
      return `${id}\t${productId}\t${feature}\t${value}`;
    },
  },
  {
    file: 'styles', fileName: 'styles.csv', table: 'styles',
    header: 'id,productId,name,sale_price,original_price,default_style',
    columns: ['id', 'product_id', 'name', 'sale_price', 'original_price', 'is_default'],
    fieldCount: 6,
    clean(f, _raw, loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const productId = parentRef(f[1] as string, 'productId', loaded.products, 'product');
      if (productId instanceof Rejection) return productId;
      const name = requiredText(f[2] as string, 'name');
      if (name instanceof Rejection) return name;
      const saleText = (f[3] as string).trim();
      // Legacy "no sale" markers: null, empty, and 0 (a sale price of 0 is never real).
      const sale = saleText === 'null' || saleText === '' || saleText === '0' ? '\\N' : price(saleText);
      if (sale === undefined) return new Rejection(`sale_price "${saleText}" is not a price or null`);
      const original = price(f[4] as string);
      if (original === undefined) return new Rejection(`original_price "${f[4]}" is not a price`);
      const flag = (f[5] as string).trim();
      const isDefault = flag === '1' || flag === 'true' ? 't' : flag === '0' || flag === 'false' ? 'f' : undefined;
      if (isDefault === undefined) return new Rejection(`default_style "${flag}" is not 0 or 1`);
      return `${id}\t${productId}\t${name}\t${sale}\t${original}\t${isDefault}`;
    },
  },
  {
    file: 'photos', fileName: 'photos.csv', table: 'photos',
    header: 'id,styleId,url,thumbnail_url',
    columns: ['id', 'style_id', 'url', 'thumbnail_url'],
    fieldCount: 4,
    clean(f, _raw, loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const styleId = parentRef(f[1] as string, 'styleId', loaded.styles, 'style');
      if (styleId instanceof Rejection) return styleId;
      const url = f[2] as string;
      const thumbnailUrl = f[3] as string;
      if (!URL_PATTERN.test(url)) return new Rejection('url is not an http(s) URL');
      if (!URL_PATTERN.test(thumbnailUrl)) return new Rejection('thumbnail_url is not an http(s) URL');
      return `${id}\t${styleId}\t${copyText(url)}\t${copyText(thumbnailUrl)}`;
    },
    repair: repairUrlRow,
  },
  {
    file: 'skus', fileName: 'skus.csv', table: 'skus',
    header: 'id,styleId,size,quantity',
    columns: ['id', 'style_id', 'size', 'quantity'],
    fieldCount: 4,
    clean(f, _raw, loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const styleId = parentRef(f[1] as string, 'styleId', loaded.styles, 'style');
      if (styleId instanceof Rejection) return styleId;
      const size = requiredText(f[2] as string, 'size');
      if (size instanceof Rejection) return size;
      const quantityText = (f[3] as string).trim();
      if (!/^\d{1,9}$/.test(quantityText)) return new Rejection(`quantity "${quantityText}" is not a non-negative integer`);
      return `${id}\t${styleId}\t${size}\t${Number(quantityText)}`;
    },
  },
  {
    file: 'related', fileName: 'related.csv', table: 'related',
    header: 'id,current_product_id,related_product_id',
    columns: ['id', 'current_product_id', 'related_product_id'],
    fieldCount: 3,
    clean(f, _raw, loaded, seen) {
      const id = checkId(f, seen);
      if (id instanceof Rejection) return id;
      const current = parentRef(f[1] as string, 'current_product_id', loaded.products, 'product');
      if (current instanceof Rejection) return current;
      if ((f[2] as string).trim() === '0') return new Rejection('related_product_id is 0');
      const related = positiveInt(f[2] as string);
      if (related === undefined) return new Rejection(`related_product_id "${f[2]}" is not a positive integer`);
      if (!loaded.products.has(related)) return new Rejection(`related product ${related} does not exist`);
      return `${id}\t${current}\t${related}`;
    },
  },
];

export const TABLE_BY_FILE = Object.fromEntries(TABLES.map((t) => [t.file, t])) as Record<FileName, TableSpec>;
