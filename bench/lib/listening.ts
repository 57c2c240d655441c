// Waiting for a server that gives no readiness line (redis-server) to accept connections.
import net from 'node:net';
import { BenchError } from './bench-error.ts';

function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

/** Resolves once host:port accepts a connection; fails after 10 s. */
export async function waitListening(host: string, port: number, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await listening(host, port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new BenchError(`${what} did not listen on ${host}:${port}`);
}
