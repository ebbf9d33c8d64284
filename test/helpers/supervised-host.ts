// A HostSupervisor driving real child processes started with fork(), as the desktop app drives
// its utilityProcess: for tests that run an engine host script (a fixture or the bundle itself).
import { fork, type ChildProcess } from 'node:child_process';
import { HostSupervisor, type HostProcess } from '../../src-main/app/host-supervisor.js';

export interface SupervisedHost {
  sup: HostSupervisor;
  /** Every child started so far, oldest first (a restart adds one). */
  children: ChildProcess[];
  /** Stops the supervisor and kills any child still alive. */
  stop(): Promise<void>;
}

export function supervisedHost(script: string, opts: { execArgv: string[]; env: NodeJS.ProcessEnv; stdout?: 'inherit' | 'ignore'; stopTimeoutMs?: number }): SupervisedHost {
  const children: ChildProcess[] = [];
  const launch = (): HostProcess => {
    const child = fork(script, [], { execArgv: opts.execArgv, env: opts.env, stdio: ['ignore', opts.stdout ?? 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    return {
      postMessage: (m) => child.send(m),
      onMessage: (l) => child.on('message', l),
      onExit: (l) => child.once('exit', (code, signal) => l(code ?? (signal ? 128 : 1))),
      kill: () => void child.kill('SIGKILL'),
    };
  };
  const sup = new HostSupervisor({ launch, initialBackoffMs: 50, stopTimeoutMs: opts.stopTimeoutMs ?? 5000, log: () => undefined });
  return {
    sup,
    children,
    async stop() {
      await sup.stop();
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
}

/** Polls check every 25 ms until it holds; fails naming what it waited for. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
