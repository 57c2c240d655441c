// Debian's nginx with the production configuration (deploy/nginx/nginx.conf)
// in front of local API processes, without Docker: the configuration is copied
// into a temporary prefix with only its machine-specific lines rewritten (the
// upstreams file, the listen address, its own pid, logs and temp directories),
// so everything else (keep-alive to the upstreams, limits, proxy settings) is
// exactly what docker-compose runs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';
import { BenchError } from './bench-error.ts';
import { freshGet } from './fresh-get.ts';
import { type Placement, commandIn } from './server-process.ts';

export const NGINX_CONF = path.resolve(import.meta.dirname, '../../deploy/nginx/nginx.conf');
const NGINX_BIN = fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';

function replaceOnce(config: string, pattern: RegExp, replacement: string, what: string): string {
  if (!pattern.test(config)) throw new BenchError(`${NGINX_CONF} has no ${what} to point at the local run`);
  return config.replace(pattern, replacement);
}

/**
 * The configuration for a run in `dir` on `host`:`port`: upstreams from
 * dir/upstreams.conf, temp files under dir, and an access log of when each
 * request was answered, how, and by which upstream (the production file logs
 * nothing).
 */
export function renderNginxConfig(source: string, dir: string, port: number, host = '127.0.0.1'): string {
  let config = replaceOnce(source, /include\s+\/etc\/nginx\/upstreams\.conf;/, `include ${dir}/upstreams.conf;`, 'include of /etc/nginx/upstreams.conf');
  config = replaceOnce(config, /\blisten\s+8080\b/, `listen ${host}:${port}`, 'listen 8080');
  config = replaceOnce(config, /\baccess_log\s+off;/, `log_format upstreams '$msec|$status|$request_method|$upstream_addr|$request_uri'; access_log ${dir}/access.log upstreams;`, 'access_log off');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/${kind}_temp;`).join(' ');
  return replaceOnce(config, /\bhttp\s*\{/, `http {\n  ${temp}`, 'http block');
}

/** One `server` line per upstream, as the docker-compose entrypoint writes them. */
export function upstreamsFile(upstreams: readonly string[]): string {
  return upstreams.map((address) => `server ${address} max_fails=3 fail_timeout=5s;\n`).join('');
}

export interface AccessLogEntry {
  /** When nginx answered, in seconds since the epoch (milliseconds resolution). */
  time: number;
  status: number;
  method: string;
  uri: string;
  /** Every upstream tried for the request, in order (more than one after a retry). */
  upstreams: string[];
}

export interface RunningNginx {
  url: string;
  /** The prefix directory: nginx.conf, upstreams.conf, access.log, error.log. */
  dir: string;
  accessLog(): AccessLogEntry[];
  /** Stops nginx and removes its directory. */
  stop(): Promise<void>;
}

/** e.g. "nginx/1.22.1". */
export function nginxVersion(): string {
  return spawnSync(NGINX_BIN, ['-v'], { encoding: 'utf8' }).stderr.trim().replace(/^nginx version: /, '');
}

function nginxArgs(dir: string): string[] {
  return ['-p', `${dir}/`, '-e', path.join(dir, 'error.log'), '-c', path.join(dir, 'nginx.conf'), '-g', `pid ${path.join(dir, 'nginx.pid')}; daemon off;`];
}

/**
 * The configuration with its gateway-side per-address limit for a public
 * deployment enabled: every line starting with "# public: " uncommented.
 */
export function withPublicLimits(source: string): string {
  return source.replace(/^(\s*)# public: /gm, '$1');
}

/**
 * Starts nginx in a temporary prefix in front of `upstreams` (host:port each); resolves once a request through it is answered.
 * `publicLimits`: with the per-address limit_req of a public deployment enabled (withPublicLimits);
 * `edit`: changes the configuration's text before it is run (a test's smaller limit).
 */
export async function startNginx(upstreams: readonly string[], options: { publicLimits?: boolean; placement?: Placement; dir?: string; edit?: (config: string) => string } = {}): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(options.dir ?? os.tmpdir(), 'catalogue-nginx-'));
  // nginx started as root runs its workers as nobody, who must reach the temp directories.
  fs.chmodSync(dir, 0o755);
  const port = options.placement?.port ?? await freePort();
  const host = options.placement?.host ?? '127.0.0.1';
  fs.writeFileSync(path.join(dir, 'upstreams.conf'), upstreamsFile(upstreams));
  const source = (options.edit ?? ((config: string) => config))(fs.readFileSync(NGINX_CONF, 'utf8'));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), renderNginxConfig(options.publicLimits ? withPublicLimits(source) : source, dir, port, host));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  const [checkCommand, checkArgs] = commandIn(options.placement, [NGINX_BIN, ...nginxArgs(dir), '-t']);
  const check = spawnSync(checkCommand, checkArgs, { encoding: 'utf8' });
  if (check.status !== 0) {
    remove();
    throw new BenchError(`nginx -t failed: ${check.error?.message ?? check.stderr.trim()}`);
  }
  const [command, args] = commandIn(options.placement, [NGINX_BIN, ...nginxArgs(dir)]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://${host}:${port}`;
  const nginx: RunningNginx = {
    url,
    dir,
    accessLog: () => readAccessLog(path.join(dir, 'access.log')),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      remove();
    },
  };
  for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
    try {
      if ((await freshGet(`${url}/healthz`)).status === 200) return nginx;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const errors = fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8').trim() : '';
  await nginx.stop();
  throw new BenchError(`nginx did not answer on ${url}${errors ? `: ${errors}` : ''}`);
}

function readAccessLog(file: string): AccessLogEntry[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((line) => line !== '').map((line) => {
    const [time, status, method, addresses, ...uri] = line.split('|');
    return {
      time: Number(time), status: Number(status), method: method ?? '', uri: uri.join('|'),
      // "a, b" after a retry; "a : b" when the request went through an internal redirect.
      upstreams: (addresses ?? '').split(/\s*[,:]\s+/).filter((a) => a !== '' && a !== '-'),
    };
  });
}

/** Requests per upstream among `entries` (the last upstream tried is the one that answered). */
export function requestsPerUpstream(entries: readonly AccessLogEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entry of entries) {
    const answered = entry.upstreams.at(-1);
    if (answered) counts.set(answered, (counts.get(answered) ?? 0) + 1);
  }
  return counts;
}
