// The bounds docs/sidecar.md states for the sync, as arithmetic: how many
// requests a first copy and a pass take, and how long a run of requests may
// take under the budget. test/sidecar/first-copy.test.ts checks a sync against
// them and bench/sidecar-fill.ts prints them, so the documented bound is the
// tested one.
import { SLACK_MS } from '../legacy/request-budget.ts';
import { probePage, REQUESTS_PER_PRODUCT } from './sync-worker.ts';

/** Allowance per request for the sidecar's own turnaround: from an answer to the start of the next request waiting for it. */
export const TURNAROUND_MS = 10;
/** Allowance at the end: the last product's transaction, the incomplete products it completes. */
export const SETTLE_MS = 1000;

/** The least time per request the budget allows on average: LEGACY_MAX_RPS starts per 1 s plus the slack. */
export function budgetMsPerRequest(maxRps: number): number {
  return (1000 + SLACK_MS) / maxRps;
}

/**
 * How long requests one at a time (LEGACY_MAX_CONCURRENCY=1, or a service
 * that answers one at a time) take at most, given each one's answer time at
 * the legacy service: each takes the longer of the budget's share and its
 * answer plus the turnaround. (By induction on the starts: the n-th starts no
 * later than the sum of these over the ones before it, as long as the sync
 * always has a request waiting, which its workers see to.)
 */
export function serialMs(answerMs: readonly number[], maxRps: number): number {
  const share = budgetMsPerRequest(maxRps);
  return answerMs.reduce((sum, ms) => sum + Math.max(share, ms + TURNAROUND_MS), 0);
}

/** Requests of a first copy of n products into an empty database: 3 per product, and the listing pages up to the first short one. */
export function fillRequests(products: number, pageSize: number): number {
  return REQUESTS_PER_PRODUCT * products + Math.floor(products / pageSize) + 1;
}

/**
 * A round once the copy is complete and nobody asks for products: the probe
 * for new ones (the listing page holding the highest id, and the next one
 * only when that page is full) and the re-verified products the rest of
 * R × T allows.
 */
export function steadyRound(products: number, pageSize: number, maxRps: number, intervalMs: number): { probe: number; verified: number; requests: number } {
  const budget = Math.max(REQUESTS_PER_PRODUCT, Math.floor((maxRps * intervalMs) / 1000));
  const { count } = probePage(products, pageSize);
  const probe = products > 0 && products % count === 0 ? 2 : 1;
  const verified = Math.floor((budget - probe) / REQUESTS_PER_PRODUCT);
  return { probe, verified, requests: probe + REQUESTS_PER_PRODUCT * verified };
}

/**
 * Requests between a change of a product nobody asks for and the copy
 * showing it, at most: the change lands just after the product was read, so
 * it is read again one pass later, and the round under way finishes first.
 */
export function stalenessRequests(products: number, pageSize: number, maxRps: number, intervalMs: number): number {
  const round = steadyRound(products, pageSize, maxRps, intervalMs);
  return (Math.ceil(products / Math.max(1, round.verified)) + 1) * round.requests;
}
