// Trusted documents: an optional mode (TRUSTED_DOCUMENTS=on) in which the
// server runs only the operations in the manifest graphql-codegen writes
// (src/generated/graphql/operations/persisted-documents.json, `sha256:<hash>`
// → document). Clients may send the document, or only its id in the APQ
// extension (`extensions.persistedQuery.sha256Hash`, without `query`).
// Anything else gets a 400 that says why. Off by default: the IDE and ad-hoc clients need arbitrary queries.
import fs from 'node:fs';
import path from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import type { GraphQLContext } from './context.ts';

export const DEFAULT_MANIFEST = path.resolve(import.meta.dirname, '../generated/graphql/operations/persisted-documents.json');

/** hex sha256 → document text. */
export function loadTrustedDocuments(file = DEFAULT_MANIFEST): Map<string, string> {
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
  return new Map(Object.entries(manifest).map(([id, text]) => [id.replace(/^sha256:/, ''), text]));
}

/** The refusal of a document the manifest does not list (a 400). */
export function notTrusted(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'OPERATION_NOT_TRUSTED', http: { status: 400 } } });
}

/**
 * Apollo's part of trusted documents: a listed id sent alone gets its text
 * from the manifest, for Apollo to parse. The check that only listed
 * documents run is a stage of every request (stages.ts).
 */
export function trustedDocumentsPlugin(documents: Map<string, string>): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request }) {
      const persisted = request.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined;
      const id = typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
      // A listed id alone is enough: the manifest supplies the text.
      if (!request.query && id !== undefined && documents.has(id)) request.query = documents.get(id);
    },
  };
}
