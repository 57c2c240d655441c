// What a GraphQL request ran, for its completion log line and the
// graphql_operation_* metrics: filled in by an Apollo plugin, read when the
// HTTP response is done (src/observability/plugin.ts), so cache hits, errors
// and executions are all measured the same way, end to end.
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyRequest } from 'fastify';

export interface OperationRecord {
  /** False until Apollo resolved the operation (parse, validation or APQ lookup failed). */
  resolved: boolean;
  /** The operation's name in the document; undefined for an anonymous operation. */
  name: string | undefined;
  /** query, mutation or subscription. */
  type: string | undefined;
  /** GraphQL errors in the response (client and internal). */
  errors: number;
  /** The document's SHA-256 (as persisted queries name it), once resolved: its trace's graphql.document.hash. */
  hash?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for GraphQL requests (see recordOperation). */
    graphqlOperation: OperationRecord | null;
  }
}

/** Label values for requests that never reached a runnable operation. */
export const INVALID_OPERATION = 'invalid';
export const ANONYMOUS_OPERATION = 'anonymous';

/** A fresh record for a GraphQL request, kept on the request for its completion. */
export function recordOperation(request: FastifyRequest): OperationRecord {
  const record: OperationRecord = { resolved: false, name: undefined, type: undefined, errors: 0 };
  request.graphqlOperation = record;
  return record;
}

/** Notes the operation a request resolved to (the GraphQL pipeline's metrics stage: src/graphql/stages.ts). */
export function noteResolved(record: OperationRecord, operation: { name?: { value: string } | undefined; operation: string } | undefined): void {
  if (!operation) return;
  record.resolved = true;
  // Only names from a parsed document: never a client's free-form operationName.
  record.name = operation.name?.value;
  record.type = operation.operation;
}

/** Counts a request's errors in its operation record as Apollo meets them (the operation itself is noted by noteResolved). */
export function operationRecordPlugin<Context extends { operation: OperationRecord }>(): ApolloServerPlugin<Context> {
  return {
    async requestDidStart({ contextValue }) {
      const record = contextValue.operation;
      return {
        async didEncounterErrors({ errors }) {
          record.errors += errors.length;
        },
      };
    },
    // An error thrown outside any field (a plugin's): Apollo answers 500 without calling didEncounterErrors.
    async unexpectedErrorProcessingRequest({ requestContext }) {
      requestContext.contextValue.operation.errors += 1;
    },
  };
}
