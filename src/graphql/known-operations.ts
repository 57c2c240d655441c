// The queries Apollo has already run here: they passed its validation, the
// limits on their shape and (with TRUSTED_DOCUMENTS) the allowlist. What
// Apollo's pipeline would work out again for each request (the document's
// hash, the operation, its cache policy, and its cost in rate-limit units when
// that does not depend on the variables) is kept here, so that
// persisted-hits.ts can answer a cached one and direct-execution.ts can run one
// without the pipeline. What still depends on the request (the caller's access
// and budget, the variables' values and what they cost, the capped arguments
// they give, the Accept header) is checked by those, per request, with the
// same functions as Apollo's plugins (unitsFor).
import type { ApolloServerPlugin } from '@apollo/server';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { type CachePolicy, cachePolicy } from './cache-hints.ts';
import type { GraphQLContext } from './context.ts';
import { costUnits, knownFixedCost } from './cost.ts';
import { knownUncapped } from './limits/argument-caps.ts';
import { type VariableLimits, variableLimits } from './limits/limits-plugin.ts';

/** Distinct (hash, operation name) pairs remembered; the oldest is forgotten first. */
const MAX_KNOWN = 1000;

export interface KnownQuery {
  /** The document's sha256 (Apollo's queryHash) and the parsed, validated document. */
  hash: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  /** The operation's name as Apollo resolved it (the compiled query's key). */
  operationName: string | null;
  /**
   * Rate-limit units it costs (its cost over RATE_LIMIT_GRAPHQL_COST_UNIT, at
   * least 1) when neither they nor its capped arguments depend on the
   * variables; undefined when both are worked out per request (unitsFor).
   */
  fixedUnits: number | undefined;
  policy: CachePolicy;
}

/** The limits a request's variables can break, and what a rate-limit unit is worth in cost points. */
export interface RequestLimits extends VariableLimits {
  costUnit: number;
}

export class KnownOperations {
  private readonly known = new Map<string, KnownQuery>();
  /** Document text → its hash, for requests that send the text (POST, GET with `query`). */
  private readonly hashes = new Map<string, string>();
  private readonly limits: RequestLimits;

  constructor(limits: RequestLimits) {
    this.limits = limits;
  }

  /**
   * What a request of `query` with these variables (as sent) costs in
   * rate-limit units; undefined when a capped argument or the cost limit
   * refuses them (Apollo answers it then, and words the error).
   */
  unitsFor(schema: GraphQLSchema, query: KnownQuery, variables: Record<string, unknown> | undefined): number | undefined {
    if (query.fixedUnits !== undefined) return query.fixedUnits;
    const checked = variableLimits(schema, query.document, query.operation, query.operationName, variables, this.limits);
    return 'refusal' in checked ? undefined : costUnits(checked.cost, this.limits.costUnit);
  }

  /** The known query a request names by document hash and operationName (as sent; undefined for none). */
  get(hash: string, operationName: string | undefined): KnownQuery | undefined {
    return this.known.get(`${hash}:${operationName ?? ''}`);
  }

  /** The hash of a document text Apollo has run (undefined for any other text). */
  hashOf(text: string): string | undefined {
    return this.hashes.get(text);
  }

  /**
   * The Apollo plugin that learns them. It listens in responseForOperation,
   * which Apollo calls only once every didResolveOperation hook (the limits,
   * trusted documents, access and rate limit) has passed, and before the
   * response cache's: it must come before responseCachePlugin in the list.
   */
  plugin(schema: GraphQLSchema): ApolloServerPlugin<GraphQLContext> {
    return {
      requestDidStart: async () => ({
        responseForOperation: async ({ document, operation, operationName, queryHash, request, source }) => {
          // Queries (sent by hash or with their text: the hash is the text's).
          if (operation?.operation !== 'query' || queryHash === undefined || source === undefined) return null;
          const key = `${queryHash}:${request.operationName ?? ''}`;
          if (this.known.has(key)) return null;
          const cost = knownFixedCost(schema, document, operationName);
          const fixed = cost !== undefined && knownUncapped(schema, operation);
          if (this.known.size >= MAX_KNOWN) this.known.delete(this.known.keys().next().value as string);
          if (this.hashes.size >= MAX_KNOWN) this.hashes.delete(this.hashes.keys().next().value as string);
          this.known.set(key, {
            hash: queryHash,
            document,
            operation,
            operationName,
            fixedUnits: fixed ? costUnits(cost, this.limits.costUnit) : undefined,
            policy: cachePolicy(schema, document, operationName ?? undefined),
          });
          this.hashes.set(source, queryHash);
          return null;
        },
      }),
    };
  }
}
