// An embedded Postgres in a child process (./pg-server.ts): the one the whole
// test run shares (global-setup), or a test's own, which it can stop and
// start again to cause a real outage.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '../../bench/lib/free-port.ts';

type Message = { url?: string; stopped?: boolean };

export class PostgresProcess {
  readonly url: string;
  private readonly child: ChildProcess;
  private readonly messages: Message[];
  private readonly waiters: (() => void)[];

  private constructor(child: ChildProcess, url: string, messages: Message[], waiters: (() => void)[]) {
    this.child = child;
    this.url = url;
    this.messages = messages;
    this.waiters = waiters;
  }

  static async start(): Promise<PostgresProcess> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogue-test-pg-'));
    const child = spawn(process.execPath, [path.join(import.meta.dirname, 'pg-server.ts'), dir, String(await freePort())], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const messages: Message[] = [];
    const waiters: (() => void)[] = [];
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      messages.push(JSON.parse(line) as Message);
      for (const wake of waiters.splice(0)) wake();
    });
    const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code) => reject(new Error(`test Postgres exited with ${code}`))));
    exited.catch(() => {});
    const first = await Promise.race([PostgresProcess.next(messages, waiters, (m) => m.url !== undefined), exited]);
    return new PostgresProcess(child, first.url!, messages, waiters);
  }

  private static async next(messages: Message[], waiters: (() => void)[], match: (message: Message) => boolean): Promise<Message> {
    for (;;) {
      const index = messages.findIndex(match);
      if (index >= 0) return messages.splice(index, 1)[0]!;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }

  /** Stops the server (a fast shutdown: sessions are terminated); its data stays. */
  async stop(): Promise<void> {
    this.child.stdin!.write('stop\n');
    await PostgresProcess.next(this.messages, this.waiters, (m) => m.stopped === true);
  }

  /** Starts the stopped server again, on the same port with the same data. */
  async restart(): Promise<void> {
    this.child.stdin!.write('start\n');
    await PostgresProcess.next(this.messages, this.waiters, (m) => m.url !== undefined);
  }

  /** Stops the server and deletes its data. */
  async dispose(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
