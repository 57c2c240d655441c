// A TCP relay that delays what one host sends, run inside that host's
// namespace, for kernels without tc netem (CONFIG_NET_SCH_NETEM is off in
// some, this development machine's among them). Each route relays `listen`
// to `target`; the direction the host sends (`egress`: toward the client or
// toward the target) is held for the current delay, in order, like a netem
// delay on the host's interface; the other direction passes at once.
//
//   node delay-relay.ts '[{"listen":"10.213.0.22:5432","target":"127.0.0.1:5433","egress":"toClient"}]'
//
// Prints {"ready": true} once every route listens; a line `delay <ms>` on
// stdin sets the delay (0: none) and is answered {"delay": <ms>}; exits on
// SIGTERM or when stdin closes.
import net from 'node:net';
import readline from 'node:readline';

interface Route { listen: string; target: string; egress: 'toClient' | 'toTarget' }

const routes = JSON.parse(process.argv[2] ?? '[]') as Route[];
let delayMs = 0;

function split(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at), port: Number(address.slice(at + 1)) };
}

/** from -> to, each chunk held until `delayed()` ms after it arrived, never reordered. */
function pipe(from: net.Socket, to: net.Socket, delayed: () => number): void {
  const queue: { due: number; chunk: Buffer | null }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let lastDue = 0;
  const flush = () => {
    timer = undefined;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.due <= now) {
      const { chunk } = queue.shift()!;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0]!.due - now);
  };
  const push = (chunk: Buffer | null) => {
    const due = Math.max(Date.now() + delayed(), lastDue);
    lastDue = due;
    queue.push({ due, chunk });
    if (timer === undefined) timer = setTimeout(flush, Math.max(0, queue[0]!.due - Date.now()));
  };
  from.on('data', (chunk: Buffer) => push(chunk));
  from.on('end', () => push(null));
}

const servers = routes.map((route) => {
  const target = split(route.target);
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ ...target, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => { client.destroy(); upstream.destroy(); });
    }
    const egress = () => delayMs;
    const none = () => 0;
    pipe(client, upstream, route.egress === 'toTarget' ? egress : none);
    pipe(upstream, client, route.egress === 'toClient' ? egress : none);
  });
  return new Promise<net.Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(split(route.listen).port, split(route.listen).host, () => resolve(server));
  });
});
await Promise.all(servers);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
const commands = readline.createInterface({ input: process.stdin });
commands.on('line', (line) => {
  const match = /^delay (\d+)$/.exec(line.trim());
  if (!match) return;
  delayMs = Number(match[1]);
  process.stdout.write(`${JSON.stringify({ delay: delayMs })}\n`);
});
commands.on('close', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
