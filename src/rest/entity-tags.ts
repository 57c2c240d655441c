// Entity tags of products (RFC 9110 §8.8.3): the strong ETag of a product's
// REST representation is its version (products.version, new at every write),
// quoted. Conditional writes send it back in If-Match; conditional reads in
// If-None-Match.
import type { ExpectedVersion } from '../catalog/writes/service.ts';
import { BadRequest } from './params.ts';

export const productETag = (version: string): string => `"${version}"`;

/** One entity tag: optionally weak (W/), then a quoted string of etagc characters. */
const ENTITY_TAG = '(W/)?"([\\x21\\x23-\\x7e\\x80-\\xff]*)"';
/**
 * A whole If-Match value (RFC 9110 13.1.1): "*", or a comma-separated list of
 * entity tags, where empty list elements are allowed and ignored (the
 * recipient's list syntax of 5.6.1.2: [ element ] *( OWS "," OWS [ element ] )).
 * The OpenAPI document gives this pattern to the header (src/rest/schemas.ts).
 */
export const IF_MATCH_PATTERN = `^[ \\t]*(\\*|(${ENTITY_TAG.replace(/\(/g, '(?:')})?([ \\t]*,([ \\t]*${ENTITY_TAG.replace(/\(/g, '(?:')})?)*)[ \\t]*$`;
const IF_MATCH = new RegExp(IF_MATCH_PATTERN);
const TAGS = new RegExp(ENTITY_TAG, 'g');

/**
 * The versions an If-Match header accepts: '*' (any existing product), or the
 * strong tags it lists. Weak tags never match under If-Match's strong
 * comparison, so they are dropped (a list of only weak tags matches nothing).
 * Undefined when the header is absent; a malformed one is a 400.
 */
export function parseIfMatch(header: string | string[] | undefined): ExpectedVersion | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!IF_MATCH.test(text)) throw new BadRequest('If-Match: must be "*" or a list of entity tags as ETag gives them, e.g. "1234"');
  if (text.trim() === '*') return '*';
  const versions: string[] = [];
  for (const match of text.matchAll(TAGS)) if (!match[1]) versions.push(match[2]!);
  return versions;
}

/**
 * The versions an If-None-Match header on a write excludes (RFC 9110 13.1.2:
 * weak comparison, so W/"7" excludes version 7 too), or '*' (any existing
 * product). Undefined when absent; a malformed one is a 400.
 */
export function parseIfNoneMatch(header: string | string[] | undefined): ExpectedVersion | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!IF_MATCH.test(text)) throw new BadRequest('If-None-Match: must be "*" or a list of entity tags as ETag gives them, e.g. "1234"');
  if (text.trim() === '*') return '*';
  return [...text.matchAll(TAGS)].map((match) => match[2]!);
}
