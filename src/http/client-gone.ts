// A request whose client went away before it finished sending it (the body
// timed out and node:http answered 408 and closed the socket, or the client
// hung up). Reading its body fails with a socket error ("aborted",
// ECONNRESET) that looks like a lost database connection to the classifier
// in src/db/failures/unavailable.ts: it is the client's doing, nothing to answer and
// nothing to alert on.
import type { FastifyRequest } from 'fastify';

export function clientGone(request: FastifyRequest): boolean {
  // Not `destroyed`: a request stream is destroyed once fully read, too.
  return request.raw.readableAborted;
}

export const CLIENT_GONE_MESSAGE = 'the client did not finish sending the request';
