// The preload: exposes exactly one object, `window.trove` (the app API), and nothing else.
// Calls are validated with the shared schemas before they cross IPC, so a bad call fails here
// with the same message the host would give. Built as one self-contained CJS file (sandbox).
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { z } from 'zod';
import { ApiError, IPC_CALL, IPC_EVENT, IPC_PICK_FOLDER, type ApiReply, type TroveBridge } from '../src-main/api/bridge';
import { checkParams, isApiMethod } from '../src-main/api/methods';
import type { ApiEvent } from '../src-main/api/results';

// the window's CSP forbids eval; zod would otherwise probe `new Function` on first parse
z.config({ jitless: true });

const bridge: TroveBridge = {
  platform: 'electron',
  async call(method, params) {
    if (!isApiMethod(method)) throw new ApiError('NOT_FOUND', `unknown app API method "${String(method)}"`);
    const checked = checkParams(method, params);
    if (!checked.ok) throw new ApiError(checked.error.code, checked.error.message);
    const reply = (await ipcRenderer.invoke(IPC_CALL, method, checked.params)) as ApiReply<typeof method>;
    if (!reply.ok) throw new ApiError(reply.error.code, reply.error.message);
    return reply.result;
  },
  onEvent(listener) {
    const handler = (_e: unknown, event: ApiEvent) => listener(event);
    ipcRenderer.on(IPC_EVENT, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT, handler);
    };
  },
  pathForFile: (file) => webUtils.getPathForFile(file),
  pickFolder: () => ipcRenderer.invoke(IPC_PICK_FOLDER) as Promise<string | null>,
};

contextBridge.exposeInMainWorld('trove', bridge);
