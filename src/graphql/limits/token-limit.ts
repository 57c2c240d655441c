// The token limit is enforced by graphql-js while it parses (Apollo's
// parseOptions.maxTokens), so an oversized document is never turned into an
// AST: parsing stops at the first token over the limit. That error only says
// "more than N tokens"; this turns it into the limit's own code and message,
// counting the document's tokens with the lexer alone (no AST is built).
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { limitExceeded } from './limit-error.ts';

// graphql 16.15 says "more that N tokens"; accept the spelling it may be fixed to.
const PARSE_ABORTED = /^Syntax Error: Document contains more tha[nt] (\d+) tokens\. Parsing aborted\.$/;

/** Tokens graphql-js's parser counts (comments and the end of the document are not tokens); up to a lexing error. */
export function countTokens(body: string): number {
  const lexer = new Lexer(new Source(body));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // A syntax error further on: the tokens before it are already over the limit.
  }
  return count;
}

/** QUERY_TOO_MANY_TOKENS for graphql-js's "more than N tokens" parse error; undefined for any other error. */
export function tokenLimitError(error: unknown): GraphQLError | undefined {
  if (!(error instanceof GraphQLError) || !error.source) return undefined;
  const match = PARSE_ABORTED.exec(error.message);
  if (!match) return undefined;
  return limitExceeded('QUERY_TOO_MANY_TOKENS', 'token count', countTokens(error.source.body), Number(match[1]));
}
