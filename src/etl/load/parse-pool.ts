// The loader's parse threads: one per core, each parsing and cleaning whole
// chunks of a file (parse-worker.ts), so the CSV work of one big file is
// spread over every core instead of one.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ChunkResult, ChunkTask, WorkerReply } from './parse-protocol.ts';
import type { LoadedIds } from './tables.ts';

interface Job { task: ChunkTask; resolve: (result: ChunkResult) => void; reject: (error: Error) => void }

// A worker holds one 256 KB chunk's text, its parsed rows and their COPY text:
// well under this. These caps, the main heap's (64 MB) and MALLOC_ARENA_MAX=2
// (both set by package.json's data:load: glibc otherwise gives each thread
// malloc arenas of its own, resident memory no heap cap bounds) keep the
// whole process under 300 MB resident.
const WORKER_HEAP_MB = 32;

export class ParsePool {
  private readonly idle: Worker[] = [];
  private readonly all: Worker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<Worker, Job>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor(size = Math.min(os.availableParallelism(), 4)) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./parse-worker.ts', import.meta.url), {
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 8 },
      });
      worker.on('message', (reply: WorkerReply) => {
        const job = this.running.get(worker);
        this.running.delete(worker);
        this.idle.push(worker);
        if (job) {
          if ('error' in reply) job.reject(new Error(reply.error));
          else job.resolve(reply.result);
        }
        this.dispatch();
      });
      const fail = (error: Error) => {
        this.failure ??= error;
        this.running.get(worker)?.reject(error);
        this.running.delete(worker);
        for (const job of this.queue.splice(0)) job.reject(error);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => { if (code !== 0) fail(new Error(`a parse worker exited with code ${code}`)); });
      this.all.push(worker);
      this.idle.push(worker);
    }
  }

  /** The parent ids the next files' rows are checked against. */
  setParents(loaded: LoadedIds): void {
    for (const worker of this.all) worker.postMessage({ type: 'parents', products: loaded.products.bytes, styles: loaded.styles.bytes });
  }

  run(task: Omit<ChunkTask, 'id' | 'type'>): Promise<ChunkResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { ...task, type: 'chunk', id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const job = this.queue.shift()!;
      this.running.set(worker, job);
      worker.postMessage(job.task);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((worker) => worker.terminate()));
  }
}
