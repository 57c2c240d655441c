// DATABASE_REPLICA_URLS and DATABASE_REPLICA_CHECK_MS: parsed into a list,
// every bad entry reported by its position without echoing credentials.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { configProblems } from '../support/config-problems.ts';

const problems = configProblems;

describe('read replica configuration', () => {
  it('is an empty list when unset, and each comma-separated URL otherwise', () => {
    expect(loadConfig({}).databaseReplicaUrls).toEqual([]);
    expect(loadConfig({}).databaseReplicaCheckMs).toBe(1000);
    const config = loadConfig({ DATABASE_REPLICA_URLS: ' postgres://u:p@replica-1:5432/catalogue, postgresql://u:p@replica-2/catalogue ', DATABASE_REPLICA_CHECK_MS: '250' });
    expect(config.databaseReplicaUrls).toEqual(['postgres://u:p@replica-1:5432/catalogue', 'postgresql://u:p@replica-2/catalogue']);
    expect(config.databaseReplicaCheckMs).toBe(250);
  });

  it('names every bad entry by its position and never prints its password', () => {
    const found = problems({ DATABASE_REPLICA_URLS: 'postgres://u:secret@good/db,http://u:secret@web/db,,not a url secret', DATABASE_REPLICA_CHECK_MS: '5' });
    expect(found).toEqual([
      'DATABASE_REPLICA_URLS entry 2 of 4 must start with postgres:// or postgresql:// (got "http://...")',
      'DATABASE_REPLICA_URLS entry 3 of 4 is empty (expected comma-separated URLs)',
      'DATABASE_REPLICA_URLS entry 4 of 4 is not a valid URL',
      'DATABASE_REPLICA_CHECK_MS must be an integer from 10 to 60000 (got "5")',
    ]);
    expect(found.join('\n')).not.toContain('secret');
  });

  it('still checks DATABASE_URL the same way', () => {
    expect(problems({ DATABASE_URL: 'mysql://x/y' })).toEqual(['DATABASE_URL must start with postgres:// or postgresql:// (got "mysql://...")']);
    expect(problems({ DATABASE_URL: 'nope' })).toEqual(['DATABASE_URL is not a valid URL']);
  });
});
