// The OpenAPI document is the server: schemathesis (PyPI; .ci/run installs it
// in a virtual environment and exports SCHEMATHESIS) generates requests from
// GET /openapi.json, positive and negative, examples, coverage, fuzzing and
// stateful phases, and runs every check it has against the real server,
// listening on a port, with an API key for the writes. Zero failures.
//
// Locally without schemathesis the test is skipped with a message; in CI
// (CI=true) a missing binary is a failure.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildServer, type App } from '../../src/server.ts';
import { createTestApiKey, createTestCatalogue, type TestCatalogue } from '../support/catalogue-app.ts';

/** Where .ci/run installs it; else SCHEMATHESIS, else `schemathesis` on the PATH. */
function findSchemathesis(): string | undefined {
  const candidates = [
    process.env.SCHEMATHESIS,
    path.join(os.homedir(), '.cache/catalogue-api/schemathesis-venv/bin/schemathesis'),
    'schemathesis',
  ].filter((c): c is string => Boolean(c));
  for (const candidate of candidates) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  return undefined;
}

const binary = findSchemathesis();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
if (!binary && !inCi) {
  console.warn('schemathesis is not installed: skipping test/rest/schemathesis.test.ts (.ci/run installs it; or set SCHEMATHESIS=/path/to/schemathesis)');
}

/** The key (for both security schemes) and the statuses a valid request may meet: see the file. */
const CONFIG = path.join(import.meta.dirname, 'schemathesis.toml');
/** Test cases per operation and phase (the issue's floor). */
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 100);
/** A fixed seed: the same requests every run, so a failure reproduces (override to explore). */
const SEED = process.env.SCHEMATHESIS_SEED ?? '20261124';

interface Totals { tests: number; failures: number; errors: number; skipped: number }

/** Check results by check and status ("success", "failure", ...), from the NDJSON event log's finished scenarios. */
function checkTotals(ndjson: string): { byStatus: Record<string, number>; failedChecks: string[] } {
  const byStatus: Record<string, number> = {};
  const failedChecks = new Set<string>();
  for (const line of ndjson.split('\n')) {
    if (!line.includes('"ScenarioFinished"')) continue;
    const event = (JSON.parse(line) as { ScenarioFinished?: { recorder?: { checks?: Record<string, { name: string; status: string }[]> } } }).ScenarioFinished;
    for (const checks of Object.values(event?.recorder?.checks ?? {})) {
      for (const check of checks) {
        byStatus[check.status] = (byStatus[check.status] ?? 0) + 1;
        if (check.status === 'failure') failedChecks.add(check.name);
      }
    }
  }
  return { byStatus, failedChecks: [...failedChecks] };
}

function junitTotals(xml: string): Totals {
  const attribute = (name: string) => Number(new RegExp(`<testsuite\\b[^>]*\\b${name}="(\\d+)"`).exec(xml)?.[1] ?? Number.NaN);
  return { tests: attribute('tests'), failures: attribute('failures'), errors: attribute('errors'), skipped: attribute('skipped') };
}

describe.skipIf(!binary && !inCi)('schemathesis against the served OpenAPI document', () => {
  let catalogue: TestCatalogue;
  let server: App;
  let baseUrl: string;
  let apiKey: string;
  let reportDir: string;

  beforeAll(async () => {
    catalogue = await createTestCatalogue({ scale: 0.0001 });
    apiKey = await createTestApiKey(catalogue.db.url, { name: 'schemathesis' });
    // Rate limits off: a spent budget would turn every later request into a 429.
    const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test', PORT: '0', RATE_LIMIT: 'off' });
    server = await buildServer(config, catalogue.db.url);
    baseUrl = await server.app.listen({ port: 0, host: '127.0.0.1' });
    reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'schemathesis-'));
  });

  afterAll(async () => {
    await server?.app.close();
    await catalogue?.dispose();
    if (reportDir) fs.rmSync(reportDir, { recursive: true, force: true });
  });

  it('finds no failure with every check, at least 100 examples per operation', { timeout: 300_000 }, async () => {
    if (!binary) throw new Error('schemathesis is not installed: .ci/run installs it (CI=true must not skip this test)');
    const junit = path.join(reportDir, 'junit.xml');
    const events = path.join(reportDir, 'events.ndjson');
    const args = [
      '--config-file', CONFIG, '--no-color', 'run', `${baseUrl}/openapi.json`,
      '--checks', 'all',
      '--max-examples', String(MAX_EXAMPLES),
      '--seed', SEED,
      // One worker: the same requests in the same order for a seed (and Python 3.11's
      // ast module, which hypothesis uses for its reports, is not thread-safe).
      '--workers', '1',
      '--request-timeout', '10',
      '--report', 'junit,ndjson', '--report-junit-path', junit, '--report-ndjson-path', events,
      // No example database left in the working directory.
      '--generation-database', 'none',
    ];
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const env = { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false', CATALOGUE_API_KEY: apiKey };
      const child = spawn(binary, args, { env, cwd: reportDir, stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      child.stderr.on('data', (chunk: Buffer) => { text += chunk.toString(); });
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve({ code: exitCode, output: text }));
    });
    const summary = output.split('\n').filter((line) => /test cases|operations|passed|failed|failures|Seed|checks?\b/i.test(line)).slice(-20).join('\n');
    console.log(`schemathesis ${args.join(' ')}\n${summary}`);
    expect(fs.existsSync(junit), output).toBe(true);
    const totals = junitTotals(fs.readFileSync(junit, 'utf8'));
    const checks = checkTotals(fs.readFileSync(events, 'utf8'));
    console.log(`schemathesis totals: ${totals.tests} JUnit test suites (operations and the stateful run), checks ${JSON.stringify(checks.byStatus)}${checks.failedChecks.length > 0 ? `, failed: ${checks.failedChecks.join(', ')}` : ''}`);
    expect(checks.byStatus.success ?? 0, output).toBeGreaterThan(0);
    expect(checks.byStatus.failure ?? 0, output).toBe(0);
    expect(totals.tests, output).toBeGreaterThanOrEqual(7);
    expect({ failures: totals.failures, errors: totals.errors, exitCode: code }, output).toEqual({ failures: 0, errors: 0, exitCode: 0 });
  });
});
