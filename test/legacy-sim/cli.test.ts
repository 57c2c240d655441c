// npm run legacy:sim: flags with clear errors for bad values, and the real
// program prints what it serves, answers, and stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/commands/run.ts';
import { parseSimulatorArgs } from '../../src/legacy-sim/cli.ts';

const CLI = path.resolve(import.meta.dirname, '../../src/legacy-sim/cli.ts');

describe('flags', () => {
  it('default to port 4100 on 127.0.0.1, and read every option', () => {
    expect(parseSimulatorArgs([])).toEqual({ port: 4100, host: '127.0.0.1' });
    expect(parseSimulatorArgs([
      '--port', '0', '--products', '50', '--seed', '3', '--overhead-ms', '0', '--error-rate', '0.05', '--throttle-rate', '0.1',
      '--slow-rate', '0.2', '--slow-ms', '100', '--retry-after-s', '4', '--fault-seed', '9', '--campus', 'x', '--empty-placeholders', 'off', '--max-page-size', '20',
      '--per-item-ms', '0.5', '--request-log-size', '5000',
    ])).toEqual({
      port: 0, host: '127.0.0.1', products: 50, seed: 3, overheadMs: 0, errorRate: 0.05, throttleRate: 0.1, slowRate: 0.2, slowMs: 100,
      retryAfterSeconds: 4, faultSeed: 9, campus: 'x', emptyPlaceholders: false, maxPageSize: 20, perItemMs: 0.5, requestLogSize: 5000,
    });
  });

  it.each([
    [['--port', '70000'], '--port must be a whole number from 0 to 65535 (got "70000")'],
    [['--products', 'many'], '--products must be a whole number from 0 to 2000000 (got "many")'],
    [['--overhead-ms=-5'], '--overhead-ms must be a whole number from 0 to 600000 (got "-5")'],
    [['--error-rate', '1.5'], '--error-rate must be a number from 0 to 1, e.g. 0.05 (got "1.5")'],
    [['--error-rate', '0.6', '--throttle-rate', '0.6'], '--error-rate + --throttle-rate must be at most 1'],
    [['--per-item-ms=-1'], '--per-item-ms must be a number of milliseconds from 0 to 60000, e.g. 2 or 0.2 (got "-1")'],
    [['--empty-placeholders', 'yes'], '--empty-placeholders must be on or off (got "yes")'],
    [['--overheadms', '5'], "Unknown option '--overheadms'"],
  ])('%j is refused: %s', (args, message) => {
    expect(() => parseSimulatorArgs(args)).toThrow(UsageError);
    expect(() => parseSimulatorArgs(args)).toThrow(message);
  });
});

describe('the program', () => {
  it('prints its URL, routes, behaviour and admin endpoints, serves, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--products', '20', '--overhead-ms', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
        child.stdout.on('data', () => { if (out.split('\n').length > 4) { clearTimeout(timer); resolve(); } });
      });
      const lines = out.trim().split('\n');
      expect(lines[0]).toMatch(/^legacy simulator listening on http:\/\/127\.0\.0\.1:\d+ \(20 products, seed 1, built in \d+ ms\)$/);
      expect(lines[1]).toBe('legacy routes: GET /products, GET /products/:product_id, GET /products/:product_id/styles, GET /products/:product_id/related, POST /products, PUT /products/:product_id, DELETE /products/:product_id');
      expect(lines[2]).toBe('behaviour: one request at a time, 0 ms overhead each; faults: 5xx 0%, 429 0% (Retry-After 1 s), slow 0% (+3000 ms)');
      expect(lines[3]).toMatch(/^admin \(not queued, not delayed, not counted\): GET http:\/\/127\.0\.0\.1:\d+\/__sim\/stats, /);
      const url = /listening on (\S+)/.exec(lines[0]!)![1]!;
      expect((await (await fetch(`${url}/products?count=50`)).json())).toHaveLength(20);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('legacy simulator stopped after 1 legacy request');
  });
});
