// Settings every scenario reads from the environment, with defaults that fit
// the sample catalogue on http://localhost:4000.
export const BASE_URL = (__ENV.BASE_URL ?? 'http://localhost:4000').replace(/\/$/, '');
/** Requests per second for constant-arrival-rate runs. */
export const RATE = Number(__ENV.RATE ?? 100);
export const DURATION = __ENV.DURATION ?? '30s';
/** Random product ids are drawn from [ID_MIN, ID_MAX]. */
export const ID_MIN = Number(__ENV.ID_MIN ?? 1);
export const ID_MAX = Number(__ENV.ID_MAX ?? 10_000);
export const MAX_VUS = Number(__ENV.MAX_VUS ?? 200);

export function randomId(): number {
  return ID_MIN + Math.floor(Math.random() * (ID_MAX - ID_MIN + 1));
}

/** A constant-arrival-rate scenario: RATE requests per second for DURATION. */
export function constantRate() {
  return {
    executor: 'constant-arrival-rate' as const,
    rate: RATE,
    timeUnit: '1s',
    duration: DURATION,
    preAllocatedVUs: Math.min(MAX_VUS, Math.max(10, Math.ceil(RATE / 20))),
    maxVUs: MAX_VUS,
  };
}

/**
 * Validate every Nth response body in full (parse JSON, check content); every
 * response still has its status and headers checked. At thousands of requests
 * per second a full parse of each body costs the load generator as much CPU as
 * the server spends answering, on a machine they share.
 */
export const CHECK_EVERY = Math.max(1, Number(__ENV.CHECK_EVERY ?? 10));
