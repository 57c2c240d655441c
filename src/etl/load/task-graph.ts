// Runs the loader's database work after the files (index builds, foreign-key
// validations, ANALYZE, the read models) as one graph on a few connections
// instead of steps with a barrier between each: a task starts as soon as a
// connection is free and the tasks it needs are done, in the order given
// (so the long chains go first). Barriers left one core idle at the end of
// every step while its last, longest build ran.

export interface Task {
  name: string;
  /** Names of the tasks that must be done first. */
  after?: string[];
  /** What it is, for the busy-time summary and the progress (index, documents, ...). */
  kind: string;
  /** How many of its kind's items it does, for the progress (products for the read models' rows; 1 by default). */
  items?: number;
  /** Resolves with the database CPU seconds it took, where known. */
  run: () => Promise<number | void>;
}

/** Busy seconds per kind of task (summed over the connections). */
export type BusySeconds = Record<string, number>;

export interface GraphTimes {
  /** Wall seconds per kind, summed over the connections. */
  busy: BusySeconds;
  /** Database CPU seconds per kind, where the tasks report it. */
  cpu: BusySeconds;
}

export async function runGraph(tasks: Task[], concurrency: number, onDone?: (task: Task) => void): Promise<GraphTimes> {
  const names = new Set(tasks.map((t) => t.name));
  for (const task of tasks) {
    for (const dependency of task.after ?? []) {
      if (!names.has(dependency)) throw new Error(`task ${task.name} waits for ${dependency}, which is not in the graph`);
    }
  }
  const done = new Set<string>();
  const pending = [...tasks];
  const busy: BusySeconds = {};
  const cpu: BusySeconds = {};
  let running = 0;
  let failure: unknown;
  return new Promise((resolve, reject) => {
    const next = (): void => {
      if (failure !== undefined) {
        if (running === 0) reject(failure);
        return;
      }
      if (pending.length === 0 && running === 0) { resolve({ busy, cpu }); return; }
      while (running < concurrency) {
        const index = pending.findIndex((t) => (t.after ?? []).every((d) => done.has(d)));
        if (index === -1) break;
        const [task] = pending.splice(index, 1) as [Task];
        running++;
        const started = performance.now();
        task.run().then((seconds) => {
          busy[task.kind] = (busy[task.kind] ?? 0) + (performance.now() - started) / 1000;
          if (typeof seconds === 'number') cpu[task.kind] = (cpu[task.kind] ?? 0) + seconds;
          done.add(task.name);
          onDone?.(task);
        }, (error: unknown) => {
          failure ??= error;
        }).finally(() => {
          running--;
          next();
        });
      }
      if (running === 0 && pending.length > 0 && failure === undefined) {
        reject(new Error(`tasks waiting for each other: ${pending.map((t) => t.name).join(', ')}`));
      }
    };
    next();
  });
}
