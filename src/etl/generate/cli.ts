// npm run data:generate -- --scale <f> --out <dir> [--seed <n>] [--text realistic|unrelated|repetitive]
import { parseArgs } from 'node:util';
import { UsageError, runCommand } from '../../commands/run.ts';
import { generateCatalogue } from './generate.ts';
import { TEXT_STYLES, type TextStyle } from './values.ts';

const USAGE = 'usage: npm run data:generate -- --scale <fraction of full size, e.g. 0.01> --out <dir> [--seed <integer>] [--text realistic|unrelated|repetitive]';

runCommand(async () => {
  let values;
  try {
    ({ values } = parseArgs({ options: { scale: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string', default: '1' }, text: { type: 'string', default: 'realistic' } } }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const scale = Number(values.scale);
  if (values.scale === undefined || !Number.isFinite(scale) || scale <= 0 || scale > 10) throw new UsageError(`--scale must be a number above 0 and at most 10\n${USAGE}`);
  if (!values.out) throw new UsageError(`--out is required\n${USAGE}`);
  if (!/^\d+$/.test(values.seed) || Number(values.seed) > 2 ** 32 - 1) throw new UsageError('--seed must be an integer from 0 to 4294967295');
  const text = values.text as TextStyle;
  if (!TEXT_STYLES.includes(text)) throw new UsageError(`--text must be one of ${TEXT_STYLES.join(', ')}\n${USAGE}`);
  const started = Date.now();
  const manifest = await generateCatalogue({ scale, seed: Number(values.seed), out: values.out, text });
  const rows = Object.values(manifest.files).reduce((sum, f) => sum + f.rows, 0);
  console.log(`wrote ${rows.toLocaleString('en-US')} rows to ${values.out} in ${((Date.now() - started) / 1000).toFixed(1)} s (scale ${scale}, seed ${manifest.seed}, ${manifest.text} text)`);
  console.log(`expected after a clean load: ${Object.entries(manifest.expected).map(([t, n]) => `${t} ${n.toLocaleString('en-US')}`).join(', ')}`);
});
