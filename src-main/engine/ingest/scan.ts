// Walks a collection root and lists the files it should index: include/exclude globs,
// nested .gitignore files, pruned tooling folders, secrets never, symlinks only within the root.
import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { EXCLUDED_DIR_NAMES, SECRET_PATTERNS } from './defaults.js';

export interface ScannedFile {
  /** Relative to the root, '/' separated. */
  path: string;
  absPath: string;
  size: number;
  mtimeMs: number;
}

export interface ScanProblem {
  path: string;
  reason: string;
}

export interface ScanResult {
  files: ScannedFile[];
  problems: ScanProblem[];
}

export interface ScanOptions {
  include: readonly string[];
  exclude: readonly string[];
}

interface GitignoreLevel {
  base: string; // relative dir ('' for root)
  rules: Ignore;
}

export function scanCollection(root: string, opts: ScanOptions): ScanResult {
  const rootReal = fs.realpathSync(root);
  const isIncluded = picomatch(opts.include as string[], { dot: true });
  const isExcluded = opts.exclude.length ? picomatch(opts.exclude as string[], { dot: true }) : () => false;
  const isSecret = picomatch(SECRET_PATTERNS as string[], { dot: true, nocase: true });
  const files: ScannedFile[] = [];
  const problems: ScanProblem[] = [];
  const visitedDirs = new Set<string>([rootReal]);

  const walk = (absDir: string, relDir: string, gitignores: GitignoreLevel[]): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(absDir, { withFileTypes: true });
    } catch (err) {
      problems.push({ path: relDir || '.', reason: `folder not readable: ${errorCode(err)}` });
      return;
    }
    const levels = withGitignore(absDir, relDir, gitignores);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = relDir ? `${relDir}/${entry.name}` : entry.name;
      const abs = path.join(absDir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = resolveSymlinkInside(abs, rootReal);
        if (!target.ok) {
          problems.push({ path: rel, reason: target.reason });
          continue;
        }
        isDir = target.stat.isDirectory();
        isFile = target.stat.isFile();
        if (isDir) {
          if (visitedDirs.has(target.real)) {
            problems.push({ path: rel, reason: 'symlink loop (folder already visited)' });
            continue;
          }
          visitedDirs.add(target.real);
        }
      }
      if (isDir) {
        if (EXCLUDED_DIR_NAMES.has(entry.name) || gitignored(levels, rel, true)) continue;
        walk(abs, rel, levels);
        continue;
      }
      if (!isFile) continue; // sockets, FIFOs, devices: never read
      if (!isIncluded(rel) || isExcluded(rel) || isSecret(rel) || gitignored(levels, rel, false)) continue;
      try {
        const st = fs.statSync(abs);
        files.push({ path: rel, absPath: abs, size: st.size, mtimeMs: Math.trunc(st.mtimeMs) });
      } catch (err) {
        problems.push({ path: rel, reason: `cannot stat: ${errorCode(err)}` });
      }
    }
  };

  walk(rootReal, '', []);
  return { files, problems };
}

function withGitignore(absDir: string, relDir: string, levels: GitignoreLevel[]): GitignoreLevel[] {
  let text: string;
  try {
    text = fs.readFileSync(path.join(absDir, '.gitignore'), 'utf8');
  } catch {
    return levels;
  }
  return [...levels, { base: relDir, rules: ignore().add(text) }];
}

function gitignored(levels: GitignoreLevel[], rel: string, isDir: boolean): boolean {
  for (const level of levels) {
    const sub = level.base ? rel.slice(level.base.length + 1) : rel;
    if (level.rules.ignores(isDir ? `${sub}/` : sub)) return true;
  }
  return false;
}

type SymlinkTarget = { ok: true; real: string; stat: fs.Stats } | { ok: false; reason: string };

function resolveSymlinkInside(abs: string, rootReal: string): SymlinkTarget {
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch (err) {
    const code = errorCode(err);
    return { ok: false, reason: code === 'ELOOP' ? 'symlink loop' : `broken symlink: ${code}` };
  }
  if (!isInside(real, rootReal)) return { ok: false, reason: 'symlink points outside the collection; not followed' };
  return { ok: true, real, stat: fs.statSync(real) };
}

export function isInside(candidate: string, root: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);
}
