// A real OTLP/HTTP receiver for tests: test/support/otlp-receiver/main.go,
// which decodes what it is sent with the OpenTelemetry Collector's own pdata
// package and prints each span as a JSON line. Built once with the machine's
// Go (/usr/local/go, modules from the Go module proxy) into
// ~/.cache/catalogue-api/bin, outside the repository; without Go the tests
// that need it are skipped.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SOURCE = path.resolve(import.meta.dirname, 'otlp-receiver');
const BINARY = path.join(os.homedir(), '.cache/catalogue-api/bin/otlp-receiver');
const GO = ['/usr/local/go/bin/go', 'go'].find((candidate) => {
  try {
    execFileSync(candidate, ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: string;
  startUnixNano: number;
  endUnixNano: number;
  status: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  scope: string;
}

/** Whether the receiver is built or can be (Go is installed). */
export function otlpReceiverAvailable(): boolean {
  return fs.existsSync(BINARY) || GO !== undefined;
}

/** The receiver's binary, built from its source when missing or older than it. */
function receiverBinary(): string {
  const built = fs.existsSync(BINARY) ? fs.statSync(BINARY).mtimeMs : 0;
  const newest = Math.max(...['main.go', 'go.mod', 'go.sum'].map((file) => fs.statSync(path.join(SOURCE, file)).mtimeMs));
  if (built < newest) {
    fs.mkdirSync(path.dirname(BINARY), { recursive: true });
    execFileSync(GO!, ['build', '-o', BINARY, '.'], { cwd: SOURCE, stdio: 'inherit', timeout: 600_000 });
  }
  return BINARY;
}

export class OtlpReceiver {
  /** Every span received so far, in the order received. */
  readonly spans: ReceivedSpan[];
  readonly url: string;
  private readonly child: ChildProcess;
  private constructor(url: string, child: ChildProcess, spans: ReceivedSpan[]) {
    this.url = url;
    this.child = child;
    this.spans = spans;
  }

  /** Starts a receiver on a free port of 127.0.0.1. */
  static async start(): Promise<OtlpReceiver> {
    const child = spawn(receiverBinary(), ['--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const spans: ReceivedSpan[] = [];
    let rest = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the OTLP receiver exited (${code}) before listening`)));
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          const parsed = JSON.parse(line) as { listening?: number } & ReceivedSpan;
          if (parsed.listening !== undefined) resolve(parsed.listening);
          else spans.push(parsed);
        }
      });
    });
    return new OtlpReceiver(`http://127.0.0.1:${port}`, child, spans);
  }

  /** Waits until `done` holds of the spans received (or fails after `timeoutMs`). */
  async waitFor(done: (spans: ReceivedSpan[]) => boolean, timeoutMs = 20_000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.spans)) {
      if (Date.now() > deadline) throw new Error(`the OTLP receiver did not get the spans expected within ${timeoutMs} ms (got ${this.spans.map((span) => span.name).join(', ')})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.spans;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
