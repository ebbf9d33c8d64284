// The folder browser for the web UI, where a dropped folder carries no path: lists the
// sub-folders of one folder. Names only (never file contents); reading nothing else.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FolderListing } from '../api/results.js';
import { invalidInput, TroveError } from '../engine/index.js';

const MAX_FOLDERS = 500;

export function listFolders(input: string | undefined): FolderListing {
  const raw = input?.trim() ? input.trim() : os.homedir();
  const expanded = raw === '~' || raw.startsWith('~/') ? path.join(os.homedir(), raw.slice(1)) : raw;
  if (!path.isAbsolute(expanded)) throw invalidInput(`"${raw}" is not an absolute folder path`);
  const dir = path.resolve(expanded);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOTDIR') throw new TroveError('IO', `${dir} is a file, not a folder`);
    throw new TroveError('IO', `folder ${dir} cannot be listed (${code})`);
  }
  let hidden = 0;
  const folders: FolderListing['folders'] = [];
  for (const e of entries) {
    // dot-folders (.git, .cache, …) are rarely what someone wants to index; the path field still takes them
    if (e.name.startsWith('.')) {
      hidden++;
      continue;
    }
    const full = path.join(dir, e.name);
    if (e.isDirectory() || (e.isSymbolicLink() && isFolder(full))) folders.push({ name: e.name, path: full });
  }
  folders.sort((a, b) => a.name.localeCompare(b.name));
  if (folders.length > MAX_FOLDERS) {
    hidden += folders.length - MAX_FOLDERS;
    folders.length = MAX_FOLDERS;
  }
  const parent = path.dirname(dir);
  return { path: dir, parent: parent === dir ? null : parent, folders, hidden };
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
