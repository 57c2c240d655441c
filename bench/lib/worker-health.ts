// /healthz of every cluster worker behind one port (with the bench's admin
// token: the details are not shown to anyone). Each answer carries the
// worker's pid; the port hands each new connection to the next listening
// worker, so asking over fresh connections reaches them all in turn.
import { ADMIN_HEADERS } from './admin-token.ts';
import { freshGet } from './fresh-get.ts';

export interface Health {
  pid?: number;
  cache?: { hits?: number; misses?: number };
}

/** Health by pid, from up to `attempts` probes, stopping once `workers` pids have answered. */
export async function healthOfWorkers(url: string, workers: number, attempts = 20 * workers): Promise<Map<number, Health>> {
  const byPid = new Map<number, Health>();
  for (let attempt = 0; attempt < attempts && byPid.size < workers; attempt++) {
    const health = JSON.parse((await freshGet(`${url}/healthz`, ADMIN_HEADERS)).body) as Health;
    if (health.pid === undefined) break;
    byPid.set(health.pid, health);
  }
  return byPid;
}
