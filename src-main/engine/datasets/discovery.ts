// Where manifests are: `<profile>/datasets/<id>/manifest.json`, and under each folder a person
// added: the folder itself when it is one dataset (`<dir>/manifest.json`), a datasets folder
// (`<dir>/<id>/manifest.json`), or a folder holding one (`<dir>/datasets/<id>/manifest.json`, the
// spec's layout). Shallow by design: a documents folder inside a dataset is never walked.
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from './manifest.js';

export interface FoundManifest {
  file: string;
  /** The added folder it was found under; null for the profile's datasets folder. */
  folder: string | null;
}

/** Manifests in a stable order: the profile's first, then each added folder's, by path. */
export function findManifests(profileDatasets: string, added: readonly string[]): FoundManifest[] {
  const out: FoundManifest[] = [];
  const seen = new Set<string>();
  const push = (file: string, folder: string | null) => {
    if (seen.has(file)) return;
    seen.add(file);
    out.push({ file, folder });
  };
  for (const f of childManifests(profileDatasets)) push(f, null);
  for (const dir of added) {
    const own = path.join(dir, MANIFEST_FILE);
    if (isFile(own)) push(own, dir);
    for (const f of childManifests(dir)) push(f, dir);
    for (const f of childManifests(path.join(dir, 'datasets'))) push(f, dir);
  }
  return out;
}

/** `<dir>/<child>/manifest.json` for every visible child folder, sorted. */
function childManifests(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => !e.name.startsWith('.') && e.name !== 'node_modules' && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => path.join(dir, e.name, MANIFEST_FILE))
    .filter(isFile)
    .sort();
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
