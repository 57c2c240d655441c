/// <reference types="k6" />
// Settings every k6 script reads from the environment (k6 run -e NAME=value, or
// the process environment). Defaults fit `npm start` on http://localhost:4000.
import { EnvReader } from './env.ts';

export const PROFILES = ['smoke', 'load', 'stress', 'soak'] as const;
export type Profile = (typeof PROFILES)[number];

export interface K6Config {
  /** Server under test, without a trailing slash. */
  baseUrl: string;
  /** smoke: 1 VU; load/soak: constant arrival rate; stress: stepped arrival rate until thresholds break. */
  profile: Profile;
  /** Iterations started per second (load, soak) and the first step of stress. */
  rate: number;
  /** How long smoke, load and soak run. */
  duration: { text: string; ms: number };
  /** Ceiling on concurrent VUs for the arrival-rate profiles. */
  maxVUs: number;
  /** Validate every Nth iteration's bodies in full (status and headers are checked every time). */
  checkEvery: number;
  stress: {
    /** Arrival rate of the last step. */
    maxRate: number;
    /** Number of steps from `rate` to `maxRate`, evenly spaced. */
    steps: number;
    /** How long each step holds its rate. */
    stepDuration: { text: string; ms: number };
  };
  /** Catalogue facts given on the command line; whatever is missing is discovered from the API in setup(). */
  catalogue: { idMin?: number; idMax?: number; productCount?: number };
  /** Products per page for the *-products-list scripts. */
  pageSize: number;
  /** Where handleSummary writes a JSON summary; none when undefined. */
  summaryJson: string | undefined;
  /** The API key the writing scripts send (Authorization: Bearer); see requireApiKey. */
  apiKey: string | undefined;
}

function readConfig(env: Record<string, string | undefined>): K6Config {
  const read = new EnvReader(env);
  const profile = read.oneOf('PROFILE', 'load', PROFILES);
  const config: K6Config = {
    baseUrl: read.httpUrl('BASE_URL', 'http://localhost:4000'),
    profile,
    rate: read.integer('RATE', 100, 1, 1_000_000),
    duration: read.duration('DURATION', profile === 'soak' ? '1h' : '30s'),
    maxVUs: read.integer('MAX_VUS', 200, 1, 100_000),
    // A smoke run is about correctness: every body is validated.
    checkEvery: read.integer('CHECK_EVERY', profile === 'smoke' ? 1 : 10, 1, 1_000_000),
    stress: {
      maxRate: read.integer('MAX_RATE', 1000, 1, 1_000_000),
      steps: read.integer('STEPS', 10, 1, 100),
      stepDuration: read.duration('STEP_DURATION', '30s'),
    },
    catalogue: {
      idMin: read.optionalInteger('ID_MIN', 1, Number.MAX_SAFE_INTEGER),
      idMax: read.optionalInteger('ID_MAX', 1, Number.MAX_SAFE_INTEGER),
      productCount: read.optionalInteger('PRODUCT_COUNT', 1, Number.MAX_SAFE_INTEGER),
    },
    pageSize: read.integer('PAGE_SIZE', 20, 1, 10_000),
    summaryJson: read.raw('SUMMARY_JSON'),
    apiKey: read.raw('API_KEY'),
  };
  const { idMin, idMax } = config.catalogue;
  if (idMin !== undefined && idMax !== undefined && idMin > idMax) read.problems.push(`ID_MIN must not be above ID_MAX (got ${idMin} > ${idMax})`);
  if (profile === 'stress' && config.stress.maxRate < config.rate) read.problems.push(`MAX_RATE must be at least RATE, the first stress step (got ${config.stress.maxRate} < ${config.rate})`);
  read.finish();
  return config;
}

export const config = readConfig(__ENV);

/** For the scripts that write, at init: their API key, or an error saying how to get one (k6 exits before the run). */
export function requireApiKey(): string {
  if (config.apiKey === undefined) throw new Error('Invalid k6 settings:\n  - API_KEY must be an API key: this script writes (create one with npm run keys -- create --name k6)');
  return config.apiKey;
}
