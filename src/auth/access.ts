// Who is calling and what they may spend: the protocol-neutral half of API
// keys and rate limits. REST (rest-guard.ts) and GraphQL
// (src/graphql/access-plugin.ts) turn its answers into their own responses.
import type { IncomingHttpHeaders } from 'node:http';
import { rateLimitHeaders } from '../ratelimit/headers.ts';
import type { RateLimitDecision, RateLimiter } from '../ratelimit/limiter.ts';
import { MemoryRateLimiter } from '../ratelimit/memory-limiter.ts';
import { type ActiveApiKey, isWellFormedApiKey } from './api-keys.ts';
import { API_KEY_BODY_LENGTH, API_KEY_MARK } from '../util/api-key-format.ts';
import { CONFLICTING_KEYS, presentedKey } from './credentials.ts';
import type { ApiKeyResolver } from './key-resolver.ts';

export interface Caller {
  /** The valid key the request presented; undefined for an anonymous request. */
  key: ActiveApiKey | undefined;
  /** The client's address (from X-Forwarded-For only behind trusted proxies, TRUST_PROXY). */
  address: string;
}

const REALM = 'Bearer realm="catalogue"';
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;
/** What a refused key costs its address's anonymous budget, and a key lookup its address's key-check budget. */
export const PRESENTED_KEY_COST = 1;

/** A refusal before the request is served; `decision` when the address was charged for it. */
abstract class IdentifyRefusal extends Error {
  readonly decision: RateLimitDecision | undefined;
  constructor(message: string, decision: RateLimitDecision | undefined) {
    super(message);
    this.decision = decision;
  }
}

/** 401: no key where one is needed, or a key that is not (or no longer) valid. */
export class Unauthenticated extends IdentifyRefusal {
  /** The WWW-Authenticate header to answer with. */
  readonly challenge: string;
  constructor(message: string, challenge: string, decision?: RateLimitDecision) {
    super(message, decision);
    this.challenge = challenge;
  }
}

/** 400: `Authorization: Bearer` and `x-api-key` carry different keys (the same key in both is fine). */
export class ConflictingKeys extends IdentifyRefusal {
  constructor() {
    super('Authorization (Bearer) and x-api-key carry different API keys: send one key, in either header or the same in both', undefined);
  }
}

/** 503: a presented key could not be looked up (Postgres unreachable); the caller may retry. */
export class KeyCheckUnavailable extends IdentifyRefusal {
  constructor() {
    super('the API key cannot be checked right now; try again shortly', undefined);
  }
}

/**
 * 429 for a presented key, before any lookup: the address has spent its
 * anonymous budget on refused keys, or its key-check budget on lookups.
 */
export class AddressRateLimited extends IdentifyRefusal {
  readonly cost = PRESENTED_KEY_COST;
  declare readonly decision: RateLimitDecision;
  constructor(message: string, decision: RateLimitDecision) {
    super(message, decision);
  }
}

/** A refusal before the request is served: 400, 401, 429 or 503, with the headers to send. */
export type IdentifyFailure = ConflictingKeys | Unauthenticated | KeyCheckUnavailable | AddressRateLimited;

export function isIdentifyFailure(error: unknown): error is IdentifyFailure {
  return error instanceof IdentifyRefusal;
}

/** The GraphQL error code of a refusal (`extensions.code`), for the transports that answer in GraphQL's shape. */
export type RefusalCode = 'BAD_REQUEST' | 'UNAUTHENTICATED' | 'RATE_LIMITED' | 'SERVICE_UNAVAILABLE';

export function refusal(error: IdentifyFailure): { status: number; code: RefusalCode; headers: Record<string, string> } {
  const headers: Record<string, string> = error.decision ? Object.fromEntries(rateLimitHeaders(error.decision)) : {};
  if (error instanceof ConflictingKeys) return { status: 400, code: 'BAD_REQUEST', headers };
  if (error instanceof AddressRateLimited) return { status: 429, code: 'RATE_LIMITED', headers };
  if (error instanceof Unauthenticated) return { status: 401, code: 'UNAUTHENTICATED', headers: { ...headers, 'www-authenticate': error.challenge } };
  return { status: 503, code: 'SERVICE_UNAVAILABLE', headers: { ...headers, 'retry-after': '1' } };
}

export type Access = 'read' | 'write';

export interface AccessOptions {
  resolver: ApiKeyResolver;
  /** Undefined when rate limits are off. */
  limiter: RateLimiter | undefined;
  readsNeedKey: boolean;
  anonymousPerMinute: number;
  keyPerMinute: number;
  /** Per address: lookups of keys this instance does not know as valid (apart from the anonymous budget, which is large by default). */
  keyChecksPerMinute: number;
  /** A limiter failure (Redis down or slow: the request is served unlimited), or a key lookup failure. */
  warn: (message: string, error: unknown) => void;
}

export class AccessControl {
  private readonly options: AccessOptions;
  /** Where refused keys are counted while the shared limiter cannot answer. */
  private readonly local = new MemoryRateLimiter();
  constructor(options: AccessOptions) {
    this.options = options;
  }

  get rateLimited(): boolean {
    return this.options.limiter !== undefined;
  }

  /**
   * The caller behind these headers. A presented key that is unknown, revoked
   * or malformed is refused (Unauthenticated), one that cannot be looked up
   * too (KeyCheckUnavailable): never served as anonymous, never a 500.
   *
   * Keys that are not valid cannot bypass the address's budget, and valid
   * ones are never refused because of wrong ones:
   * - a malformed key is refused without hashing or any lookup;
   * - a well-formed key that this instance does not know as valid (not valid
   *   at its last lookup, and not in the negative cache) waits for the next
   *   scan of every active key (key-resolver.ts: at most ten a second,
   *   whatever the number of keys presented), then is decided: a valid key
   *   (new, or unseen since a restart) is served, spending nothing of its
   *   address's budgets. Only with more active keys than API keys the cache
   *   holds is it looked up on its own, within the address's key-check
   *   budget (RATE_LIMIT_KEY_CHECKS_PER_MINUTE): past it, 429 without a lookup;
   * - every refused key (malformed, unknown, revoked; from the cache too)
   *   costs 1 of the address's anonymous budget: once that is spent, 429.
   * These two budgets are counted in process while Redis cannot answer. So a
   * storm of random keys from one address costs Postgres a few scans a
   * second, gets the anonymous budget of 401s, then 429s.
   */
  /**
   * The caller of a request that presents no key, at once (the hooks skip a
   * promise for it); undefined when a key is presented: identify() checks it.
   */
  callerWithoutKey(headers: IncomingHttpHeaders, address: string): Caller | undefined {
    return presentedKey(headers) === undefined ? { key: undefined, address } : undefined;
  }

  async identify(headers: IncomingHttpHeaders, address: string): Promise<Caller> {
    const secret = presentedKey(headers);
    if (secret === undefined) return { key: undefined, address };
    if (secret === CONFLICTING_KEYS) throw new ConflictingKeys();
    if (!isWellFormedApiKey(secret)) {
      const decision = await this.chargeRefusedKey(address);
      throw new Unauthenticated(`the API key is not valid (malformed: a key is "${API_KEY_MARK}" and ${API_KEY_BODY_LENGTH} base64url characters)`, INVALID_TOKEN, decision);
    }
    const check = this.options.resolver.check(secret);
    let key: ActiveApiKey | undefined;
    if (check.cached) {
      key = check.key;
    } else {
      try {
        key = await check.lookup(() => this.chargeKeyCheck(address));
      } catch (error) {
        if (isIdentifyFailure(error)) throw error;
        this.options.warn('could not look up an API key (Postgres unavailable?)', error);
        throw new KeyCheckUnavailable();
      }
    }
    if (key) return { key, address };
    const decision = await this.chargeRefusedKey(address);
    throw new Unauthenticated('the API key is not valid (unknown or revoked)', INVALID_TOKEN, decision);
  }

  /**
   * Whether the key these headers present is still valid, as a request
   * presenting it now would find (the cache for API_KEY_CACHE_SECONDS, then
   * Postgres): false once it is revoked or unknown; undefined when there is
   * no key or it cannot be checked right now (Postgres down). Charges nothing:
   * for connections that already proved the key once (live subscriptions).
   */
  async stillValid(headers: IncomingHttpHeaders): Promise<boolean | undefined> {
    const secret = presentedKey(headers);
    if (secret === undefined || secret === CONFLICTING_KEYS) return undefined;
    if (!isWellFormedApiKey(secret)) return false;
    const check = this.options.resolver.check(secret);
    if (check.cached) return check.key !== undefined;
    try {
      return (await check.lookup()) !== undefined;
    } catch (error) {
      this.options.warn('could not look up an API key (Postgres unavailable?)', error);
      return undefined;
    }
  }

  /** A refused key costs its address's anonymous budget: AddressRateLimited (429) once that is spent. */
  private async chargeRefusedKey(address: string): Promise<RateLimitDecision | undefined> {
    const anonymous: Caller = { key: undefined, address };
    const decision = await this.takeForRefusal(`address:${address}`, PRESENTED_KEY_COST, this.limitOf(anonymous));
    if (decision && !decision.allowed) throw new AddressRateLimited(rateLimitMessage(anonymous, decision, PRESENTED_KEY_COST), decision);
    return decision;
  }

  /** A lookup of a key not known as valid costs its address's key-check budget: AddressRateLimited (429) once that is spent. */
  private async chargeKeyCheck(address: string): Promise<void> {
    const decision = await this.takeForRefusal(`keycheck:${address}`, PRESENTED_KEY_COST, this.options.keyChecksPerMinute);
    if (!decision || decision.allowed) return;
    throw new AddressRateLimited(
      `rate limit exceeded: ${decision.limit} API key checks per minute per address (this is ${address}): keys this server does not know as valid are looked up at most that often; retry in ${decision.retryAfterSeconds} s`,
      decision,
    );
  }

  /** Refuses an anonymous caller what only key holders may do (writes; reads with API_KEYS_FOR_READS=required). */
  /** Whether the caller may read or write (what require() checks, without throwing). */
  allows(caller: Caller, access: Access): boolean {
    return caller.key !== undefined || (access === 'read' && !this.options.readsNeedKey);
  }

  require(caller: Caller, access: Access): void {
    if (this.allows(caller, access)) return;
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
  spend(caller: Caller, cost: number): Promise<RateLimitDecision | undefined> {
    const bucket = caller.key ? `key:${caller.key.id}` : `address:${caller.address}`;
    return this.take(bucket, cost, this.limitOf(caller));
  }

  /**
   * What refused and unknown keys spend: from the shared limiter, or, while
   * it cannot answer (Redis down or slow), from this process's own buckets.
   * Served requests fail open; wrong keys never do, or a storm of random keys
   * while Redis is down would get unlimited lookups and no 429.
   */
  private async takeForRefusal(bucket: string, cost: number, limit: number): Promise<RateLimitDecision | undefined> {
    const { limiter } = this.options;
    if (!limiter) return undefined;
    try {
      return await limiter.take(bucket, cost, limit);
    } catch (error) {
      this.options.warn('rate limiter unavailable (Redis down or slow): refused API keys are counted in this process', error);
      return this.local.take(bucket, cost, limit);
    }
  }

  private async take(bucket: string, cost: number, limit: number): Promise<RateLimitDecision | undefined> {
    const { limiter } = this.options;
    if (!limiter) return undefined;
    try {
      return await limiter.take(bucket, cost, limit);
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
