// `window.trove`: the one object the renderer talks to. The preload provides it in Electron;
// in a browser (`trove serve --ui`) the renderer builds the same shape over HTTP.
import type { ApiMethod, ApiParams } from './methods.js';
import type { ApiEvent, ApiResult } from './results.js';

export interface TroveBridge {
  readonly platform: 'electron' | 'web';
  call<M extends ApiMethod>(method: M, params: ApiParams<M>): Promise<ApiResult<M>>;
  /** Returns the unsubscribe function. */
  onEvent(listener: (event: ApiEvent) => void): () => void;
  /** Electron only: the real path of a dropped folder (webUtils.getPathForFile). */
  pathForFile?(file: File): string;
  /** Electron only: the native folder picker; null when cancelled. */
  pickFolder?(): Promise<string | null>;
}

/** What crosses IPC and HTTP for one call. */
export type ApiReply<M extends ApiMethod = ApiMethod> = { ok: true; result: ApiResult<M> } | { ok: false; error: { code: string; message: string } };

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const IPC_CALL = 'trove:call';
export const IPC_EVENT = 'trove:event';
export const IPC_PICK_FOLDER = 'trove:pick-folder';
