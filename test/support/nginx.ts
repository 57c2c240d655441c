// Debian's nginx for the load-balancer test (.ci/run installs it). Like Redis,
// it is never skipped in CI: there, a missing binary is a failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export function nginxAvailable(): boolean {
  const found = fs.existsSync('/usr/sbin/nginx') || spawnSync('nginx', ['-v']).status === 0;
  if (!found && process.env.CI) throw new Error('nginx is not installed; .ci/run must install it (the load-balancer test never skips in CI)');
  return found;
}

/** TCP connections in the ESTABLISHED state whose local port is `port` (Linux: /proc/net/tcp). */
export function establishedConnections(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '01').length;
}
