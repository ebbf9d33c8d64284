// The Electron main process's decisions, without Electron: which IPC calls get through, what
// the window may load, what the tray says.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IPC_CALL, IPC_PICK_FOLDER, type ApiReply } from '../../src-main/api/bridge.js';
import type { SupervisorStatus } from '../../src-main/app/host-supervisor.js';
import { registerIpcRelay, type IpcMainLike, type IpcSenderEvent } from '../../src-main/app/ipc-relay.js';
import { trayMenu, trayStatusLine } from '../../src-main/app/tray-menu.js';
import { appEntry, isExternalLinkAllowed, secureWebPreferences } from '../../src-main/app/window-policy.js';

type Handler = (e: IpcSenderEvent, ...args: unknown[]) => unknown;

function fakeIpc() {
  const handlers = new Map<string, Handler>();
  const ipc: IpcMainLike = { handle: (c, l) => void handlers.set(c, l), removeHandler: (c) => void handlers.delete(c) };
  return { ipc, handlers };
}

describe('IPC relay', () => {
  const rendererHtml = path.resolve('/opt/trove/resources/app/out/renderer/index.html');
  const entry = appEntry(rendererHtml);
  const ours: IpcSenderEvent = { senderFrame: { url: `${entry.url}#search` } };
  const setup = () => {
    const { ipc, handlers } = fakeIpc();
    const forwarded: [string, unknown][] = [];
    const off = registerIpcRelay({
      ipc,
      target: { call: async (m, p): Promise<ApiReply> => (forwarded.push([m, p]), { ok: true, result: 'relayed' as never }) },
      isTrustedSender: entry.isApp,
      pickFolder: async () => '/home/me/notes',
    });
    return { call: handlers.get(IPC_CALL)!, pick: handlers.get(IPC_PICK_FOLDER)!, forwarded, off, handlers };
  };

  it('forwards a valid call from our window with its validated params', async () => {
    const { call, forwarded } = setup();
    await expect(call(ours, 'search', { query: '  retries  ', mode: 'keyword' })).resolves.toEqual({ ok: true, result: 'relayed' });
    expect(forwarded).toEqual([['search', { query: 'retries', mode: 'keyword' }]]);
  });

  it('refuses frames that are not our renderer', async () => {
    const { call, pick, forwarded } = setup();
    for (const url of ['https://evil.example/', 'file:///tmp/other.html', 'about:blank']) {
      await expect(call({ senderFrame: { url } }, 'status', {})).resolves.toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    await expect(call({ senderFrame: null }, 'status', {})).resolves.toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    await expect(pick({ senderFrame: { url: 'https://evil.example/' } })).resolves.toBeNull();
    expect(forwarded).toEqual([]);
  });

  it('rejects unknown methods and bad params with clear messages, before the host sees them', async () => {
    const { call, forwarded } = setup();
    await expect(call(ours, 'engine.dropAllTables', {})).resolves.toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('engine.dropAllTables') } });
    await expect(call(ours, 'search', { query: '' })).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: 'search: query: type something to search for' } });
    await expect(call(ours, 'search', { query: 'x', mode: 'telepathy' })).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT', message: expect.stringContaining('mode') } });
    await expect(call(ours, 'collections.remove', { name: 'a', extra: 1 })).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(forwarded).toEqual([]);
  });

  it('opens the native folder picker for our window, and unregisters cleanly', async () => {
    const { pick, off, handlers } = setup();
    await expect(pick(ours)).resolves.toBe('/home/me/notes');
    off();
    expect(handlers.size).toBe(0);
  });
});

describe('window policy', () => {
  it('keeps the renderer sandboxed and isolated', () => {
    expect(secureWebPreferences('/x/preload.cjs')).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, preload: '/x/preload.cjs' });
  });

  it('treats only the built page (or the dev server) as the app', () => {
    const built = appEntry('/opt/trove/out/renderer/index.html');
    expect(built.url).toBe('file:///opt/trove/out/renderer/index.html');
    expect(built.isApp('file:///opt/trove/out/renderer/index.html?x=1#a')).toBe(true);
    expect(built.isApp('file:///etc/passwd')).toBe(false);
    expect(built.isApp('https://example.com/')).toBe(false);
    const dev = appEntry('/ignored', 'http://localhost:5173/');
    expect(dev.isApp('http://localhost:5173/#/search')).toBe(true);
    expect(dev.isApp('http://localhost:5174/')).toBe(false);
    expect(dev.isApp('not a url')).toBe(false);
  });

  it('lets only web and mail links out, to the system browser', () => {
    expect(isExternalLinkAllowed('https://modelcontextprotocol.io')).toBe(true);
    expect(isExternalLinkAllowed('mailto:a@b.c')).toBe(true);
    expect(isExternalLinkAllowed('file:///etc/passwd')).toBe(false);
    expect(isExternalLinkAllowed('javascript:alert(1)')).toBe(false);
    expect(isExternalLinkAllowed('::')).toBe(false);
  });
});

describe('tray', () => {
  const base: SupervisorStatus = { state: 'ready', restarts: 0, lastExitCode: null, nextStartAt: null, endpoint: 'http://127.0.0.1:7077/mcp', uiUrl: null, message: null };

  it('says what the engine is doing', () => {
    expect(trayStatusLine(base)).toBe('Engine running · MCP at http://127.0.0.1:7077/mcp');
    expect(trayStatusLine({ ...base, state: 'restarting', lastExitCode: 3 })).toBe('Engine restarting (exited with code 3)');
    expect(trayStatusLine({ ...base, state: 'failed', message: 'port busy' })).toBe('Engine stopped: port busy');
  });

  it('offers open, pause/resume, restart when useful, open at login and quit', () => {
    const items = trayMenu({ ...base, state: 'failed' }, true, false);
    const byAction = Object.fromEntries(items.filter((i) => i.action).map((i) => [i.action, i]));
    expect(byAction['restart-engine']?.enabled).toBe(true);
    expect(byAction['toggle-open-at-login']).toMatchObject({ type: 'checkbox', checked: true });
    expect(byAction.quit?.enabled).toBe(true);
    expect(byAction['toggle-pause']).toMatchObject({ label: 'Pause indexing', enabled: false }); // no engine to ask
    expect(trayMenu(base, false, false).find((i) => i.action === 'toggle-pause')).toMatchObject({ label: 'Pause indexing', enabled: true });
    expect(trayMenu(base, false, true).find((i) => i.action === 'toggle-pause')?.label).toBe('Resume indexing');
    expect(trayMenu({ ...base, state: 'restarting' }, false, false).find((i) => i.action === 'restart-engine')?.enabled).toBe(false);
  });
});
