// Writes one legacy file in a worker thread, reporting progress to the parent.
import { parentPort, workerData } from 'node:worker_threads';
import { writeLegacyFile } from './files.ts';
import type { FileName, Plan } from './plan.ts';

const { file, plan, path } = workerData as { file: FileName; plan: Plan; path: string };
const report = writeLegacyFile(file, plan, path, (rows) => parentPort?.postMessage({ type: 'progress', rows }));
parentPort?.postMessage({ type: 'done', report });
