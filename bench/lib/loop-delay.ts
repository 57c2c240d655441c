// Imported into a process by bench:live --profile (node --import): records its
// event loop's delay and writes the figures to LOOP_DELAY_FILE when it exits.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LOOP_DELAY_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // The histogram measures the timer's whole interval: its resolution is taken off.
  const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - 1000) / 100);
  process.once('exit', () => {
    fs.writeFileSync(file, JSON.stringify({ p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), p999: ms(histogram.percentile(99.9)), max: ms(histogram.max) }));
  });
}
