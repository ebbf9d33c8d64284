// Writes Trove's server entry into an MCP client's own JSON config file (the Connect screen's
// "Write to … config" buttons). Everything else in the file is kept as it was; an existing file is
// copied aside first; a file that is not valid JSON is refused and left untouched.
import fs from 'node:fs';
import path from 'node:path';
import type { ConnectInfo, WrittenConfig } from '../api/results.js';
import { TroveError } from '../engine/index.js';

type Config = ConnectInfo['configs'][number];

export function writeClientConfig(config: Config, now: Date = new Date()): WrittenConfig {
  if (!config.json) throw new TroveError('UNAVAILABLE', `nothing to write for ${config.client}: ${config.note}`);
  // the ready-made config is one key (mcpServers / servers) holding one server entry
  const [[key, servers]] = Object.entries(JSON.parse(config.json) as Record<string, Record<string, unknown>>) as [[string, Record<string, unknown>]];
  const file = config.file;

  let existing: Record<string, unknown> = {};
  let before: string | null = null;
  try {
    before = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new TroveError('IO', `cannot read ${file}: ${(err as Error).message}`);
  }
  if (before !== null && before.trim()) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(before);
    } catch (err) {
      throw new TroveError('INVALID_INPUT', `${file} is not valid JSON (${(err as Error).message}); fix or move it, then try again — it was not changed`);
    }
    if (!isObject(parsed)) throw new TroveError('INVALID_INPUT', `${file} does not hold a JSON object; it was not changed`);
    if (parsed[key] !== undefined && !isObject(parsed[key])) throw new TroveError('INVALID_INPUT', `"${key}" in ${file} is not an object; it was not changed`);
    existing = parsed;
  }

  const merged = { ...existing, [key]: { ...((existing[key] as Record<string, unknown> | undefined) ?? {}), ...servers } };
  let backup: string | null = null;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (before !== null) {
      backup = `${file}.trove-backup-${now.toISOString().replace(/[:.]/g, '-')}`;
      fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
    }
    // a whole new file renamed over the old: a crash never leaves half a config behind
    const temp = `${file}.trove-${process.pid}.tmp`;
    fs.writeFileSync(temp, `${JSON.stringify(merged, null, 2)}\n`, { mode: before !== null ? fs.statSync(file).mode & 0o777 : 0o600 });
    fs.renameSync(temp, file);
  } catch (err) {
    throw new TroveError('IO', `could not write ${file}: ${(err as Error).message}`);
  }
  return { client: config.client, file, backup };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
