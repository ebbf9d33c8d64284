// `window.trove` in a plain browser (`trove serve --ui`): the same bridge as the preload's, over
// the host's HTTP API. Relative URLs, so the UI works wherever the host mounts it. The session
// cookie (set by /signin) rides along; no token is ever visible to page scripts.
import { ApiError, type ApiReply, type TroveBridge } from '../../src-main/api/bridge';
import { checkParams, isApiMethod } from '../../src-main/api/methods';
import type { ApiEvent } from '../../src-main/api/results';

export function httpBridge(base = './api/'): TroveBridge {
  const listeners = new Set<(e: ApiEvent) => void>();
  let source: EventSource | null = null;

  const connectEvents = () => {
    if (source) return;
    source = new EventSource(`${base}events`);
    source.onmessage = (m) => {
      let event: ApiEvent;
      try {
        event = JSON.parse(m.data as string) as ApiEvent;
      } catch {
        return; // a damaged frame is skipped; the next snapshot repairs the view
      }
      for (const l of listeners) l(event);
    };
  };

  return {
    platform: 'web',
    async call(method, params) {
      if (!isApiMethod(method)) throw new ApiError('NOT_FOUND', `unknown app API method "${String(method)}"`);
      const checked = checkParams(method, params);
      if (!checked.ok) throw new ApiError(checked.error.code, checked.error.message);
      let res: Response;
      try {
        res = await fetch(`${base}${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(checked.params),
          credentials: 'same-origin',
        });
      } catch (err) {
        throw new ApiError('UNAVAILABLE', `the Trove server is not answering (${(err as Error).message})`);
      }
      let reply: ApiReply<typeof method>;
      try {
        reply = (await res.json()) as ApiReply<typeof method>;
      } catch {
        throw new ApiError('INTERNAL', `the Trove server answered HTTP ${res.status} without a readable body`);
      }
      if (!reply.ok) throw new ApiError(reply.error.code, reply.error.message);
      if (!source && listeners.size) connectEvents();
      return reply.result;
    },
    onEvent(listener) {
      // the stream opens after the first successful call: before sign-in it would only retry 401s
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (!listeners.size) {
          source?.close();
          source = null;
        }
      };
    },
  };
}
