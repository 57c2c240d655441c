// npm run keys -- create --name <name> [--rate <per-minute>] | list | revoke <prefix|id>
// Manages API keys in DATABASE_URL (or the embedded server). `create` prints
// the secret once, alone on stdout (so `$(npm run -s keys -- create ...)`
// captures it), and its details on stderr; only its hash is stored.
import { parseArgs } from 'node:util';
import { type ApiKeyRecord, ApiKeyStore } from '../auth/key-store.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/server/open-database.ts';
import { connectDatabase } from '../db/pool/pool.ts';
import { queryOnce } from '../db/pool/query-once.ts';
import { runCommand, UsageError } from './run.ts';

const USAGE = [
  'usage: npm run keys -- create --name <name> [--rate <requests per minute>]',
  '       npm run keys -- list',
  '       npm run keys -- revoke <prefix|id>',
].join('\n');

const MAX_RATE = 100_000_000;

function parse() {
  try {
    return parseArgs({ allowPositionals: true, options: { name: { type: 'string' }, rate: { type: 'string' } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

function parseRate(rate: string | undefined): number | null {
  if (rate === undefined) return null;
  if (!/^\d+$/.test(rate) || Number(rate) < 1 || Number(rate) > MAX_RATE) throw new UsageError(`--rate must be an integer from 1 to ${MAX_RATE} (got "${rate}")`);
  return Number(rate);
}

const when = (date: Date | null) => (date ? `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '-');

function table(keys: ApiKeyRecord[], defaultRate: number): string {
  const rows = [
    ['id', 'prefix', 'name', 'rate/min', 'created', 'revoked'],
    ...keys.map((key) => [String(key.id), key.prefix, key.name, key.ratePerMinute === null ? `${defaultRate} (default)` : String(key.ratePerMinute), when(key.createdAt), when(key.revokedAt)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n');
}

runCommand(async () => {
  const { values, positionals } = parse();
  const [action, target, ...extra] = positionals;
  if (extra.length > 0 || (action !== 'revoke' && target !== undefined)) throw new UsageError(`unexpected argument "${extra[0] ?? target}"\n${USAGE}`);
  if (action === 'create' && !values.name?.trim()) throw new UsageError(`create needs --name <name>\n${USAGE}`);
  if (action === 'revoke' && !target) throw new UsageError(`revoke needs the key's prefix or id (see npm run keys -- list)\n${USAGE}`);
  if (!['create', 'list', 'revoke'].includes(action ?? '')) throw new UsageError(action ? `unknown action "${action}"\n${USAGE}` : USAGE);
  const rate = parseRate(values.rate);

  const config = loadConfig();
  const handle = await openDatabase(config, (message) => console.error(message));
  const database = connectDatabase(handle.url, { poolSize: 1, pgOptions: config.pgOptions });
  const store = new ApiKeyStore(database);
  try {
    const [{ table: exists } = { table: null }] = await queryOnce<{ table: string | null }>(handle.url, `SELECT to_regclass('public.api_keys')::text AS table`);
    if (!exists) throw new UsageError('the database has no api_keys table yet: run npm run db:migrate first');
    if (action === 'create') {
      const { key, secret } = await store.create(values.name!.trim(), rate);
      const limit = key.ratePerMinute === null ? `the default, ${config.rateLimitKeyPerMinute} per minute (RATE_LIMIT_KEY_PER_MINUTE)` : `${key.ratePerMinute} per minute`;
      console.error(`created API key ${key.id} "${key.name}" (prefix ${key.prefix}, rate limit ${limit})`);
      console.error('the key follows; it is shown only this once (the database keeps only its sha256 hash):');
      console.log(secret);
    } else if (action === 'list') {
      console.log(table(await store.list(), config.rateLimitKeyPerMinute));
    } else {
      const key = await store.find(target!);
      if (!key) throw new UsageError(`no API key has the id or prefix "${target}" (see npm run keys -- list)`);
      if (key.revokedAt) throw new UsageError(`API key ${key.id} "${key.name}" (${key.prefix}) was already revoked at ${when(key.revokedAt)}`);
      const revoked = await store.revoke(key.id);
      console.log(`revoked API key ${revoked.id} "${revoked.name}" (${revoked.prefix}) at ${when(revoked.revokedAt)}; running servers refuse it within ${config.apiKeyCacheSeconds} s (API_KEY_CACHE_SECONDS)`);
    }
  } finally {
    await store.close();
    await database.close();
    await handle.close();
  }
});
