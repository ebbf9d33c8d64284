// Finding the running engine host of a profile, or starting one: the stdio shim uses this so
// every MCP client on the machine shares one engine (and one model in memory). A lock file keeps
// two shims that start at the same moment from launching two hosts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ensurePrivateDir, TroveError } from '../engine/edge.js';
import { processAlive, readRuntimeFile, type RuntimeInfo } from './runtime-file.js';

export interface EnsureHostOptions {
  profileDir: string;
  /** How to start a host: argv of a `trove serve` (default: this very program with `serve`). */
  serveCommand?: { command: string; args: string[] };
  timeoutMs?: number;
}

/** The host serving this profile, if one is alive and answering. */
export async function findRunningHost(profileDir: string): Promise<RuntimeInfo | null> {
  const info = readRuntimeFile(profileDir);
  if (!info || !processAlive(info.pid)) return null;
  return (await healthy(info)) ? info : null;
}

export async function ensureHost(opts: EnsureHostOptions): Promise<RuntimeInfo> {
  const running = await findRunningHost(opts.profileDir);
  if (running) return running;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const lock = path.join(opts.profileDir, 'host-start.lock');
  ensurePrivateDir(opts.profileDir);
  const mine = takeLock(lock, timeoutMs);
  try {
    if (mine) {
      const again = await findRunningHost(opts.profileDir); // another shim may have won just before us
      if (again) return again;
      startDetached(opts);
    }
    while (Date.now() < deadline) {
      const info = await findRunningHost(opts.profileDir);
      if (info) return info;
      await sleep(100);
    }
  } finally {
    if (mine) fs.rmSync(lock, { force: true });
  }
  throw new TroveError(
    'UNAVAILABLE',
    `no Trove host came up within ${Math.round(timeoutMs / 1000)} s; see ${path.join(opts.profileDir, 'host.log')} or run \`trove serve\` yourself`,
  );
}

function takeLock(lock: string, staleMs: number): boolean {
  try {
    fs.closeSync(fs.openSync(lock, 'wx'));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > staleMs) {
        fs.rmSync(lock, { force: true }); // left by a shim that died while starting a host
        return takeLock(lock, staleMs);
      }
    } catch {
      /* removed meanwhile: someone else is starting it */
    }
    return false;
  }
}

function startDetached(opts: EnsureHostOptions): void {
  // a host started for a client stops by itself once no client has used it for a while (TROVE_IDLE_EXIT_MINUTES)
  const cmd = opts.serveCommand ?? { command: process.execPath, args: [...process.execArgv, process.argv[1]!, 'serve', '--exit-when-idle'] };
  const log = fs.openSync(path.join(opts.profileDir, 'host.log'), 'a', 0o600);
  try {
    const child = spawn(cmd.command, cmd.args, {
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, TROVE_HOME: opts.profileDir },
    });
    child.unref();
  } finally {
    fs.closeSync(log);
  }
}

/** node:http rather than fetch: fetch's first use loads undici, a cost every client's start would pay. */
function healthy(info: RuntimeInfo): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port: info.port, path: '/health', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
