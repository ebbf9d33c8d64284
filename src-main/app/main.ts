// Electron main: single instance, supervises the engine host (a utilityProcess running the same
// host as `trove serve`), relays the renderer's app API calls, and owns the window, tray, menu
// and native dialogs. All decisions live in small tested modules; this file only wires Electron.
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, shell, Tray } from 'electron';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { IPC_EVENT } from '../api/bridge.js';
import { launchUtilityHost } from './electron-host-process.js';
import { HostSupervisor } from './host-supervisor.js';
import { registerIpcRelay } from './ipc-relay.js';
import { trayMenu, trayStatusLine, type TrayItem } from './tray-menu.js';
import { appEntry, isExternalLinkAllowed, secureWebPreferences } from './window-policy.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const entry = appEntry(path.join(here, '../renderer/index.html'), app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL);
let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let quitting = false;
let indexingPaused = false;

if (!app.requestSingleInstanceLock()) {
  // another Trove is running: it gets focus (second-instance below), this one leaves
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  void app.whenReady().then(start);
}

function start(): void {
  const supervisor = new HostSupervisor({
    // the host serves MCP over HTTP too, so assistants reach Trove while the window is closed
    launch: () =>
      launchUtilityHost(path.join(here, 'host.js'), [], {
        ...process.env,
        TROVE_APP: '1',
        // a packaged app ships its models beside app.asar (electron-builder extraResources)
        TROVE_MODELS_DIR: process.env.TROVE_MODELS_DIR ?? (app.isPackaged ? path.join(process.resourcesPath, 'models') : undefined),
        TROVE_NATIVE_DIR: process.env.TROVE_NATIVE_DIR ?? (app.isPackaged ? path.join(process.resourcesPath, 'native') : undefined),
      }),
  });
  supervisor.onEvent((e) => win?.webContents.send(IPC_EVENT, e));
  supervisor.onStatus(() => refreshTray(supervisor));
  registerIpcRelay({
    ipc: ipcMain,
    target: supervisor,
    isTrustedSender: entry.isApp,
    pickFolder: async () => {
      const r = await dialog.showOpenDialog({ title: 'Add a folder to Trove', properties: ['openDirectory'] });
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
  });
  supervisor.start();
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenu()));
  tray = new Tray(nativeImage.createEmpty());
  tray.on('click', () => showWindow());
  refreshTray(supervisor);
  showWindow();

  // the window closing leaves the app (and MCP) running in the tray; Quit stops the host cleanly
  app.on('window-all-closed', () => undefined);
  app.on('activate', () => showWindow());
  app.on('before-quit', (e) => {
    if (quitting) return;
    e.preventDefault();
    quitting = true;
    void supervisor.stop().finally(() => app.quit());
  });

  function refreshTray(s: HostSupervisor): void {
    if (!tray) return;
    const status = s.status();
    tray.setToolTip(`Trove · ${trayStatusLine(status)}`);
    tray.setContextMenu(Menu.buildFromTemplate(trayMenu(status, app.getLoginItemSettings().openAtLogin, indexingPaused).map((i) => nativeItem(i, s))));
  }

  function nativeItem(i: TrayItem, s: HostSupervisor): Electron.MenuItemConstructorOptions {
    const click = () => {
      if (i.action === 'open') showWindow();
      else if (i.action === 'toggle-pause') {
        void s.call(indexingPaused ? 'collections.resume' : 'collections.pause', {}).then((r) => {
          if (r.ok) indexingPaused = !indexingPaused;
          refreshTray(s);
        });
      }
      else if (i.action === 'restart-engine') s.restart();
      else if (i.action === 'toggle-open-at-login') {
        app.setLoginItemSettings({ openAtLogin: !app.getLoginItemSettings().openAtLogin });
        refreshTray(s);
      } else if (i.action === 'quit') app.quit();
    };
    return { label: i.label, enabled: i.enabled, type: i.type ?? 'normal', checked: i.checked, click: i.action ? click : undefined };
  }
}

function showWindow(): void {
  if (win) {
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    return;
  }
  win = new BrowserWindow({
    width: 1180,
    height: 800,
    minWidth: 760,
    minHeight: 520,
    title: 'Trove',
    show: false,
    webPreferences: secureWebPreferences(path.join(here, '../preload/index.cjs')),
  });
  const wc = win.webContents;
  wc.on('will-navigate', (e, url) => {
    if (!entry.isApp(url)) e.preventDefault();
  });
  wc.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  wc.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  win.once('ready-to-show', () => win?.show());
  win.on('closed', () => (win = null));
  void win.loadURL(entry.url);
}

function appMenu(): Electron.MenuItemConstructorOptions[] {
  return [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
