// The one bridge the screens use: the preload's `window.trove` inside Electron, else HTTP.
import type { TroveBridge } from '../../src-main/api/bridge';
import { httpBridge } from './http-bridge';

declare global {
  interface Window {
    trove?: TroveBridge;
  }
}

export const trove: TroveBridge = window.trove ?? httpBridge();

/** The code of a failed call (the preload's errors arrive without one: they cross contextBridge). */
export function errorCode(err: unknown): string | null {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : null;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
