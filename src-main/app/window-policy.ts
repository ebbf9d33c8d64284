// What the app window may do. The renderer is sandboxed and isolated; it may show only its
// own page (file:// build, or the dev server in development), never navigate elsewhere or
// open windows; links to the web open in the system browser instead.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function secureWebPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    spellcheck: false,
  } as const;
}

/** The renderer's own origin: the dev server URL, or the built index.html as a file URL. */
export function appEntry(rendererIndexHtml: string, devServerUrl?: string): { url: string; isApp: (url: string) => boolean } {
  if (devServerUrl) {
    const origin = new URL(devServerUrl).origin;
    return { url: devServerUrl, isApp: (u) => safeOrigin(u) === origin };
  }
  const fileUrl = pathToFileURL(path.resolve(rendererIndexHtml)).href;
  return { url: fileUrl, isApp: (u) => stripHash(u) === fileUrl };
}

/** Only http(s) and mailto links leave the app, and only to the system browser. */
export function isExternalLinkAllowed(url: string): boolean {
  try {
    const p = new URL(url).protocol;
    return p === 'https:' || p === 'http:' || p === 'mailto:';
  } catch {
    return false;
  }
}

function safeOrigin(u: string): string | null {
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
}

function stripHash(u: string): string {
  const i = u.search(/[?#]/);
  return i === -1 ? u : u.slice(0, i);
}
