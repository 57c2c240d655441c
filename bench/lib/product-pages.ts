// Product pages for bench/sidecar.ts: a page is the three requests a product
// page of the shop makes, GET /products/:id, /products/:id/styles and
// /products/:id/related. Closed-loop clients (each loads a page, then the
// next, with no think time) over keep-alive connections of their own
// (node:http, an Agent per client), random ids from a seeded generator, the
// latency of each page measured on the client: from the first request sent
// to the last body received. Every answer is checked against reference bodies
// (byte equality) and, through the sidecar, for an X-Source-Age header.
import http from 'node:http';

/** The requests of a product page, in the order a front end sends them. */
export function pagePaths(id: number): [string, string, string] {
  return [`/products/${id}`, `/products/${id}/styles`, `/products/${id}/related`];
}

/**
 * `parallel`: the three requests at once, as the shop's browser does (and
 * k6/scenarios/mixed.ts); `sequential`: one after the other.
 */
export type PageMode = 'parallel' | 'sequential';
export const PAGE_MODES: readonly PageMode[] = ['parallel', 'sequential'];

export interface Answer {
  status: number;
  body: Buffer;
  /** The X-Source-Age header, when sent. */
  sourceAge: string | undefined;
}

/** A GET over `agent` (kept-alive connections), with the whole body as bytes. */
export function getBytes(agent: http.Agent, base: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${path}`, { agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const age = response.headers['x-source-age'];
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), sourceAge: Array.isArray(age) ? age[0] : age });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

export async function loadPage(agent: http.Agent, base: string, id: number, mode: PageMode): Promise<Answer[]> {
  const paths = pagePaths(id);
  if (mode === 'parallel') return Promise.all(paths.map((path) => getBytes(agent, base, path)));
  const answers: Answer[] = [];
  for (const path of paths) answers.push(await getBytes(agent, base, path));
  return answers;
}

/** mulberry32: a small seeded generator, so a run draws the same ids every time. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The three reference bodies of each id: what every answer must equal, byte for byte. */
export type References = Map<number, Buffer[]>;

/** How the answers of a page differ from the references, or undefined when they do not. */
export function pageProblem(id: number, answers: Answer[], references: References, needSourceAge: boolean): string | undefined {
  const expected = references.get(id);
  const paths = pagePaths(id);
  for (const [i, answer] of answers.entries()) {
    if (answer.status !== 200) return `GET ${paths[i]} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 200)}`;
    if (expected && !answer.body.equals(expected[i]!)) return `GET ${paths[i]}: ${describeDifference(answer.body, expected[i]!)}`;
    if (needSourceAge && answer.sourceAge === undefined) return `GET ${paths[i]}: no X-Source-Age header`;
  }
  return undefined;
}

/** Where two bodies first differ, with a little of each around it. */
export function describeDifference(actual: Buffer, expected: Buffer): string {
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  const around = (b: Buffer) => JSON.stringify(b.subarray(Math.max(0, at - 30), at + 50).toString('utf8'));
  return `${actual.length} bytes where ${expected.length} were expected, first difference at byte ${at}: got …${around(actual)}…, expected …${around(expected)}…`;
}

export interface RunOptions {
  base: string;
  clients: number;
  /** Ids drawn uniformly from this list. */
  ids: number[];
  mode: PageMode;
  /** Pages per client, or a duration for all of them. */
  until: { pagesPerClient: number } | { seconds: number };
  references: References;
  /** Through the sidecar: every answer must carry X-Source-Age. */
  needSourceAge: boolean;
  seed: number;
  /** Called every `progressSeconds` with the pages so far. */
  onProgress?: (pages: number, elapsedSeconds: number) => void;
  progressSeconds?: number;
}

export interface RunResult {
  clients: number;
  pages: number;
  seconds: number;
  /** Per-page latency in ms, ascending. */
  latenciesMs: number[];
  /** Pages with a non-200 answer, a transport error, a body unlike the reference or (sidecar) no X-Source-Age. */
  failed: number;
  firstProblem?: string;
}

/** Closed-loop clients until each has loaded its pages, or the time is up (pages under way then are finished and counted). */
export async function runClients(options: RunOptions): Promise<RunResult> {
  const latencies: number[] = [];
  let failed = 0;
  let firstProblem: string | undefined;
  const started = performance.now();
  const deadline = 'seconds' in options.until ? started + options.until.seconds * 1000 : Infinity;
  const perClient = 'pagesPerClient' in options.until ? options.until.pagesPerClient : Infinity;
  const progress = options.onProgress
    ? setInterval(() => options.onProgress!(latencies.length, (performance.now() - started) / 1000), (options.progressSeconds ?? 5) * 1000)
    : undefined;
  const client = async (index: number) => {
    // Up to three connections of its own (parallel pages), kept alive between pages.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
    const random = seededRandom(options.seed * 1000 + index);
    try {
      for (let page = 0; page < perClient && performance.now() < deadline; page++) {
        const id = options.ids[Math.floor(random() * options.ids.length)]!;
        const begin = performance.now();
        let problem: string | undefined;
        try {
          problem = pageProblem(id, await loadPage(agent, options.base, id, options.mode), options.references, options.needSourceAge);
        } catch (error) {
          problem = `product ${id}: ${(error as Error).message}`;
        }
        latencies.push(performance.now() - begin);
        if (problem) {
          failed++;
          firstProblem ??= problem;
        }
      }
    } finally {
      agent.destroy();
    }
  };
  try {
    await Promise.all(Array.from({ length: options.clients }, (_, i) => client(i)));
  } finally {
    clearInterval(progress);
  }
  return {
    clients: options.clients,
    pages: latencies.length,
    seconds: (performance.now() - started) / 1000,
    latenciesMs: latencies.sort((a, b) => a - b),
    failed,
    firstProblem,
  };
}

/** Nearest-rank percentile of ascending values (NaN when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
