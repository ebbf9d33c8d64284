// Runs the real `trove` bin (node bin/trove.js → dist/) in a child process, with its own
// TROVE_HOME. dist/ is rebuilt first when needed, so the tests work both under `npm test`
// (which builds) and on their own.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO, 'bin', 'trove.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(abs) : entry.name.endsWith('.ts') ? fs.statSync(abs).mtimeMs : 0);
  }
  return newest;
}

/**
 * Compiles src-main to dist/ unless `npm test` just did, or this helper built it after the last
 * source change. (dist's own mtimes are not trusted: a build that started before an edit can
 * finish after it.) Type errors elsewhere do not block tsc's output; only a missing bin is fatal.
 */
export function ensureBuilt(): void {
  const main = path.join(REPO, 'dist/cli/main.js');
  if (process.env.npm_lifecycle_event === 'test' && fs.existsSync(main)) return;
  const stamp = path.join(REPO, 'dist/.test-build-started');
  const builtAt = fs.existsSync(stamp) ? Number(fs.readFileSync(stamp, 'utf8')) : 0;
  if (fs.existsSync(main) && builtAt > newestSource(path.join(REPO, 'src-main'))) return;
  const started = Date.now();
  try {
    execFileSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.node.json'], { cwd: REPO, stdio: 'pipe' });
  } catch (err) {
    if (!fs.existsSync(main)) throw err;
  }
  fs.writeFileSync(stamp, String(started));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  home: string;
  env?: Record<string, string>;
  /** Run as another user (tests run as root, where file modes do not stop reads). */
  user?: { uid: number; gid: number };
  cwd?: string;
}

export function runTrove(args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? opts.home,
      env: { PATH: process.env.PATH ?? '', HOME: opts.home, TROVE_HOME: opts.home, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

export interface ServingTrove {
  /** The start-up line `serve --json` prints: mcpUrl, port, pid, backend… */
  started: { url: string; mcpUrl: string; backend?: string; uiUrl?: string };
  /** This host's runtime token (runtime.json in its profile). */
  token: string;
  /** Everything the host wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** A real `trove serve --port 0 --json …` process, resolved once it has printed its start-up line. */
export async function startServe(args: string[], opts: CliOptions): Promise<ServingTrove> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--json', ...args], {
    cwd: opts.cwd ?? opts.home,
    env: { PATH: process.env.PATH ?? '', HOME: opts.home, TROVE_HOME: opts.home, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const stop = () => {
    child.kill('SIGTERM');
    return exited;
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    const token = (JSON.parse(fs.readFileSync(path.join(opts.home, 'runtime.json'), 'utf8')) as { token: string }).token;
    return { started: JSON.parse(line) as ServingTrove['started'], token, stderr: () => stderr, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Parses stdout as exactly one JSON document (fails loudly if there is anything else). */
export function oneJson<T = Record<string, unknown>>(r: CliResult): T {
  const text = r.stdout.trim();
  if (!text) throw new Error(`no JSON on stdout (exit ${r.code}); stderr: ${r.stderr}`);
  if (text.includes('\n')) throw new Error(`stdout has more than one line: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** The uid/gid of user `nobody`, from /etc/passwd. */
export function nobody(): { uid: number; gid: number } {
  const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('nobody:'));
  if (!line) throw new Error('no user nobody on this machine');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
