// The UI tests' two ends: `trove serve --ui` as a person starts it (its one-time sign-in link read
// from the --json line it prints) and a headless Chromium whose console errors the tests collect
// (no UI test allows one).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { chromiumForTests } from './chromium.js';
import { REPO } from './cli.js';

/** `trove serve --ui --port 0 --json` plus `args`, with exactly this environment; resolves with its sign-in link. */
export async function startUiServe(args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ child: ChildProcess; signInUrl: string }> {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/trove.js'), 'serve', '--ui', '--port', '0', '--json', ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  logs.set(child, () => err);
  const signInUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.includes('"uiUrl"'));
      if (line) resolve((JSON.parse(line) as { uiUrl: string }).uiUrl);
    });
    child.once('exit', (code) => reject(new Error(`trove serve exited with ${code}:\n${err}`)));
  });
  return { child, signInUrl };
}

const logs = new WeakMap<ChildProcess, () => string>();

/** What a server started by startUiServe has written to stderr so far (a failing test prints it). */
export function serverLog(child: ChildProcess | undefined): string {
  return (child && logs.get(child)?.()) || '(nothing on stderr)';
}

/** SIGTERM, then waits for the exit (a server that already stopped is left alone). */
export async function stopUiServe(child: ChildProcess | undefined): Promise<void> {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Collects a page's console errors and uncaught exceptions into `errors`. */
export function watchConsole(page: Page, errors: string[]): void {
  page.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} @ ${JSON.stringify(m.location())}`));
  page.on('pageerror', (e) => errors.push(e.message));
}

/** Headless Chromium on its own profile folder, its first page watched for console errors. */
export async function openUiBrowser(userDataDir: string, viewport: { width: number; height: number }, errors: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumForTests(),
    headless: true,
    viewport,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  watchConsole(page, errors);
  return { context, page };
}
