// Search filters (store/filters.ts) as SQLite SQL over the documents table (alias d), pushed into
// the FTS and vector queries so pagination counts only what the caller may see. A room's own
// clause (memory: thread, source, metadata…) is ANDed in as it comes.
import picomatch from 'picomatch';
import type { Db } from '../database.js';
import type { ResolvedFilters } from '../filters.js';

export interface FilterSql {
  where: string;
  params: unknown[];
  key: string;
}

/** `asSet`: the room's clause in its set form, when it has one. */
export function filterSql(f: ResolvedFilters, asSet = false): FilterSql {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (f.collectionIds) {
    // an empty list is an allow-list that allows nothing (a scope), never "every collection"
    clauses.push(f.collectionIds.length ? `d.collection_id IN (${f.collectionIds.map(() => '?').join(',')})` : '0');
    params.push(...f.collectionIds);
  }
  if (f.pathGlob) {
    clauses.push('trove_path_matches(?, d.path)');
    params.push(f.pathGlob);
  }
  if (f.kinds?.length) {
    clauses.push(`d.kind IN (${f.kinds.map(() => '?').join(',')})`);
    params.push(...f.kinds);
  }
  if (f.modifiedAfterMs !== undefined) {
    clauses.push('d.mtime_ms >= ?');
    params.push(f.modifiedAfterMs);
  }
  if (f.modifiedBeforeMs !== undefined) {
    clauses.push('d.mtime_ms <= ?');
    params.push(f.modifiedBeforeMs);
  }
  for (const tag of f.tags ?? []) {
    clauses.push('EXISTS (SELECT 1 FROM json_each(d.tags) WHERE value = ?)');
    params.push(tag.toLowerCase());
  }
  const extra = asSet && f.extra?.asSet ? f.extra.asSet : f.extra;
  if (extra?.where) {
    clauses.push(`(${extra.where})`);
    params.push(...extra.params);
  }
  return { where: clauses.join(' AND '), params, key: clauses.join('|') };
}

/** Registers the SQL function the path filter uses (glob matching with picomatch semantics). */
export function registerFilterFunctions(db: Db): void {
  const cache = new Map<string, (p: string) => boolean>();
  db.function('trove_path_matches', { deterministic: true }, (pattern: unknown, path: unknown) => {
    const key = String(pattern);
    let matcher = cache.get(key);
    if (!matcher) {
      if (cache.size > 100) cache.clear();
      matcher = picomatch(key, { dot: true, nocase: true });
      // a bare name like "*.md" should match at any depth
      if (!key.includes('/')) {
        const base = matcher;
        const deep = picomatch(`**/${key}`, { dot: true, nocase: true });
        matcher = (p) => base(p) || deep(p);
      }
      cache.set(key, matcher);
    }
    return matcher(String(path)) ? 1 : 0;
  });
}
