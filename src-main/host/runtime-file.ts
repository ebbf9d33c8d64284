// $TROVE_HOME/runtime.json: how local clients (the stdio shim, the desktop app, scripts) find the
// running engine host — port, pid, bearer token. Written 0600 once the server listens, replaced
// atomically, removed on clean exit (only by the process that wrote it).
import fs from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../engine/edge.js';
import { z } from 'zod';

export const runtimeInfoSchema = z.object({
  port: z.number().int().min(1).max(65535),
  pid: z.number().int().positive(),
  token: z.string().min(16),
  /** http://127.0.0.1:<port>/mcp */
  mcpUrl: z.string(),
  /** Set when the web UI is mounted. */
  uiUrl: z.string().optional(),
  startedAt: z.string(),
});

export type RuntimeInfo = z.infer<typeof runtimeInfoSchema>;

export function runtimeFilePath(profileDir: string): string {
  return path.join(profileDir, 'runtime.json');
}

export function writeRuntimeFile(profileDir: string, info: RuntimeInfo): void {
  ensurePrivateDir(profileDir);
  const file = runtimeFilePath(profileDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600); // the umask may have widened it
  fs.renameSync(tmp, file);
}

/** The runtime file's contents, or null when it is missing or not ours to trust (unparseable). */
export function readRuntimeFile(profileDir: string): RuntimeInfo | null {
  let text: string;
  try {
    text = fs.readFileSync(runtimeFilePath(profileDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = runtimeInfoSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Removes the file if it still describes this process (a newer host may have replaced it). */
export function removeRuntimeFile(profileDir: string, pid = process.pid): void {
  const current = readRuntimeFile(profileDir);
  if (current && current.pid !== pid) return;
  fs.rmSync(runtimeFilePath(profileDir), { force: true });
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
