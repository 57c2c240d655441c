// Shared shell for command-line entry points: known failures print one clear
// line and exit non-zero; only genuine bugs print a stack trace.
import { ConfigError } from '../config.ts';

export class UsageError extends Error {}

/** Errors whose message is the whole story for an operator. */
const EXPECTED = new Set(['ConfigError', 'UsageError', 'MigrationError', 'LoadError', 'GenerateError', 'BenchError', 'DrainTimeout']);

export function runCommand(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      if (error instanceof ConfigError || (error instanceof Error && EXPECTED.has(error.constructor.name))) {
        console.error(`error: ${error.message}`);
      } else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && /^(ECONNREFUSED|ENOTFOUND|28P01|3D000)$/.test(error.code)) {
        console.error(`error: cannot connect to Postgres: ${error.message}`);
      } else {
        console.error(error);
      }
      process.exit(1);
    },
  );
}
