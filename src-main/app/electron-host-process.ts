// The real HostProcess: the engine host in an Electron utilityProcess. Only main.ts imports this.
import { utilityProcess } from 'electron';
import type { ToHost } from '../api/host-protocol.js';
import type { HostProcess } from './host-supervisor.js';

export function launchUtilityHost(entry: string, args: string[], env: NodeJS.ProcessEnv): HostProcess {
  const child = utilityProcess.fork(entry, args, { serviceName: 'Trove engine', stdio: 'inherit', env });
  return {
    postMessage: (m: ToHost) => child.postMessage(m),
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.once('exit', listener),
    kill: () => {
      child.kill();
    },
  };
}
