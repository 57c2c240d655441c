// A normal client's product-page latency alone, then during a storm of
// unique searches and facet counts from other clients (issue 45, item 5):
// what the expensive-read limit (EXPENSIVE_READS_*, src/catalog/browse/expensive-reads.ts)
// is for. Against a running API on loopback, started with RATE_LIMIT=off
// (every client here is one address: its budget would answer 429s of its own):
//
//   npm run bench:storm -- --url http://127.0.0.1:4000 --database-url <the API's catalogue> [--seconds 10] [--clients 10] [--max-id 50000]
//                          [--rounds 1] [--setting <what the API was started with>] [--save <name>]
//
// Phase 1 (idle): one client asks for product pages (k6's ProductDetailPage,
// random ids), one at a time, for `--seconds`. Phase 2: the same client,
// while `--clients` others each send, one at a time, searches
// (SearchPage) and facet counts (ShopFacets) of two or three words drawn at
// random from the catalogue's own dictionary (search_lexemes), so the
// response cache and the resolution memo answer none of them. Prints the
// product page's p50/p99/max in both phases and what the storm got (status
// counts, its own p50/p99). The storm runs on a worker thread of its own, so
// the product page's client is never late because of it. Every phase is
// bounded in time; only loopback. `--rounds` repeats both phases and prints
// the medians; `--save <name>` keeps them in docs/performance/<name>.json, one
// entry per `--setting` (the API's EXPENSIVE_READS_* as it was started: this
// script cannot see them), client count and catalogue (the database's name),
// each with its provenance;
// docs/browse.md's storm table is rendered from `expensive-reads`.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { median } from '../bench/lib/median.ts';
import { endProvenance, publishEntry, savedName, startProvenance } from '../bench/lib/provenance.ts';
import { queryOnce } from '../src/db/pool/query-once.ts';
import { operationsByName } from '../k6/lib/operation-text.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback?: string): string => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? args[at + 1] : fallback;
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
};
const base = new URL(option('url'));
if (!['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname)) throw new Error(`--url must be on loopback (got ${base.hostname})`);
const seconds = Math.min(10, Number(option('seconds', '10')));
const clients = Number(option('clients', '10'));
const maxId = Number(option('max-id', '50000'));
const rounds = Math.min(5, Number(option('rounds', '1')));
const setting = option('setting', 'the defaults');
const save = savedName(option('save', ''));

const OPERATIONS = operationsByName(fs.readFileSync(path.resolve(import.meta.dirname, '../k6/operations.graphql'), 'utf8'));
const body = (operationName: string, variables: Record<string, unknown>) =>
  JSON.stringify({ query: OPERATIONS.get(operationName), variables, operationName });

interface Answer {
  status: number;
  ms: number;
}

function post(agent: http.Agent, payload: string): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const request = http.request({ host: base.hostname, port: base.port, path: '/graphql', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, ms: performance.now() - started }));
    });
    request.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    request.end(payload);
  });
}

/** Sends `next()` one at a time on one kept-alive connection until `until`. */
async function loop(until: number, next: () => string): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Answer[] = [];
  while (performance.now() < until) answers.push(await post(agent, next()));
  agent.destroy();
  return answers;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summary(answers: Answer[]): string {
  const ms = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const answer of answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
  const counts = [...statuses].map(([status, count]) => `${status}: ${count}`).join(', ');
  return `${answers.length} requests (${counts}); p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${(ms.at(-1) ?? Number.NaN).toFixed(1)} ms`;
}

const productPage = () => body('ProductDetailPage', { id: String(1 + Math.floor(Math.random() * maxId)) });

/** The storm: `clients` loops of searches and facets until `until` (a Date.now() time), on this thread. */
async function storm(until: number, words: string[]): Promise<Answer[]> {
  const pickWord = () => words[Math.floor(Math.random() * words.length)]!;
  let n = 0;
  const next = () => {
    const i = n++;
    const text = Array.from({ length: 2 + (i % 2) }, pickWord).join(' ');
    return i % 2 === 0 ? body('SearchPage', { query: text, first: 20 }) : body('ShopFacets', { filter: {}, query: text });
  };
  const left = until - Date.now();
  return (await Promise.all(Array.from({ length: clients }, () => loop(performance.now() + left, next)))).flat();
}

/** A phase as the results file keeps it. */
interface Phase { requests: number; ok: number; refused: number; p50: number; p99: number }
interface StormRound { idle: Phase; during: Phase; storm: Phase; ratio: number }

function phase(answers: Answer[]): Phase {
  const ms = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  return { requests: answers.length, ok: answers.filter((a) => a.status === 200).length, refused: answers.filter((a) => a.status === 429).length, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}


/** One round: the product page alone, then beside the storm. */
async function stormRound(words: string[]): Promise<StormRound> {
  const idle = await loop(performance.now() + seconds * 1000, productPage);
  const until = Date.now() + seconds * 1000;
  const worker = new Worker(new URL(import.meta.url), { argv: args, workerData: { until, words } });
  const stormAnswers = new Promise<Answer[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const during = await loop(performance.now() + (until - Date.now()), productPage);
  const stormed = await stormAnswers;
  await worker.terminate();
  const result = { idle: phase(idle), during: phase(during), storm: phase(stormed) };
  const ratio = result.during.p99 / result.idle.p99;
  console.log(`product page, idle:         ${summary(idle)}`);
  console.log(`product page, during storm: ${summary(during)}`);
  console.log(`storm (${clients} clients):       ${summary(stormed)}`);
  console.log(`p99 during / idle: ${ratio.toFixed(2)}x`);
  return { ...result, ratio };
}

if (!isMainThread) {
  const { until, words } = workerData as { until: number; words: string[] };
  parentPort!.postMessage(await storm(until, words));
} else {
  const words = (await queryOnce<{ lexeme: string }>(option('database-url'),
    "SELECT lexeme FROM search_lexemes WHERE lexeme ~ '^[a-z]{4,}$' AND documents BETWEEN 5 AND 20000 ORDER BY random() LIMIT 3000")).map((row) => row.lexeme);
  if (words.length < 100) throw new Error(`the catalogue's dictionary has only ${words.length} usable words`);

  // Warm-up: the documents are prepared (and the fast path learns them) before anything is timed.
  await loop(performance.now() + 1000, productPage);
  await storm(Date.now() + 500, words);

  // Which catalogue: the generator's default shape or another (its database's name).
  const catalogue = new URL(option('database-url')).pathname.slice(1);
  const provenance = startProvenance('bench:storm', args, { setting, clients, seconds, rounds, maxId, catalogue });
  const results: StormRound[] = [];
  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) console.log(`round ${round}`);
    results.push(await stormRound(words));
  }
  const medians = { idleP99: median(results.map((r) => r.idle.p99)), stormP99: median(results.map((r) => r.during.p99)), ratio: median(results.map((r) => r.ratio)) };
  if (rounds > 1) console.log(`median p99: idle ${medians.idleP99.toFixed(1)} ms, during the storm ${medians.stormP99.toFixed(1)} ms; median of the rounds' ratios ${medians.ratio.toFixed(2)}x`);
  if (save) {
    const entry = { setting, clients, catalogue, provenance: endProvenance(provenance), medians, rounds: results };
    const same = (kept: typeof entry) => kept.setting === setting && kept.clients === clients && kept.catalogue === catalogue;
    console.log(`saved to ${publishEntry(save, entry, same)}`);
  }
}

