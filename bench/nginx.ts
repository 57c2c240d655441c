// npm run bench:nginx -- [--scale <f>] [--rate <req/s>] [--duration <time>]
//
// The docker-compose load balancer without Docker: Debian's nginx with
// deploy/nginx/nginx.conf in front of two API processes (what `npm start`
// runs, on two ports, one database), then the k6 rest-styles scenario with
// PROFILE=smoke through it. Fails unless every request succeeded, every check
// passed and both API processes served requests. The k6 summary, the
// configuration nginx ran with and its access log are saved under
// .data/bench/results/<time>-nginx/.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { UsageError, runCommand } from '../src/commands/run.ts';
import { openDatabase } from '../src/db/server/open-database.ts';
import { BenchError } from './lib/bench-error.ts';
import { ensureBenchCatalogue } from './lib/catalogue.ts';
import { ensureK6, readK6Metrics, runK6 } from './lib/k6.ts';
import { type RunningNginx, nginxVersion, requestsPerUpstream, startNginx } from './lib/nginx.ts';
import { durationSeconds, parseScale } from './lib/plan.ts';
import { type ServerProcess, startApi } from './lib/server-process.ts';

const SCENARIO = 'rest-styles';
const API_PROCESSES = 2;

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: {
      scale: { type: 'string', default: '0.01' },
      rate: { type: 'string', default: '50' },
      duration: { type: 'string', default: '10s' },
    } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const scale = parseScale(values.scale);
  if (!(Number(values.rate) >= 1)) throw new UsageError('--rate must be at least 1 (requests per second)');
  if (!(durationSeconds(values.duration) > 0)) throw new UsageError(`--duration must be a duration like 10s (got ${values.duration})`);
  const config = loadConfig();
  const k6 = ensureK6();
  const database = await openDatabase(config, console.log);
  const resultsDir = path.join(config.dataDir, 'bench', 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-nginx`);
  fs.mkdirSync(resultsDir, { recursive: true });
  const apis: ServerProcess[] = [];
  let nginx: RunningNginx | undefined;
  try {
    const catalogue = await ensureBenchCatalogue(database.url, scale, config.dataDir);
    for (let i = 0; i < API_PROCESSES; i++) apis.push(await startApi({ databaseUrl: catalogue.url, workers: 1, cache: 'off' }));
    const upstreams = apis.map((api) => `127.0.0.1:${api.port}`);
    nginx = await startNginx(upstreams);
    const version = nginxVersion();
    console.log(`${version} with deploy/nginx/nginx.conf on ${nginx.url}, in front of ${upstreams.join(' and ')}`);
    for (const file of ['nginx.conf', 'upstreams.conf']) fs.copyFileSync(path.join(nginx.dir, file), path.join(resultsDir, file));

    console.log(`k6 smoke: ${SCENARIO} through nginx, ${values.rate}/s for ${values.duration}`);
    const summaryFile = path.join(resultsDir, `${SCENARIO}-smoke.json`);
    const measured = runK6(k6, SCENARIO, {
      BASE_URL: nginx.url, PROFILE: 'smoke', RATE: values.rate, DURATION: values.duration,
      ID_MIN: '1', ID_MAX: String(catalogue.maxId), PRODUCT_COUNT: String(catalogue.products),
    }, summaryFile);
    const checks = readK6Metrics(summaryFile).checks ?? {};
    // Only the smoke run's requests, not the readiness probe (nginx logs after answering, so it may come late).
    const entries = nginx.accessLog().filter((e) => e.uri !== '/healthz');
    fs.writeFileSync(path.join(resultsDir, 'access.log'), fs.readFileSync(path.join(nginx.dir, 'access.log')));
    const perUpstream = requestsPerUpstream(entries);
    const failedAtNginx = entries.filter((e) => e.status >= 400).length;

    const failedRequests = Math.round(measured.errors * measured.requests);
    console.log(`${measured.requests} requests (${measured.rps.toFixed(0)}/s), ${failedRequests} errors (${(measured.errors * 100).toFixed(2)}%), `
      + `checks ${checks.passes ?? 0}/${(checks.passes ?? 0) + (checks.fails ?? 0)}, p50 ${measured.p50.toFixed(2)} ms, p95 ${measured.p95.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms`);
    for (const upstream of upstreams) console.log(`upstream ${upstream}: ${perUpstream.get(upstream) ?? 0} requests`);
    fs.writeFileSync(path.join(resultsDir, 'result.json'), `${JSON.stringify({ nginx: version, upstreams, measured, checks, perUpstream: Object.fromEntries(perUpstream), failedAtNginx }, null, 2)}\n`);

    const problems = [
      ...(measured.requests === 0 ? ['k6 sent no requests'] : []),
      ...(measured.errors > 0 || failedAtNginx > 0 ? [`${Math.max(failedRequests, failedAtNginx)} requests failed`] : []),
      ...((checks.fails ?? 0) > 0 ? [`${checks.fails} checks failed`] : []),
      ...upstreams.filter((u) => !perUpstream.get(u)).map((u) => `upstream ${u} served no request`),
    ];
    if (problems.length > 0) throw new BenchError(`nginx smoke failed: ${problems.join('; ')} (details in ${resultsDir})`);
    console.log(`nginx smoke passed: zero errors, both upstreams served requests\nfiles in ${resultsDir}`);
  } finally {
    await nginx?.stop();
    for (const api of apis) await api.stop();
    await database.close();
  }
});
