// Puts the app API on a running engine host: always as an AppApi object (the desktop app relays
// to it over IPC), and with `ui` also as the web UI on the host's HTTP server, with a sign-in
// link in runtime.json that is replaced by a fresh one each time a link is used.
import type { SettingSource } from '../api/results.js';
import type { AppApi } from './app-api.js';
import { createAppApi } from './app-api.js';
import { sameSecret, UiSessions } from './app-api-session.js';
import type { Host } from './host.js';
import { createUiRoutes, type UiRoutes } from './ui-routes.js';

export interface MountedAppApi {
  api: AppApi;
  /** The current one-time sign-in URL (null without `ui`). */
  signInUrl(): string | null;
  close(): Promise<void>;
}

export function mountAppApi(host: Host, opts: { ui: boolean; rendererDir?: string; modelsMirror?: string; databaseSource?: SettingSource }): MountedAppApi {
  const api = createAppApi({
    engine: host.engine,
    databaseSource: opts.databaseSource,
    connect: () => ({ endpoint: host.mcpUrl, token: host.token }),
    port: () => ({ running: host.port, source: host.portSource }),
    requests: host.mcp.requests,
    sessions: host.mcp.knowledgeSessions,
    modelsMirror: opts.modelsMirror,
  });
  let ui: UiRoutes | null = null;
  let current: string | null = null;
  if (opts.ui) {
    const fresh = () => {
      current = `${host.url}${ui!.newSignInPath()}`;
      host.setUiUrl(current);
    };
    // a used link is dead; runtime.json always holds one that still works
    const sessions = new UiSessions(Date.now, () => fresh());
    ui = createUiRoutes({ api, sessions, rendererDir: opts.rendererDir, acceptsBearer: (t) => sameSecret(t, host.token) });
    for (const r of ui.handlers) host.addRoute(r);
    fresh();
  }
  return {
    api,
    signInUrl: () => current,
    async close() {
      ui?.close();
      await api.close();
    },
  };
}
