// What a GraphQL HTTP request asks to run, read the way Apollo Server reads it
// (its runHttpQuery), for the paths that answer known operations before
// Apollo (persisted-hits.ts, direct-execution.ts). Only the plain shapes are
// read: anything Apollo would refuse, or handle in a way of its own (an APQ
// registration, a batch, a string where an object belongs), is undefined here
// and goes to Apollo.

export interface SentOperation {
  /** The document's text, when sent (POST, or GET with `query`). */
  text: string | undefined;
  /** The document's hash, when sent instead of the text (a persisted query by hash only). */
  hash: string | undefined;
  /** As sent; undefined when absent. */
  operationName: string | undefined;
  variables: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/**
 * `extensions` exactly as Apollo Client's persisted-queries link writes it
 * (version 4 names itself first, in `clientLibrary`): its hash is read
 * without parsing the JSON (JSON.parse of it was 3% of a persisted hit's
 * CPU). Any other spelling is parsed. The names' strings hold no quote,
 * backslash or control character, so they are JSON strings as they stand.
 */
const APOLLO_CLIENT_EXTENSIONS = /^\{(?:"clientLibrary":\{"name":"[^"\\\x00-\x1f]*","version":"[^"\\\x00-\x1f]*"\},)?"persistedQuery":\{"version":1,"sha256Hash":"([0-9a-f]{64})"\}\}$/;

/** The hash of GET's `extensions` text, when it holds a version 1 persisted query (throws when it is not JSON). */
function persistedHashOfText(extensions: string | undefined): string | undefined {
  if (extensions === undefined) return undefined;
  return APOLLO_CLIENT_EXTENSIONS.exec(extensions)?.[1] ?? persistedHash(JSON.parse(extensions));
}

/** The document hash of `extensions` holding a version 1 persisted query (and nothing Apollo reads otherwise). */
function persistedHash(extensions: unknown): string | undefined {
  const persisted = isRecord(extensions) ? extensions.persistedQuery : undefined;
  if (!isRecord(persisted) || persisted.version !== 1 || typeof persisted.sha256Hash !== 'string') return undefined;
  return persisted.sha256Hash;
}

/** A POST body with the document's text, no extensions, and variables as an object (or none). */
export function sentByPost(body: unknown): SentOperation | undefined {
  if (!isRecord(body) || typeof body.query !== 'string' || body.query === '') return undefined;
  const { query, operationName, variables, extensions } = body;
  if (extensions !== undefined && extensions !== null) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  return { text: query, hash: undefined, operationName: operationName ?? undefined, variables: variables ?? {} };
}

/**
 * GET parameters (each at most once, as Fastify's query parser gives them):
 * the document's text without extensions, or a persisted query by hash only.
 */
export function sentByGet(query: Record<string, unknown>): SentOperation | undefined {
  const { operationName, variables, extensions } = query;
  if (operationName !== undefined && typeof operationName !== 'string') return undefined;
  if (variables !== undefined && typeof variables !== 'string') return undefined;
  if (extensions !== undefined && typeof extensions !== 'string') return undefined;
  const text = query.query;
  if (text !== undefined && (typeof text !== 'string' || text === '' || extensions !== undefined)) return undefined;
  try {
    const hash = text === undefined ? persistedHashOfText(extensions) : undefined;
    if (text === undefined && hash === undefined) return undefined;
    const parsed: unknown = variables === undefined ? {} : JSON.parse(variables);
    if (!isRecord(parsed)) return undefined;
    return { text, hash, operationName, variables: parsed };
  } catch {
    return undefined;
  }
}
