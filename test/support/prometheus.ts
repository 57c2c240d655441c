// Reads the Prometheus text exposition format (what /metrics answers), so
// tests can compare series before and after the requests they make.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
}

export class Scrape {
  readonly text: string;
  readonly samples: Sample[] = [];
  /** Metric names with their # TYPE. */
  readonly types = new Map<string, string>();

  constructor(text: string) {
    this.text = text;
    for (const line of text.split('\n')) {
      if (line.startsWith('# TYPE ')) {
        const [, , name, type] = line.split(' ');
        if (name && type) this.types.set(name, type);
        continue;
      }
      if (line === '' || line.startsWith('#')) continue;
      const match = LINE.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key as string] = unescape(value as string);
      this.samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
    }
  }

  /** Every sample of `name` whose labels include `labels`. */
  matching(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** The sum of the matching samples' values (0 when there are none). */
  sum(name: string, labels: Record<string, string> = {}): number {
    return this.matching(name, labels).reduce((total, s) => total + s.value, 0);
  }
}
