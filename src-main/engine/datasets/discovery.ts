// Where manifests are. A `datasets/` folder is searched the way the dataset-registry spec does it
// (recursively, for every manifest.json): the profile's (`<profile>/datasets`), the project root's
// (`<project>/datasets`: the folder a host was started in, where a seed system's server found its
// datasets), and each added folder's (`<dir>/datasets`). An added folder is also looked in
// shallowly: the folder itself when it is one dataset (`<dir>/manifest.json`) or a datasets folder
// (`<dir>/<id>/manifest.json`). The walk is bounded — DATASETS_DEPTH folders down, hidden folders
// and node_modules skipped, and a folder holding a manifest is a dataset whose own folders (its
// documents) are never walked — so a refresh stays cheap however large the tree beside it is.
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE } from './manifest.js';
import type { WatchRoot } from './manifest-watcher.js';

/** A manifest.json at most this many folders below a datasets/ folder is found (and watched). */
export const DATASETS_DEPTH = 4;
/** Folders one walk of a datasets/ folder looks into at most. */
const MAX_FOLDERS = 5_000;

export interface FoundManifest {
  file: string;
  /** The added folder it was found under; null for the profile's and the project root's datasets folders. */
  folder: string | null;
}

export interface ManifestPlaces {
  /** `<profile>/datasets`. */
  profile: string;
  /** The project root and its datasets/, when the host has one (and it is not the profile's own). */
  project: { root: string; datasets: string } | null;
  /** The folders a person added. */
  added: readonly string[];
}

/** Where to look; a project root whose datasets/ is the profile's (a command run in the profile folder) is the profile's. */
export function manifestPlaces(profile: string, projectRoot: string | null, added: readonly string[]): ManifestPlaces {
  const datasets = projectRoot ? path.join(projectRoot, 'datasets') : null;
  const project = projectRoot && datasets && realOrSelf(datasets) !== realOrSelf(profile) ? { root: projectRoot, datasets } : null;
  return { profile, project, added };
}

/**
 * What the manifest watcher follows (manifest-watcher.ts), each folder as deep as discovery looks
 * in it. A datasets/ folder that is not there yet is followed through its parent (the project
 * root's own entries, an added folder's two levels): its appearing is a refresh, which follows it
 * from then on.
 */
export function watchRoots(places: ManifestPlaces): WatchRoot[] {
  const tree = (p: string): WatchRoot[] => (realOrNull(p) ? [{ path: p, depth: DATASETS_DEPTH }] : []);
  return [
    { path: places.profile, depth: DATASETS_DEPTH },
    ...(places.project ? [{ path: places.project.root, depth: 0 }, ...tree(places.project.datasets)] : []),
    ...places.added.flatMap((dir) => [{ path: dir, depth: 2 }, ...tree(path.join(dir, 'datasets'))]),
  ];
}

/** Manifests in a stable order: the profile's first, then the project root's, then each added folder's, by path. */
export function findManifests(places: ManifestPlaces): FoundManifest[] {
  const out: FoundManifest[] = [];
  const seen = new Set<string>();
  const push = (file: string, folder: string | null) => {
    if (seen.has(file)) return;
    seen.add(file);
    out.push({ file, folder });
  };
  for (const f of datasetsTree(places.profile)) push(f, null);
  if (places.project) for (const f of datasetsTree(places.project.datasets)) push(f, null);
  for (const dir of places.added) {
    const own = path.join(dir, MANIFEST_FILE);
    if (isFile(own)) push(own, dir);
    for (const f of children(dir).map((c) => path.join(c, MANIFEST_FILE)).filter(isFile)) push(f, dir);
    for (const f of datasetsTree(path.join(dir, 'datasets'))) push(f, dir);
  }
  return out;
}

/** Every manifest.json under a datasets/ folder, DATASETS_DEPTH folders down, sorted; a dataset's own folder is not walked further. */
function datasetsTree(root: string): string[] {
  const found: string[] = [];
  const visited = new Set<string>();
  let budget = MAX_FOLDERS;
  const walk = (dir: string, depth: number) => {
    if (depth > DATASETS_DEPTH || budget-- <= 0) return;
    const real = realOrNull(dir);
    if (!real || visited.has(real)) return; // a symlink cycle, or a folder reached twice
    visited.add(real);
    const manifest = path.join(dir, MANIFEST_FILE);
    if (depth > 0 && isFile(manifest)) {
      found.push(manifest);
      return;
    }
    for (const child of children(dir)) walk(child, depth + 1);
  };
  walk(root, 0);
  return found.sort();
}

/** Visible child folders (symlinks to folders included), sorted. */
function children(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => !e.name.startsWith('.') && e.name !== 'node_modules' && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => path.join(dir, e.name))
    .sort();
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function realOrSelf(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function realOrNull(p: string): string | null {
  try {
    const real = fs.realpathSync(p);
    return fs.statSync(real).isDirectory() ? real : null;
  } catch {
    return null;
  }
}
