// Who is calling and what they may spend: the protocol-neutral half of API
// keys and rate limits. REST (rest-guard.ts) and GraphQL
// (src/graphql/access-plugin.ts) turn its answers into their own responses.
import type { IncomingHttpHeaders } from 'node:http';
import type { RateLimitDecision, RateLimiter } from '../ratelimit/limiter.ts';
import type { ActiveApiKey } from './api-keys.ts';
import { presentedKey } from './credentials.ts';
import type { ApiKeyResolver } from './key-resolver.ts';

export interface Caller {
  /** The valid key the request presented; undefined for an anonymous request. */
  key: ActiveApiKey | undefined;
  /** The client's address (from X-Forwarded-For only behind trusted proxies, TRUST_PROXY). */
  address: string;
}

const REALM = 'Bearer realm="catalogue"';

/** 401: no key where one is needed, or a key that is not (or no longer) valid. */
export class Unauthenticated extends Error {
  /** The WWW-Authenticate header to answer with. */
  readonly challenge: string;
  constructor(message: string, challenge: string) {
    super(message);
    this.challenge = challenge;
  }
}

/** 503: a presented key could not be looked up (Postgres unreachable); the caller may retry. */
export class KeyCheckUnavailable extends Error {
  constructor() {
    super('the API key cannot be checked right now; try again shortly');
  }
}

/** A refusal before the request is served: 401 or 503, with the headers to send. */
export type IdentifyFailure = Unauthenticated | KeyCheckUnavailable;

export function refusal(error: IdentifyFailure): { status: number; headers: Record<string, string> } {
  return error instanceof Unauthenticated
    ? { status: 401, headers: { 'www-authenticate': error.challenge } }
    : { status: 503, headers: { 'retry-after': '1' } };
}

export type Access = 'read' | 'write';

export interface AccessOptions {
  resolver: ApiKeyResolver;
  /** Undefined when rate limits are off. */
  limiter: RateLimiter | undefined;
  readsNeedKey: boolean;
  anonymousPerMinute: number;
  keyPerMinute: number;
  /** A limiter failure (Redis down or slow: the request is served unlimited), or a key lookup failure. */
  warn: (message: string, error: unknown) => void;
}

export class AccessControl {
  private readonly options: AccessOptions;
  constructor(options: AccessOptions) {
    this.options = options;
  }

  get rateLimited(): boolean {
    return this.options.limiter !== undefined;
  }

  /**
   * The caller behind these headers. A presented key that is unknown or
   * revoked is refused (Unauthenticated), one that cannot be looked up too
   * (KeyCheckUnavailable): never served as anonymous, never a 500.
   */
  async identify(headers: IncomingHttpHeaders, address: string): Promise<Caller> {
    const secret = presentedKey(headers);
    if (secret === undefined) return { key: undefined, address };
    let key;
    try {
      key = await this.options.resolver.resolve(secret);
    } catch (error) {
      this.options.warn('could not look up an API key (Postgres unavailable?)', error);
      throw new KeyCheckUnavailable();
    }
    if (!key) throw new Unauthenticated('the API key is not valid (unknown or revoked)', `${REALM}, error="invalid_token"`);
    return { key, address };
  }

  /** Refuses an anonymous caller what only key holders may do (writes; reads with API_KEYS_FOR_READS=required). */
  require(caller: Caller, access: Access): void {
    if (caller.key || (access === 'read' && !this.options.readsNeedKey)) return;
    throw new Unauthenticated(`${access === 'write' ? 'writes need' : 'this server requires'} an API key: send it as "Authorization: Bearer <key>" or "x-api-key: <key>"`, REALM);
  }

  /** The caller's budget per minute. */
  limitOf(caller: Caller): number {
    return caller.key ? caller.key.ratePerMinute ?? this.options.keyPerMinute : this.options.anonymousPerMinute;
  }

  /**
   * Takes `cost` from the caller's budget. Undefined when nothing was counted:
   * rate limits are off, or the limiter failed (served anyway: fail open).
   */
  async spend(caller: Caller, cost: number): Promise<RateLimitDecision | undefined> {
    const { limiter } = this.options;
    if (!limiter) return undefined;
    const bucket = caller.key ? `key:${caller.key.id}` : `address:${caller.address}`;
    try {
      return await limiter.take(bucket, cost, this.limitOf(caller));
    } catch (error) {
      this.options.warn('rate limiter unavailable (Redis down or slow): serving without a limit', error);
      return undefined;
    }
  }
}

/** Whose budget this is, for messages. */
function budgetOwner(caller: Caller): string {
  return caller.key ? `API key ${caller.key.prefix} ("${caller.key.name}")` : `anonymous clients (per address; this is ${caller.address})`;
}

/** Why a request was refused, naming the limit. */
export function rateLimitMessage(caller: Caller, decision: RateLimitDecision, cost: number): string {
  const budget = `${decision.limit} per minute for ${budgetOwner(caller)}`;
  if (cost > decision.limit) {
    return `rate limit: this request costs ${cost}, more than the whole budget of ${budget}; it can never run with this key: simplify the operation or use a key with a higher limit`;
  }
  return `rate limit exceeded: ${budget}; this request costs ${cost} and ${decision.remaining} is left; retry in ${decision.retryAfterSeconds} s`;
}
