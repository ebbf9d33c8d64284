// Memory's filters (store/memory-rows.ts MemoryFilterValues) as SQLite: the entry conditions over
// memory_entries e (store/memory-conditions.ts) and the metadata conditions over documents d's
// JSON (json_type + json_extract with the path bound as a parameter; trove_fold, JavaScript's
// Unicode lower-casing, for case-insensitive strings), as one clause for listings and one pushed
// into the search legs — with its set form when an index finds the entries (a thread, dates).
import type { FilterClause } from '../filters.js';
import { entryConditions, fold, indexedFilter } from '../memory-conditions.js';
import type { MemoryFilterValues, MetadataCondition, Scalar, SqlFragment } from '../memory-rows.js';

export interface CheckedFilters {
  /** Over memory_entries e. */
  entry: { where: string[]; params: unknown[] };
  /** Over documents d (metadata). */
  document: { where: string[]; params: unknown[] };
  /** Some filter was given. */
  any: boolean;
  /** The entry conditions include one an index finds (thread, created dates): their entries can be listed cheaply. */
  indexed: boolean;
}

/** The filters as SQLite: conditions over memory_entries e and over documents d. */
export function sqliteMemoryFilters(v: MemoryFilterValues): CheckedFilters {
  // any of the tags (OR): one probe of the (entry_id, tag) key per entry
  const entry = entryConditions(v, (tags) => ['t.tag IN (SELECT value FROM json_each(?))', JSON.stringify(tags)]);
  const document = sqliteMetadataSql('d.metadata', v.metadata);
  return { entry, document, any: entry.where.length > 0 || document.where.length > 0, indexed: indexedFilter(v) };
}

/**
 * The filters as one clause over documents d, for the search legs (null: no filter). With an
 * indexed entry condition (a thread, dates) the clause also has its set form: the matching
 * entries' documents listed once by that index, which keyword search prefers over checking each
 * matching row when a query's words match many rows (search/lexical.ts). `count` counts entries
 * matching a condition over e, up to a cap.
 */
export function searchClause(c: CheckedFilters, count?: (where: string, params: readonly unknown[], cap: number) => number): FilterClause | null {
  if (!c.any) return null;
  const parts: string[] = [];
  const params: unknown[] = [];
  if (c.entry.where.length) {
    parts.push(`EXISTS (SELECT 1 FROM memory_entries e WHERE e.document_id = d.id AND ${c.entry.where.join(' AND ')})`);
    params.push(...c.entry.params);
  }
  parts.push(...c.document.where);
  params.push(...c.document.params);
  const clause: FilterClause = { where: parts.join(' AND '), params };
  if (c.indexed && count) {
    const entryWhere = c.entry.where.join(' AND ');
    clause.asSet = {
      where: [`c.document_id IN (SELECT e.document_id FROM memory_entries e WHERE ${entryWhere})`, ...c.document.where].join(' AND '),
      params: [...c.entry.params, ...c.document.params],
      size: (cap) => count(entryWhere, c.entry.params, cap),
    };
  }
  return clause;
}

/** The filters over memory_entries e JOIN documents d, for listings ('' : none). */
export function listingClause(c: CheckedFilters): { where: string; params: unknown[] } {
  return { where: [...c.entry.where, ...c.document.where].join(' AND '), params: [...c.entry.params, ...c.document.params] };
}

export function sqliteMetadataSql(column: string, conditions: readonly MetadataCondition[]): SqlFragment {
  const out: SqlFragment = { where: [], params: [] };
  for (const c of conditions) out.where.push(condition(column, c, out.params));
  return out;
}

function condition(m: string, c: MetadataCondition, params: unknown[]): string {
  const path = sqlitePath(c.keys);
  const type = `json_type(${m}, ?)`;
  switch (c.op) {
    case 'eq':
      return matches(m, path, c.value, c.cs, params);
    case 'ne':
      return `NOT ${matches(m, path, c.value, c.cs, params)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const sqlOp = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[c.op];
      if (typeof c.value === 'number') {
        params.push(path, path, c.value);
        return `(ifnull(${type}, '') IN ('integer', 'real') AND json_extract(${m}, ?) ${sqlOp} ?)`;
      }
      params.push(path, path, c.cs ? c.value : fold(c.value));
      return `(${type} IS 'text' AND ${c.cs ? `json_extract(${m}, ?)` : `trove_fold(json_extract(${m}, ?))`} ${sqlOp} ?)`;
    }
    case 'in':
    case 'not_in': {
      const any = `(${c.value.map((x) => matches(m, path, x, c.cs, params)).join(' OR ')})`;
      return c.op === 'in' ? any : `NOT ${any}`;
    }
    case 'exists':
      params.push(path);
      return `(${type} IS NOT NULL)`;
    case 'not_exists':
      params.push(path);
      return `(${type} IS NULL)`;
    case 'is_null':
      params.push(path);
      return `(${type} IS 'null')`;
    case 'is_not_null':
      params.push(path, path);
      return `(${type} IS NOT NULL AND ${type} IS NOT 'null')`;
    case 'contains':
    case 'starts_with':
    case 'ends_with': {
      const needle = c.cs ? c.value : fold(c.value);
      const field = c.cs ? `json_extract(${m}, ?)` : `trove_fold(json_extract(${m}, ?))`;
      params.push(path, path);
      if (c.op === 'contains') {
        params.push(needle);
        return `(${type} IS 'text' AND instr(${field}, ?) > 0)`;
      }
      if (c.op === 'starts_with') {
        params.push(needle);
        return `(${type} IS 'text' AND instr(${field}, ?) = 1)`;
      }
      params.push(needle, needle);
      return `(${type} IS 'text' AND substr(${field}, -length(?)) = ?)`;
    }
    case 'array_contains':
      params.push(path, path);
      return `(${type} IS 'array' AND EXISTS (SELECT 1 FROM json_each(${m}, ?) j WHERE ${elementMatches(c.value, c.cs, params)}))`;
  }
}

/** 1 when the value at the path equals v (typed; strings folded unless case-sensitive), else 0. */
function matches(m: string, path: string, v: Scalar, cs: boolean, params: unknown[]): string {
  const type = `json_type(${m}, ?)`;
  if (v === null) {
    params.push(path);
    return `(${type} IS 'null')`;
  }
  if (typeof v === 'boolean') {
    params.push(path);
    return `(${type} IS '${v ? 'true' : 'false'}')`;
  }
  if (typeof v === 'number') {
    params.push(path, path, v);
    return `(ifnull(${type}, '') IN ('integer', 'real') AND json_extract(${m}, ?) = ?)`;
  }
  params.push(path, path, cs ? v : fold(v));
  return `(${type} IS 'text' AND ${cs ? `json_extract(${m}, ?)` : `trove_fold(json_extract(${m}, ?))`} = ?)`;
}

function elementMatches(v: string | number | boolean, cs: boolean, params: unknown[]): string {
  if (typeof v === 'boolean') return `j.type = '${v ? 'true' : 'false'}'`;
  if (typeof v === 'number') {
    params.push(v);
    return `j.type IN ('integer', 'real') AND j.value = ?`;
  }
  params.push(cs ? v : fold(v));
  return `j.type = 'text' AND ${cs ? 'j.value' : 'trove_fold(j.value)'} = ?`;
}


function sqlitePath(keys: readonly string[]): string {
  return `$${keys.map((s) => `."${s}"`).join('')}`;
}
