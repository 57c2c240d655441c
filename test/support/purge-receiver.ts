// A stand-in CDN purge API (CDN_PURGE_URL, src/cache/cdn-purge.ts) on a
// loopback port: records every call it answers 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in CDN purge API: records every call; answers with the next queued status (200 when none). */
export class PurgeReceiver {
  readonly calls: { tags: string[]; surrogateKey: string | undefined; authorization: string | undefined }[] = [];
  readonly statuses: number[] = [];
  private server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      const status = this.statuses.shift() ?? 200;
      if (status === 200) {
        this.calls.push({ tags: (JSON.parse(body) as { tags: string[] }).tags, surrogateKey: request.headers['surrogate-key'] as string | undefined, authorization: request.headers.authorization });
      }
      response.writeHead(status, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/purge`;
  }
  /** Every tag received so far. */
  tags(): string[] {
    return this.calls.flatMap((call) => call.tags);
  }
  async waitFor(tags: string[], timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!tags.every((tag) => this.tags().includes(tag))) {
      if (Date.now() > deadline) throw new Error(`purge of ${tags.join(' ')} never arrived (got ${JSON.stringify(this.calls)})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
