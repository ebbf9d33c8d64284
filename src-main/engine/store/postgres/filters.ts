// Search filters as PostgreSQL over the documents table (alias d), the counterpart of
// search/filters.ts's SQLite SQL: pushed into the keyword and vector queries so pagination counts
// only what the caller may see. A path glob becomes picomatch's own regular expression (PostgreSQL's
// regex engine takes its lookaheads and lazy quantifiers), matched case-insensitively, with the
// same "a bare name matches at any depth" rule as on SQLite. A room's `extra` clause comes written
// for PostgreSQL by the room (PostgreSQL's SharedMemory never hands over SQLite's), its `?`s numbered here.
import picomatch from 'picomatch';
import type { ResolvedFilters } from '../filters.js';

export interface PgFilterSql {
  /** '' when there is nothing to filter. */
  where: string;
  params: unknown[];
  /** The shape of the SQL (statement caches key on it). */
  key: string;
}

const regexCache = new Map<string, string[]>();

/** The regular expressions a path glob means (one, or two for a bare name: here and at any depth). */
export function globRegexes(glob: string): string[] {
  let out = regexCache.get(glob);
  if (out) return out;
  const opts = { dot: true, nocase: true };
  out = [picomatch.makeRe(glob, opts).source];
  if (!glob.includes('/')) out.push(picomatch.makeRe(`**/${glob}`, opts).source);
  if (regexCache.size > 100) regexCache.clear();
  regexCache.set(glob, out);
  return out;
}

/** `first`: the number of the first placeholder ($first) these filters may use. */
export function pgFilterSql(f: ResolvedFilters, first: number): PgFilterSql {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const next = (v: unknown) => {
    params.push(v);
    return `$${first + params.length - 1}`;
  };
  if (f.collectionIds) {
    // an empty list is an allow-list that allows nothing (a scope), never "every collection"
    clauses.push(f.collectionIds.length ? `d.collection_id = ANY(${next(f.collectionIds)}::bigint[])` : 'false');
  }
  if (f.pathGlob) {
    const res = globRegexes(f.pathGlob);
    clauses.push(`(${res.map((re) => `d.path ~* ${next(re)}`).join(' OR ')})`);
  }
  if (f.kinds?.length) clauses.push(`d.kind = ANY(${next(f.kinds)}::text[])`);
  if (f.modifiedAfterMs !== undefined) clauses.push(`d.mtime_ms >= ${next(f.modifiedAfterMs)}`);
  if (f.modifiedBeforeMs !== undefined) clauses.push(`d.mtime_ms <= ${next(f.modifiedBeforeMs)}`);
  if (f.tags?.length) clauses.push(`d.tags @> ${next(JSON.stringify(f.tags.map((t) => t.toLowerCase())))}::jsonb`);
  // a room's own condition (memory: memory/memory-filters-pg.ts), written with `?` placeholders
  if (f.extra?.where) {
    const values = f.extra.params;
    let i = 0;
    clauses.push(`(${f.extra.where.replace(/\?/g, () => next(values[i++]))})`);
  }
  const shape = clauses.map((c) => c.replace(/\$\d+/g, '?')).join('|');
  return { where: clauses.join(' AND '), params, key: shape };
}
