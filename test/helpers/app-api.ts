// The result of an app API call that must succeed (the error's code and message otherwise).
import type { ApiReply } from '../../src-main/api/bridge.js';

export function ok<T>(r: ApiReply): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.result as T;
}
