// What loadConfig reports for an environment: the list of problems, empty when it is valid.
import { ConfigError, loadConfig } from '../../src/config.ts';

export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}
