// A product's strong ETag is its version, quoted (`"123"`). No k6 or Node
// imports: the k6 scripts and the topology bench's read-your-writes check
// (bench/lib/topology/read-your-writes.ts) both read it.

export const ETAG = /^"(\d+)"$/;

/** The version in a product's ETag header (`"123"`), or undefined when there is none. */
export function etagVersion(etag: string | null | undefined): number | undefined {
  const version = ETAG.exec(etag ?? '')?.[1];
  return version === undefined ? undefined : Number(version);
}
