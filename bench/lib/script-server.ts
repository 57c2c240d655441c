// Runs a server script (test/support/pg-server.ts, ./postgres-server.ts,
// ./delay-relay.ts) in a child process: it prints one JSON line when ready,
// stops its server on SIGTERM, and stops it too when our stdin closes, so a
// runner that dies leaves no server behind. With `netns`, the script runs in
// that network namespace (ip netns exec, which execs node: the child is node).
import { spawn } from 'node:child_process';

export interface ScriptServer<Ready> {
  /** The JSON line the script printed when it was ready. */
  ready: Ready;
  /** The script's process id. */
  pid: number;
  /** Writes one line to the script's stdin (a command, for scripts that take them). */
  send(line: string): void;
  /** Stops the server and waits until the process has exited. */
  stop(): Promise<void>;
}

export async function startScriptServer<Ready>(script: string, args: string[], options: { netns?: string } = {}): Promise<ScriptServer<Ready>> {
  const command = options.netns ? ['ip', 'netns', 'exec', options.netns, process.execPath] : [process.execPath];
  const child = spawn(command[0]!, [...command.slice(1), script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
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
    pid: child.pid!,
    send: (line) => { child.stdin!.write(`${line}\n`); },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
