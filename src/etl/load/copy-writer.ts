// Writes text to a Postgres COPY ... FROM STDIN stream with backpressure, and
// surfaces a server-side COPY error at the next write instead of hanging.
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

export class CopyWriter {
  private readonly stream: ReturnType<typeof copyFrom>;
  private failure: Error | undefined;

  constructor(client: pg.PoolClient | pg.Client, sql: string) {
    this.stream = client.query(copyFrom(sql));
    this.stream.on('error', (error: Error) => { this.failure ??= error; });
  }

  private waitFor(event: 'drain' | 'finish'): Promise<void> {
    return new Promise((resolve, reject) => {
      const cleanup = () => { this.stream.off(event, onEvent); this.stream.off('error', onError); };
      const onEvent = () => { cleanup(); resolve(); };
      const onError = (error: Error) => { cleanup(); reject(error); };
      this.stream.on(event, onEvent);
      this.stream.on('error', onError);
    });
  }

  async write(text: string | Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.stream.write(text)) await this.waitFor('drain');
  }

  async end(): Promise<void> {
    if (this.failure) throw this.failure;
    const finished = this.waitFor('finish');
    this.stream.end();
    await finished;
  }

  /** Abandons the COPY (the server rolls it back). */
  destroy(): void {
    if (!this.stream.destroyed) this.stream.destroy(new Error('load aborted'));
  }
}
