// A TCP forwarder between a server and its clients, for faults a test needs
// to control per client: cut the path (existing connections reset, new ones
// refused) and restore it, or point it at another server (a failover behind
// one address, as a virtual IP or a DNS switch does), or delay the server's
// answers (a statement runs at once, its rows arrive late: a read that spans
// a write made meanwhile elsewhere).
import net from 'node:net';
import { freePort } from '../../bench/lib/free-port.ts';

export class TcpProxy {
  readonly port: number;
  private target: number;
  private blocked = false;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  private constructor(port: number, target: number, answerDelayMs: number) {
    this.port = port;
    this.target = target;
    this.server = net.createServer((incoming) => {
      if (this.blocked) {
        incoming.resetAndDestroy();
        return;
      }
      const outgoing = net.connect({ host: '127.0.0.1', port: this.target });
      for (const socket of [incoming, outgoing]) {
        this.sockets.add(socket);
        socket.setNoDelay(true);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          incoming.destroy();
          outgoing.destroy();
        });
      }
      incoming.pipe(outgoing);
      // Each chunk held as long as the others: they arrive in order.
      if (answerDelayMs > 0) outgoing.on('data', (chunk) => setTimeout(() => incoming.write(chunk), answerDelayMs));
      else outgoing.pipe(incoming);
    });
  }

  /** `answerDelayMs`: how late the server's answers reach the clients (0: at once). */
  static async start(target: number, options: { answerDelayMs?: number } = {}): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target, options.answerDelayMs ?? 0);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(proxy.port, '127.0.0.1', resolve);
    });
    return proxy;
  }

  /** `url` (a server's) through this proxy. */
  urlOf(url: string): string {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  /** Resets every connection through the proxy now. */
  cut(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
  }

  /** Refuses new connections until unblock(), and cuts the existing ones unless `keepOpen`. */
  block(options: { keepOpen?: boolean } = {}): void {
    this.blocked = true;
    if (!options.keepOpen) this.cut();
  }

  unblock(): void {
    this.blocked = false;
  }

  /** New connections go to `target`; existing ones are cut (their server is gone). */
  retarget(target: number): void {
    this.target = target;
    this.cut();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
