// The legacy simulator: the legacy Products API (../shared/legacy-api.md, the
// four read routes and three write routes) over its own small in-memory
// catalogue, behaving as the published service does: a fixed overhead before
// each answer (plus, optionally, a wait per item it returns) and one request
// at a time (3 concurrent requests take 3x as long), optionally random 5xx,
// 429 and slow answers. Beside it, admin
// endpoints under /__sim/ (not part of the contract, never queued, never
// delayed): request counters, fault settings, outages, and product changes
// behind the sidecar's back. See docs/legacy-simulator.md.
//
// Plain node:http, so that the bytes and the queue are exactly what this file
// says. Error messages for bad input are the project's own (src/rest/params.ts,
// src/catalog/model/validation.ts: the contract fixes only their shape), so the
// project's routes and the simulator agree byte for byte there too.
import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NotFoundError, ValidationError, validateProductWrite } from '../catalog/model/validation.ts';
import { Rng } from '../etl/generate/random.ts';
import { illFormedText } from '../http/json-input.ts';
import { BadRequest, positiveInt } from '../rest/params.ts';
import { type FaultSettings, checkFaults, parseAdminProduct } from './admin-input.ts';
import { type SimProduct, SimCatalogue } from './catalogue.ts';
import { type ShapeOptions, legacyDetail, legacyListItem, legacyStyles } from './shapes.ts';
import { DEFAULT_PAGE, DEFAULT_PAGE_SIZE } from '../catalog/reads/listing-anchors.ts';

export type { FaultSettings } from './admin-input.ts';

export interface LegacySimulatorOptions extends Partial<FaultSettings> {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Size of the seeded catalogue (default 1,000). */
  products?: number;
  /** Seed of the catalogue (default 1). */
  seed?: number;
  /** Seed of the fault draws (default: the catalogue seed). */
  faultSeed?: number;
  /** `campus` of every product (default "hr-rfp"). */
  campus?: string;
  /** Null placeholders for styles without photos / skus, as the live service (default true). */
  emptyPlaceholders?: boolean;
  /** Largest `count` of GET /products (default 100, as the project's MAX_PAGE_SIZE). */
  maxPageSize?: number;
  /** Clock for created_at / updated_at of writes (tests). */
  now?: () => Date;
  /** How many recent legacy requests GET /__sim/requests keeps (default 1,000). */
  requestLogSize?: number;
}

/** The legacy routes, as counted by the stats. */
export const LEGACY_ROUTES = [
  'GET /products',
  'GET /products/:product_id',
  'GET /products/:product_id/styles',
  'GET /products/:product_id/related',
  'POST /products',
  'PUT /products/:product_id',
  'DELETE /products/:product_id',
] as const;
export type LegacyRoute = (typeof LEGACY_ROUTES)[number];
/** Anything else sent to the legacy port (a 404 `no route ...`). */
export type RouteKey = LegacyRoute | 'other';

/**
 * How the simulator is down: `503` answers at once with 503 + Retry-After;
 * `reset` drops each connection without an answer; `refuse` stops listening
 * (connection refused), admin endpoints included, until `up()` or `forMs`.
 */
export type DownMode = '503' | 'reset' | 'refuse';
export const DOWN_MODES: readonly DownMode[] = ['503', 'reset', 'refuse'];

export interface SimStats {
  /** Every request the legacy port received, whatever its answer (admin requests excluded). */
  received: number;
  byRoute: Record<RouteKey, number>;
  /** Answers sent, by status; `reset` counts connections dropped while down. */
  byStatus: Record<string, number>;
  /** Injected: random 5xx, 429, slow answers, and requests met while down (503 or reset). */
  faults: { error: number; throttle: number; slow: number; down: number };
  /** Successful POST / PUT / DELETE through the legacy routes. */
  writes: number;
  /** Requests being handled now, and the most ever handled at once (1: one at a time). */
  active: number;
  maxConcurrent: number;
  /** Requests received and not yet answered (queued or handled), and the most at once: what clients offered. */
  inFlight: number;
  maxInFlight: number;
  /** When the counters started (start or last reset). */
  since: string;
}

export interface RequestLogEntry {
  seq: number;
  method: string;
  /** Path and query as received. */
  url: string;
  route: RouteKey;
  /** Status answered; `reset` when dropped, undefined while not answered yet. */
  status?: number | 'reset';
  fault?: 'error' | 'throttle' | 'slow' | 'down';
  receivedAt: string;
  /** From receipt to answer. */
  ms?: number;
}

export interface LegacySimulator {
  /** http://host:port, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** The live catalogue: read or change it directly (no queue, no overhead, not counted). */
  readonly catalogue: SimCatalogue;
  stats(): SimStats;
  resetStats(): void;
  requests(): RequestLogEntry[];
  faults(): FaultSettings;
  /** Changes some fault settings (overhead included); returns all of them. */
  setFaults(change: Partial<FaultSettings>): FaultSettings;
  /** Goes down (default `503`); back up after `forMs` when given. */
  down(mode?: DownMode, options?: { forMs?: number }): Promise<void>;
  up(): Promise<void>;
  /** The admin view of a product: detail, styles without placeholders, related ids. */
  view(id: number): AdminView | undefined;
  close(): Promise<void>;
}

export type AdminView = ReturnType<typeof legacyDetail> & { styles: ReturnType<typeof legacyStyles>['results']; related: number[] };

const JSON_TYPE = 'application/json; charset=utf-8';
const BODY_LIMIT = 1024 * 1024;
const REST_NAMES = { defaultPrice: 'default_price' } as const;
const FAULT_STREAM = 201;
const ERROR_STATUSES = [500, 502, 503, 504] as const;

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  fault?: RequestLogEntry['fault'];
}

type Body = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'bad'; answer: Answer };

class ProductNotFound extends NotFoundError {
  constructor(id: number) {
    super(`product ${id} not found`);
  }
}

/** Items an answer returns, for the per-item wait: the elements of a listing or related list, the styles of a styles answer, 1 for a product; none for an error. */
function itemsIn(answer: Answer): number {
  if (answer.status >= 300 || answer.body === undefined) return 0;
  if (Array.isArray(answer.body)) return answer.body.length;
  const results = (answer.body as { results?: unknown }).results;
  return Array.isArray(results) ? results.length : 1;
}

function error(status: number, message: string, headers?: Record<string, string>): Answer {
  return { status, body: { error: message }, headers };
}

function emptyStats(): SimStats {
  return {
    received: 0,
    byRoute: Object.fromEntries([...LEGACY_ROUTES, 'other'].map((r) => [r, 0])) as Record<RouteKey, number>,
    byStatus: {},
    faults: { error: 0, throttle: 0, slow: 0, down: 0 },
    writes: 0,
    active: 0,
    maxConcurrent: 0,
    inFlight: 0,
    maxInFlight: 0,
    since: new Date().toISOString(),
  };
}

/** The legacy route of a request, and its product id segment (percent-decoded, not yet checked). */
function matchRoute(method: string, path: string): { key: RouteKey; id?: string } {
  const verb = method === 'HEAD' ? 'GET' : method;
  if (path === '/products') return { key: verb === 'GET' ? 'GET /products' : verb === 'POST' ? 'POST /products' : 'other' };
  const match = /^\/products\/([^/]+)(\/styles|\/related)?$/.exec(path);
  if (!match) return { key: 'other' };
  let id = match[1] as string;
  try { id = decodeURIComponent(id); } catch { /* left as sent: positiveInt refuses it */ }
  const sub = match[2];
  if (sub) return { key: verb === 'GET' ? (`GET /products/:product_id${sub}` as RouteKey) : 'other', id };
  const key = ({ GET: 'GET /products/:product_id', PUT: 'PUT /products/:product_id', DELETE: 'DELETE /products/:product_id' } as Record<string, RouteKey>)[verb];
  return { key: key ?? 'other', id };
}

/** The query parameter as Fastify's parser gives it: undefined, a string, or an array when repeated. */
function queryParam(params: URLSearchParams, name: string): string | string[] | undefined {
  const all = params.getAll(name);
  return all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
}

function readBody(request: http.IncomingMessage): Promise<{ bytes: Buffer; tooLarge: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve({ bytes: Buffer.concat(chunks), tooLarge }));
    request.on('error', () => resolve({ bytes: Buffer.alloc(0), tooLarge }));
  });
}

/** A JSON body as the project's parser takes it (src/http/json-input.ts): UTF-8, well-formed strings. */
function parseBody(request: http.IncomingMessage, read: { bytes: Buffer; tooLarge: boolean }): Body {
  if (read.tooLarge) return { kind: 'bad', answer: error(413, 'request body is too large') };
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '') return read.bytes.length === 0 ? { kind: 'none' } : { kind: 'bad', answer: error(415, 'request body must be application/json') };
  if (type !== 'application/json') return { kind: 'bad', answer: error(415, 'request body must be application/json') };
  if (!isUtf8(read.bytes)) return { kind: 'bad', answer: error(400, 'body: the request body is not valid UTF-8') };
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return { kind: 'bad', answer: error(400, 'request body is not valid JSON') };
  }
  const found = illFormedText(value);
  if (found) return { kind: 'bad', answer: error(400, `${found.field}: ${found.propertyName ? 'a property name ' : ''}must be valid Unicode text (lone surrogate)`) };
  return { kind: 'json', value };
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const body = parseBody(request, await readBody(request));
  if (body.kind === 'bad') throw new BadRequest((body.answer.body as { error: string }).error);
  return body.kind === 'json' ? body.value : undefined;
}

/** What the legacy routes need of the simulator: its catalogue, the shape of its answers, its counters. */
interface LegacyState {
  catalogue: SimCatalogue;
  shape: ShapeOptions;
  maxPageSize: number;
  stats: SimStats;
}

/** The legacy answer to a request, as the service computes it (no faults here). */
function legacyAnswer(state: LegacyState, method: string, route: { key: RouteKey; id?: string }, path: string, query: URLSearchParams, body: Body): Answer {
  const { catalogue, shape, maxPageSize, stats } = state;
  const productId = () => positiveInt(route.id, 'product_id');
  const product = (id: number) => {
    const found = catalogue.get(id);
    if (!found) throw new ProductNotFound(id);
    return found;
  };
  const json = () => {
    if (body.kind === 'bad') throw body.answer;
    return body.kind === 'json' ? body.value : undefined;
  };
  try {
    switch (route.key) {
      case 'GET /products': {
        const page = positiveInt(queryParam(query, 'page'), 'page', { fallback: DEFAULT_PAGE });
        const count = positiveInt(queryParam(query, 'count'), 'count', { fallback: Math.min(DEFAULT_PAGE_SIZE, maxPageSize), max: maxPageSize });
        return { status: 200, body: catalogue.page(page, count).map((p) => legacyListItem(p, shape)) };
      }
      case 'GET /products/:product_id':
        return { status: 200, body: legacyDetail(product(productId()), shape) };
      case 'GET /products/:product_id/styles':
        return { status: 200, body: legacyStyles(product(productId()), shape) };
      case 'GET /products/:product_id/related':
        return { status: 200, body: catalogue.relatedOf(product(productId())) };
      case 'POST /products': {
        const write = validateProductWrite(json(), 'create', REST_NAMES);
        const created = catalogue.create(write);
        stats.writes++;
        return { status: 201, body: legacyDetail(created, shape) };
      }
      case 'PUT /products/:product_id': {
        const value = json();
        const id = productId();
        const write = validateProductWrite(value, 'update', REST_NAMES);
        const updated = catalogue.update(id, write);
        if (!updated) throw new ProductNotFound(id);
        stats.writes++;
        return { status: 200, body: legacyDetail(updated, shape) };
      }
      case 'DELETE /products/:product_id': {
        const id = productId();
        if (!catalogue.delete(id)) throw new ProductNotFound(id);
        stats.writes++;
        return { status: 204 };
      }
      default:
        return error(404, `no route ${method} ${JSON.stringify(path)}`);
    }
  } catch (thrown) {
    if (thrown instanceof BadRequest || thrown instanceof ValidationError) return error(400, thrown.message);
    if (thrown instanceof NotFoundError) return error(404, thrown.message);
    if (typeof thrown === 'object' && thrown !== null && 'status' in thrown) return thrown as Answer;
    console.error('legacy simulator: internal error', thrown);
    return error(500, 'internal server error');
  }
}

function send(response: http.ServerResponse, answer: Answer, head: boolean): void {
  const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
  const headers: Record<string, string | number> = { ...answer.headers };
  if (answer.body !== undefined) {
    headers['content-type'] = JSON_TYPE;
    headers['content-length'] = Buffer.byteLength(text);
  }
  if (response.destroyed || response.headersSent) return;
  response.writeHead(answer.status, headers);
  response.end(head ? undefined : text);
}

/** A drawn fault's answer: a random 5xx or a throttle. */
function faultAnswer(kind: 'error' | 'throttle', status: number, retryAfterSeconds: number): Answer {
  if (kind === 'error') {
    const headers: Record<string, string> = { 'x-legacy-sim-fault': 'error' };
    if (status === 503) headers['retry-after'] = String(retryAfterSeconds);
    return { ...error(status, `simulated ${status} from the legacy simulator`, headers), fault: 'error' };
  }
  const seconds = retryAfterSeconds;
  return {
    ...error(429, `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`, { 'retry-after': String(seconds), 'x-legacy-sim-fault': 'throttle' }),
    fault: 'throttle',
  };
}

/** The simulator: its catalogue, faults, counters and request log, its legacy and admin routes, and its listening socket. */
class Simulator implements LegacySimulator {
  url = '';
  port = 0;
  readonly catalogue: SimCatalogue;
  private readonly options: LegacySimulatorOptions;
  private readonly host: string;
  private readonly seed: number;
  private readonly shape: ShapeOptions;
  private readonly maxPageSize: number;
  private readonly logSize: number;
  private readonly rng: Rng;
  private readonly server: http.Server;
  private settings: FaultSettings;
  private counters = emptyStats();
  private log: RequestLogEntry[] = [];
  private seq = 0;
  private downMode: DownMode | undefined;
  private upTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private listening = false;
  /** Waits that close() cuts short, so a long queue never holds the process. */
  private readonly sleepers = new Set<() => void>();
  /** One request at a time: each handler starts when the previous one has answered. */
  private tail: Promise<void> = Promise.resolve();

  constructor(options: LegacySimulatorOptions) {
    this.options = options;
    this.host = options.host ?? '127.0.0.1';
    this.seed = options.seed ?? 1;
    this.shape = { campus: options.campus ?? 'hr-rfp', emptyPlaceholders: options.emptyPlaceholders ?? true };
    this.maxPageSize = options.maxPageSize ?? 100;
    this.logSize = options.requestLogSize ?? 1000;
    this.catalogue = new SimCatalogue({ seed: this.seed, size: options.products ?? 1000, now: options.now });
    this.settings = checkFaults({
      overheadMs: options.overheadMs ?? 500,
      perItemMs: options.perItemMs ?? 0,
      errorRate: options.errorRate ?? 0,
      throttleRate: options.throttleRate ?? 0,
      slowRate: options.slowRate ?? 0,
      slowMs: options.slowMs ?? 3000,
      retryAfterSeconds: options.retryAfterSeconds ?? 1,
    }, {} as FaultSettings);
    this.rng = new Rng(options.faultSeed ?? this.seed, FAULT_STREAM, 0);
    this.server = http.createServer((request, response) => {
      const url = request.url ?? '/';
      const q = url.indexOf('?');
      const path = q < 0 ? url : url.slice(0, q);
      const query = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
      const handled = path === '/__sim' || path.startsWith('/__sim/') ? this.admin(request, response, path, query) : this.legacy(request, response, path, query);
      handled.catch((thrown: unknown) => {
        console.error('legacy simulator: request failed', thrown);
        if (!response.headersSent) send(response, error(500, 'internal server error'), false);
      });
    });
    this.server.keepAliveTimeout = 5_000;
  }

  async start(port: number): Promise<void> {
    await this.listen(port);
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  stats(): SimStats {
    return structuredClone(this.counters);
  }

  resetStats(): void {
    const { active, inFlight } = this.counters;
    this.counters = { ...emptyStats(), active, inFlight, maxConcurrent: active, maxInFlight: inFlight };
    this.log = [];
  }

  requests(): RequestLogEntry[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  faults(): FaultSettings {
    return { ...this.settings };
  }

  setFaults(change: Partial<FaultSettings>): FaultSettings {
    return (this.settings = checkFaults(change, this.settings));
  }

  async down(mode: DownMode = '503', { forMs }: { forMs?: number } = {}): Promise<void> {
    clearTimeout(this.upTimer);
    this.downMode = mode;
    if (mode === 'refuse') await this.stopListening();
    else if (!this.listening && !this.closed) await this.listen(this.port);
    if (forMs !== undefined) this.upTimer = setTimeout(() => void this.up(), forMs);
  }

  async up(): Promise<void> {
    clearTimeout(this.upTimer);
    this.downMode = undefined;
    if (!this.listening && !this.closed) await this.listen(this.port);
  }

  view(id: number): AdminView | undefined {
    const product = this.catalogue.get(id);
    return product ? this.viewOf(product) : undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.upTimer);
    for (const wake of [...this.sleepers]) wake();
    await this.stopListening();
  }

  private viewOf(product: SimProduct): AdminView {
    return {
      ...legacyDetail(product, this.shape),
      styles: legacyStyles(product, { ...this.shape, emptyPlaceholders: false }).results,
      related: this.catalogue.relatedOf(product),
    };
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => { clearTimeout(timer); this.sleepers.delete(done); resolve(); };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private serially(fn: () => Promise<void>): Promise<void> {
    const turn = this.tail.then(fn);
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** A random fault for this turn, or none; three draws every time so the sequence depends on the seed alone. */
  private drawFault(): { kind?: 'error' | 'throttle'; slow: boolean; status: number } {
    const u = this.rng.next();
    const slow = this.rng.next() < this.settings.slowRate;
    const status = this.rng.pick(ERROR_STATUSES);
    const kind = u < this.settings.errorRate ? 'error' : u < this.settings.errorRate + this.settings.throttleRate ? 'throttle' : undefined;
    return { kind, slow, status };
  }

  private record(entry: RequestLogEntry, status: number | 'reset', started: number, fault?: RequestLogEntry['fault']): void {
    entry.status = status;
    entry.ms = Date.now() - started;
    if (fault) entry.fault = fault;
    this.counters.byStatus[String(status)] = (this.counters.byStatus[String(status)] ?? 0) + 1;
    this.counters.inFlight--;
  }

  /** Counts and logs a legacy request on arrival. */
  private received(method: string, url: string, route: RouteKey, started: number): RequestLogEntry {
    const stats = this.counters;
    stats.received++;
    stats.byRoute[route]++;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    const entry: RequestLogEntry = { seq: ++this.seq, method, url, route, receivedAt: new Date(started).toISOString() };
    this.log.push(entry);
    if (this.log.length > this.logSize) this.log = this.log.slice(-this.logSize);
    return entry;
  }

  private async legacy(request: http.IncomingMessage, response: http.ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const started = Date.now();
    const method = request.method ?? 'GET';
    const route = matchRoute(method, path);
    const entry = this.received(method, request.url ?? path, route.key, started);
    if (this.downMode === '503' || this.downMode === 'reset') {
      this.counters.faults.down++;
      if (this.downMode === 'reset') {
        this.record(entry, 'reset', started, 'down');
        request.socket.destroy();
        return;
      }
      this.record(entry, 503, started, 'down');
      send(response, error(503, 'service unavailable', { 'retry-after': String(this.settings.retryAfterSeconds) }), method === 'HEAD');
      return;
    }
    const read = await readBody(request);
    await this.serially(async () => {
      const stats = this.counters;
      stats.active++;
      stats.maxConcurrent = Math.max(stats.maxConcurrent, stats.active);
      try {
        await this.sleep(this.settings.overheadMs);
        const fault = this.drawFault();
        if (fault.slow) { stats.faults.slow++; await this.sleep(this.settings.slowMs); }
        let answer: Answer;
        if (fault.kind !== undefined) {
          stats.faults[fault.kind]++;
          answer = faultAnswer(fault.kind, fault.status, this.settings.retryAfterSeconds);
        } else {
          const body = method === 'POST' || method === 'PUT' ? parseBody(request, read) : { kind: 'none' as const };
          answer = legacyAnswer({ catalogue: this.catalogue, shape: this.shape, maxPageSize: this.maxPageSize, stats }, method, route, path, query, body);
          await this.sleep(itemsIn(answer) * this.settings.perItemMs);
          if (fault.slow) answer = { ...answer, headers: { ...answer.headers, 'x-legacy-sim-fault': 'slow' }, fault: 'slow' };
        }
        this.record(entry, answer.status, started, answer.fault);
        send(response, answer, method === 'HEAD');
      } finally {
        stats.active--;
      }
    });
  }

  private async admin(request: http.IncomingMessage, response: http.ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const reply = (answer: Answer) => send(response, answer, false);
    try {
      reply(await this.adminAnswer(request, response, path, query));
    } catch (thrown) {
      if (thrown instanceof BadRequest || thrown instanceof ValidationError || thrown instanceof URIError) return reply(error(400, thrown.message));
      if (thrown instanceof NotFoundError) return reply(error(404, thrown.message));
      console.error('legacy simulator: internal error in an admin route', thrown);
      return reply(error(500, 'internal server error'));
    }
  }

  private async adminAnswer(request: http.IncomingMessage, response: http.ServerResponse, path: string, query: URLSearchParams): Promise<Answer> {
    const method = request.method ?? 'GET';
    const productPath = /^\/__sim\/products\/([^/]+)$/.exec(path);
    if (method === 'GET' && path === '/__sim/stats') return { status: 200, body: this.stats() };
    if (method === 'POST' && path === '/__sim/reset-stats') { this.resetStats(); return { status: 200, body: this.stats() }; }
    if (method === 'GET' && path === '/__sim/requests') {
      const limit = positiveInt(queryParam(query, 'limit'), 'limit', { fallback: this.logSize });
      return { status: 200, body: this.log.slice(-limit) };
    }
    if (method === 'GET' && path === '/__sim/config') return { status: 200, body: this.config() };
    if (method === 'POST' && path === '/__sim/faults') {
      this.settings = checkFaults((await readJson(request)) ?? {}, this.settings);
      return { status: 200, body: this.config() };
    }
    if (method === 'POST' && path === '/__sim/down') return this.adminDown(request, response);
    if (method === 'POST' && path === '/__sim/up') { await this.up(); return { status: 200, body: this.config() }; }
    if (method === 'POST' && path === '/__sim/reset-catalogue') { this.catalogue.reset(); return { status: 200, body: this.config() }; }
    if (method === 'POST' && path === '/__sim/products') {
      const { change } = parseAdminProduct(await readJson(request), 'create');
      if (change.id !== undefined && this.catalogue.get(change.id)) throw new ValidationError('id', `product ${change.id} already exists`);
      return { status: 201, body: this.viewOf(this.catalogue.create(change)) };
    }
    if (productPath) {
      const answer = await this.adminProduct(request, method, positiveInt(decodeURIComponent(productPath[1] as string), 'product_id'));
      if (answer) return answer;
    }
    return error(404, `no admin route ${method} ${JSON.stringify(path)} (see docs/legacy-simulator.md)`);
  }

  private async adminDown(request: http.IncomingMessage, response: http.ServerResponse): Promise<Answer> {
    const body = ((await readJson(request)) ?? {}) as { mode?: unknown; forMs?: unknown };
    const mode = body.mode ?? '503';
    if (typeof mode !== 'string' || !DOWN_MODES.includes(mode as DownMode)) throw new ValidationError('mode', `must be one of ${DOWN_MODES.join(', ')}`);
    if (body.forMs !== undefined && (typeof body.forMs !== 'number' || !Number.isInteger(body.forMs) || body.forMs < 1)) throw new ValidationError('forMs', 'must be a positive whole number of milliseconds');
    if (mode === 'refuse' && body.forMs === undefined) throw new ValidationError('forMs', 'is required with mode "refuse" (nothing answers on this port until then, /__sim/up included)');
    const forMs = body.forMs as number | undefined;
    if (mode === 'refuse') {
      // Answer first, then stop listening.
      response.once('finish', () => void this.down('refuse', { forMs }));
      return { status: 200, body: { down: mode, forMs } };
    }
    await this.down(mode as DownMode, { forMs });
    return { status: 200, body: this.config() };
  }

  /** GET, POST (patch) or DELETE /__sim/products/:id; undefined for another method. */
  private async adminProduct(request: http.IncomingMessage, method: string, id: number): Promise<Answer | undefined> {
    if (method === 'GET') {
      const product = this.catalogue.get(id);
      if (!product) throw new ProductNotFound(id);
      return { status: 200, body: this.viewOf(product) };
    }
    if (method === 'POST') {
      const { change, touch } = parseAdminProduct(await readJson(request), 'patch');
      const updated = this.catalogue.update(id, change, { touch });
      if (!updated) throw new ProductNotFound(id);
      return { status: 200, body: this.viewOf(updated) };
    }
    if (method === 'DELETE') {
      if (!this.catalogue.delete(id)) throw new ProductNotFound(id);
      return { status: 204 };
    }
    return undefined;
  }

  private config() {
    return {
      url: this.url,
      products: this.catalogue.count,
      seed: this.seed,
      faultSeed: this.options.faultSeed ?? this.seed,
      campus: this.shape.campus,
      emptyPlaceholders: this.shape.emptyPlaceholders,
      maxPageSize: this.maxPageSize,
      faults: this.settings,
      down: this.downMode ?? null,
    };
  }

  private listen(port: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        this.listening = true;
        resolve();
      });
    });
  }

  private stopListening(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (!this.listening) { resolve(); return; }
      this.listening = false;
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

export async function startLegacySimulator(options: LegacySimulatorOptions = {}): Promise<LegacySimulator> {
  const simulator = new Simulator(options);
  await simulator.start(options.port ?? 0);
  return simulator;
}
