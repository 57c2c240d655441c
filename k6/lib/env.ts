// Reads k6's __ENV with the same rules as the server's src/config.ts: every bad
// value is collected with its variable name and what was expected, and all of
// them are reported at once (k6 cannot import src/config.ts: it reads
// process.env and node:path, which k6 does not have).

/** "500ms", "30s", "5m", "1h30m": k6's duration syntax, as milliseconds. */
export function durationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  for (const [, amount, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|s|m|h)/g)) total += Number(amount) * unitMs[unit as keyof typeof unitMs];
  return total;
}

export class EnvReader {
  readonly problems: string[] = [];
  private readonly env: Record<string, string | undefined>;
  constructor(env: Record<string, string | undefined>) {
    this.env = env;
  }

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  httpUrl(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback;
    if (!/^https?:\/\/[^/\s]+(\/\S*)?$/.test(value)) this.problems.push(`${name} must be an http:// or https:// URL (got "${value}")`);
    return value.replace(/\/+$/, '');
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    return this.optionalInteger(name, min, max) ?? fallback;
  }

  optionalInteger(name: string, min: number, max: number): number | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return undefined;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  /** A k6 duration ("30s", "5m", "1h30m"), returned as written and in milliseconds. */
  duration(name: string, fallback: string): { text: string; ms: number } {
    const text = this.raw(name) ?? fallback;
    const ms = durationMs(text);
    if (ms === undefined || ms <= 0) {
      this.problems.push(`${name} must be a duration such as 30s, 5m or 1h30m (got "${text}")`);
      return { text: fallback, ms: durationMs(fallback) ?? 0 };
    }
    return { text, ms };
  }

  /** Throws one error naming every bad variable; k6 prints it and exits. */
  finish(): void {
    if (this.problems.length > 0) throw new Error(`Invalid k6 settings:\n${this.problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
