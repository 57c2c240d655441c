// Shared by the fuzz tests (test/fuzz/): how many random inputs to try and
// from which seed, what an answer to bad input must never contain, and how a
// failing exchange is reported.
import fc, { type Parameters } from 'fast-check';
import { expect } from 'vitest';
import type { RawRequest, RawResponse } from './raw-http.ts';

/** The seed CI uses: the same inputs on every run, so a failure reproduces. */
const DEFAULT_FUZZ_SEED = 20261121;

function envInteger(name: string, min: number, max: number): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

/**
 * fast-check parameters of one property: `defaultRuns` inputs from the fixed
 * seed, unless FUZZ_SEED (another seed) or FUZZ_RUNS (inputs per property) say
 * otherwise. A failure report names the seed and path to replay it.
 */
function fuzzParameters<T>(defaultRuns: number): Parameters<T> {
  return {
    seed: envInteger('FUZZ_SEED', -(2 ** 31), 2 ** 31 - 1) ?? DEFAULT_FUZZ_SEED,
    numRuns: envInteger('FUZZ_RUNS', 1, 1_000_000) ?? defaultRuns,
  };
}

/** Runs `check` on random `inputs` (see fuzzParameters); a failure is shrunk to a small counterexample. */
export async function fuzz<T>(inputs: fc.Arbitrary<T>, defaultRuns: number, check: (input: T) => Promise<void>): Promise<void> {
  await fc.assert(fc.asyncProperty(inputs, check), fuzzParameters<[T]>(defaultRuns));
}

/** Internals an answer must never show: stacks, file paths, SQL, database and driver messages. */
const LEAKS: readonly RegExp[] = [
  /\bat (?:async )?[\w.<>$[\] ]+ \(?(?:file:|node:|\/)[^)]*:\d+:\d+\)?/, // a stack frame
  /stacktrace/i,
  /node_modules|\/src\/|\/work\/|\/tmp\/|\.ts:\d+/, // file paths
  /prisma/i,
  /\b(?:SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*\b(?:FROM|INTO|SET|WHERE)\b/i, // SQL
  /\b(?:FROM|JOIN|INTO|TABLE)\s+"?(?:public"?\.)?"?(?:products|features|styles|photos|skus|related|load_runs|load_rejects)\b/i,
  /_prisma_migrations|_repeatable_migrations|\bload_re(?:jects|runs)\b/,
  // (graphql-js's own "Value … does not exist in "<Enum>" enum." is input coercion, not Postgres.)
  /invalid input syntax|out of range for type|violates .*constraint|duplicate key|syntax error at or near|relation "|column "|does not exist(?! in "\w+" enum)/i,
  /\bpg_|postgres(?:ql)?:\/\/|ECONNREFUSED|ECONNRESET|127\.0\.0\.1|password/i,
  /\b(?:TypeError|RangeError|ReferenceError|SyntaxError): /, // a JavaScript exception as such
  /Cannot read propert|[\w$] is not (?:a function|defined|iterable)|Maximum call stack/i, // JavaScript errors, not GraphQL's `Variable "$x" is not defined`
];

/**
 * Removes the parts of an error message that quote the request back (`got
 * "<input>"`, `Cannot query field "<name>"`): a client may send SQL or the word
 * prisma; seeing it again is not a leak. Quoted text not found in the request stays.
 */
function withoutEchoes(message: string, request: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"/g, (quoted) => {
    const inner = quoted.slice(1, -1);
    let unescaped = inner;
    try {
      unescaped = JSON.parse(quoted) as string;
    } catch {
      // Not JSON-escaped: compare the text as it is.
    }
    return request.includes(inner) || request.includes(unescaped) ? '""' : quoted;
  });
}

/** The leak patterns `text` matches, once what it quotes from `request` is set aside. */
export function leaksIn(text: string, request: string): string[] {
  const checked = withoutEchoes(text, request);
  return LEAKS.filter((pattern) => pattern.test(checked)).map((pattern) => `${pattern} in ${JSON.stringify(checked.slice(0, 500))}`);
}

function objectPrototypeKeys(): string[] {
  return Reflect.ownKeys(Object.prototype).map(String).sort();
}

/** A check that Object.prototype gained no property (prototype pollution) since this was called. */
export function watchObjectPrototype(): { expectUntouched(): void } {
  const before = objectPrototypeKeys();
  return {
    expectUntouched() {
      expect(objectPrototypeKeys()).toEqual(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  };
}

/** The text a server could quote back from this request (decoded target and body), for leak checks. */
export function requestText(request: RawRequest): string {
  const target = request.target.replace(/\+/g, ' ');
  let decoded = target;
  try {
    decoded = decodeURIComponent(target);
  } catch {
    decoded = target.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
  return [request.target, target, decoded, request.body?.toString('utf8') ?? ''].join('\n');
}

/** One line for a failure report: the request and the start of its answer. */
export function describeExchange(request: RawRequest, response: RawResponse): string {
  return `${request.method} ${JSON.stringify(request.target)} -> ${response.status} ${JSON.stringify(response.body.toString('utf8').slice(0, 300))}`;
}
