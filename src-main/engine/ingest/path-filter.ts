// Decides, for one path the watcher reports, whether the collection indexes it: the same rules
// as the folder scan (ingest/scan.ts): include/exclude globs, secrets never, tooling folders
// pruned, nested .gitignore files honoured. .gitignore files are cached per folder and dropped
// when the watcher sees one change.
import fs from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { EXCLUDED_DIR_NAMES, SECRET_PATTERNS } from '../ingest/defaults.js';

export class PathFilter {
  private readonly isIncluded: (p: string) => boolean;
  private readonly isExcluded: (p: string) => boolean;
  private readonly isSecret: (p: string) => boolean;
  /** relative folder ('' = root) → its .gitignore rules, or null when it has none */
  private readonly gitignores = new Map<string, Ignore | null>();

  constructor(
    readonly root: string,
    include: readonly string[],
    exclude: readonly string[],
  ) {
    this.isIncluded = picomatch(include as string[], { dot: true });
    this.isExcluded = exclude.length ? picomatch(exclude as string[], { dot: true }) : () => false;
    this.isSecret = picomatch(SECRET_PATTERNS as string[], { dot: true, nocase: true });
  }

  /** Relative '/'-separated path of an absolute one, or null when it is the root or outside it. */
  relative(absPath: string): string | null {
    const rel = path.relative(this.root, absPath);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }

  /** Would the scan walk into this folder? */
  wantsDir(rel: string): boolean {
    const parts = rel.split('/');
    if (parts.some((p) => EXCLUDED_DIR_NAMES.has(p))) return false;
    return !this.gitignored(rel, true);
  }

  /** Would the scan index this file? */
  wantsFile(rel: string): boolean {
    const parts = rel.split('/');
    for (let i = 0; i < parts.length - 1; i++) if (EXCLUDED_DIR_NAMES.has(parts[i]!)) return false;
    if (!this.isIncluded(rel) || this.isExcluded(rel) || this.isSecret(rel)) return false;
    return !this.gitignored(rel, false);
  }

  /** A .gitignore changed: forget the cached rules of its folder. */
  forgetGitignore(relDir: string): void {
    this.gitignores.delete(relDir);
  }

  /** Before a full scan: .gitignore files may have changed unseen (polling gaps, app closed). */
  forgetAllGitignores(): void {
    this.gitignores.clear();
  }

  private gitignored(rel: string, isDir: boolean): boolean {
    const parts = rel.split('/');
    // every ancestor folder's rules, root first, as the scan applies them; a folder that is
    // itself ignored hides everything under it
    for (let depth = 0; depth < parts.length; depth++) {
      const base = parts.slice(0, depth).join('/');
      const rules = this.rulesFor(base);
      if (!rules) continue;
      for (let end = depth + 1; end <= parts.length; end++) {
        const sub = parts.slice(depth, end).join('/');
        const subIsDir = end < parts.length || isDir;
        if (rules.ignores(subIsDir ? `${sub}/` : sub)) return true;
      }
    }
    return false;
  }

  private rulesFor(relDir: string): Ignore | null {
    if (this.gitignores.has(relDir)) return this.gitignores.get(relDir)!;
    let rules: Ignore | null = null;
    try {
      rules = ignore().add(fs.readFileSync(path.join(this.root, relDir, '.gitignore'), 'utf8'));
    } catch {
      rules = null;
    }
    // bounded: a huge tree with thousands of folders should not pin thousands of rule sets
    if (this.gitignores.size > 4096) this.gitignores.clear();
    this.gitignores.set(relDir, rules);
    return rules;
  }
}
