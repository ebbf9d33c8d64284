// The app API over the utilityProcess message port: the Electron main process sends `call`
// messages, the host answers each with a `reply` and pushes events. The port is an interface so
// the same code runs under Electron (process.parentPort) and in tests (a MessageChannel).
import { toHostSchema, type FromHost } from '../api/host-protocol.js';
import type { AppApi } from './app-api.js';

export interface HostPort {
  postMessage(message: FromHost): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
}

/** Serves `api` on `port`; resolves `onShutdown` when the main process asks the host to stop. */
export function serveAppApiOverPort(api: AppApi, port: HostPort, onShutdown: () => void): () => void {
  const unsubscribe = api.onEvent((event) => port.postMessage({ kind: 'event', event }));
  port.on('message', (e) => {
    const parsed = toHostSchema.safeParse(e.data);
    if (!parsed.success) {
      process.stderr.write(`trove host: dropped a malformed message from the main process\n`);
      return;
    }
    const msg = parsed.data;
    if (msg.kind === 'shutdown') {
      onShutdown();
      return;
    }
    void api.call(msg.method, msg.params).then((reply) => port.postMessage({ kind: 'reply', id: msg.id, reply }));
  });
  return unsubscribe;
}
