// Runs the real `trove` bin (node bin/trove.js → dist/) in a child process, with its own
// TROVE_HOME. dist/ is rebuilt first when any source is newer than its compiled file, so the
// tests work both after `npm test` (which builds) and on their own.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(REPO, 'bin', 'trove.js');

function staleSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...staleSources(abs));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const built = path.join(REPO, 'dist', path.relative(path.join(REPO, 'src-main'), abs)).replace(/\.ts$/, '.js');
      if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < fs.statSync(abs).mtimeMs) out.push(abs);
    }
  }
  return out;
}

/** Compiles src-main to dist/ unless it is already up to date (type errors elsewhere do not block emit). */
export function ensureBuilt(): void {
  const stale = ['engine', 'cli'].flatMap((d) => staleSources(path.join(REPO, 'src-main', d)));
  if (!stale.length) return;
  try {
    execFileSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.node.json'], { cwd: REPO, stdio: 'pipe' });
  } catch (err) {
    // tsc exits non-zero on type errors but still emits; only a missing output is fatal
    if (!fs.existsSync(path.join(REPO, 'dist/cli/main.js'))) throw err;
  }
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
