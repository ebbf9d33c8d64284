// The renderer's only way in: one IPC channel carrying app API calls to the engine host, plus
// the native folder picker. Every call is checked twice over (sender, then method and params
// with the shared schemas) before it reaches the supervisor. Electron's ipcMain is behind
// `IpcMainLike` so this is tested without Electron.
import { IPC_CALL, IPC_PICK_FOLDER, type ApiReply } from '../api/bridge.js';
import { checkParams, isApiMethod } from '../api/methods.js';

export interface IpcSenderEvent {
  senderFrame: { url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcSenderEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface RelayTarget {
  call(method: string, params: unknown): Promise<ApiReply>;
}

export interface RelayOptions {
  ipc: IpcMainLike;
  target: RelayTarget;
  /** True only for our own renderer's frames (see window-policy.ts). */
  isTrustedSender: (url: string) => boolean;
  pickFolder: () => Promise<string | null>;
}

export function registerIpcRelay(opts: RelayOptions): () => void {
  const trusted = (e: IpcSenderEvent) => !!e.senderFrame && opts.isTrustedSender(e.senderFrame.url);
  opts.ipc.handle(IPC_CALL, async (e, method, params): Promise<ApiReply> => {
    if (!trusted(e)) return { ok: false, error: { code: 'FORBIDDEN', message: 'calls are only accepted from the Trove window' } };
    if (!isApiMethod(method)) return { ok: false, error: { code: 'NOT_FOUND', message: `unknown app API method "${String(method)}"` } };
    const checked = checkParams(method, params);
    if (!checked.ok) return { ok: false, error: checked.error };
    return opts.target.call(method, checked.params);
  });
  opts.ipc.handle(IPC_PICK_FOLDER, async (e) => (trusted(e) ? opts.pickFolder() : null));
  return () => {
    opts.ipc.removeHandler(IPC_CALL);
    opts.ipc.removeHandler(IPC_PICK_FOLDER);
  };
}
