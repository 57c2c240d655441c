// Runs a server script of test/support (pg-server.ts, standby-server.ts) in a
// child process: it prints one JSON line when ready, stops its server on
// SIGTERM, and stops it too when our stdin closes, so a test runner that dies
// leaves no server behind.
import { spawn } from 'node:child_process';

export interface ServerProcess<Ready> {
  /** The JSON line the script printed when it was ready. */
  ready: Ready;
  /** Stops the server and waits until the process has exited. */
  stop(): Promise<void>;
}

export async function startServerProcess<Ready>(script: string, args: string[]): Promise<ServerProcess<Ready>> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Ready);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
