// A database failure arrives wrapped differently depending on who saw it
// first: pg (SQLSTATE in `code`), a Node socket (errno name in `code`),
// pg-pool (a bare message), or Prisma, whose driver adapter keeps the original
// under `meta.driverAdapterError.cause`; GraphQL wraps any of them again in
// `originalError`. Classifiers look at every layer.

/** The error and everything it wraps, outermost first. */
export function* errorLayers(error: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (typeof error !== 'object' || error === null || depth > 6) return;
  const layer = error as Record<string, unknown>;
  yield layer;
  yield* errorLayers(layer.cause, depth + 1);
  yield* errorLayers(layer.originalError, depth + 1);
  const meta = layer.meta;
  if (typeof meta === 'object' && meta !== null) yield* errorLayers((meta as Record<string, unknown>).driverAdapterError, depth + 1);
}

/** True when any layer carries one of `codes` as its `code` or `originalCode`. */
export function hasErrorCode(error: unknown, codes: ReadonlySet<string>): boolean {
  for (const layer of errorLayers(error)) {
    if ((typeof layer.code === 'string' && codes.has(layer.code)) || (typeof layer.originalCode === 'string' && codes.has(layer.originalCode))) return true;
  }
  return false;
}
