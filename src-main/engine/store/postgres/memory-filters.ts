// The checked metadata conditions (memory/metadata-filter.ts checkMetadata: one validator for both
// backends) rendered as PostgreSQL over a jsonb column, with the same typed semantics as SQLite's
// rendering: a number never equals "5", each condition true or false (never NULL, so ne / not_in
// hold for entries without the key). Placeholders are written `?` and numbered by the caller
// (no jsonb `?` operator is used). Conditions a GIN jsonb_path_ops index can serve are written as
// containment (`@>`): equality of a number, boolean, null or case-sensitive string, `in` of such
// values, and a case-sensitive array_contains (PostgreSQL migration 2 indexes documents.metadata).
// Case-insensitive comparisons fold with lower() under a Unicode collation (pg_unicode_fast gives
// JavaScript's toLowerCase, which SQLite's trove_fold uses) and text compares in byte order
// (COLLATE "C", SQLite's BINARY).
import type { FilterClause } from '../filters.js';
import { entryConditions, fold } from '../memory-conditions.js';
import type { MemoryFilterValues, MetadataCondition, Scalar, SqlFragment } from '../memory-rows.js';

export interface PgMetadataOptions {
  /** A collation lower() folds with as JavaScript does (pg_unicode_fast on PostgreSQL 18), or null for the database's. */
  foldCollation: string | null;
}

/** The checked filters (memory/memory-filters.ts checkFilterValues) over memory_entries e and documents d. */
export function pgMemoryFilters(v: MemoryFilterValues, opts: PgMetadataOptions): { entry: SqlFragment; document: SqlFragment; any: boolean } {
  const entry: SqlFragment = entryConditions(v, (tags) => ['t.tag = ANY(?::text[])', tags]);
  const document = pgMetadataSql('d.metadata', v.metadata, opts);
  return { entry, document, any: entry.where.length > 0 || document.where.length > 0 };
}

/** The filters as one clause over documents d, pushed into the keyword and vector queries (null: no filter). */
export function pgSearchClause(v: MemoryFilterValues, opts: PgMetadataOptions): FilterClause | null {
  const c = pgMemoryFilters(v, opts);
  if (!c.any) return null;
  const parts: string[] = [];
  if (c.entry.where.length) parts.push(`EXISTS (SELECT 1 FROM memory_entries e WHERE e.document_id = d.id AND ${c.entry.where.join(' AND ')})`);
  parts.push(...c.document.where);
  return { where: parts.join(' AND '), params: [...c.entry.params, ...c.document.params] };
}

/** The filters over memory_entries e JOIN documents d, for listings ('': none). */
export function pgListingClause(v: MemoryFilterValues, opts: PgMetadataOptions): SqlFragment & { sql: string } {
  const c = pgMemoryFilters(v, opts);
  const where = [...c.entry.where, ...c.document.where];
  return { where, sql: where.join(' AND '), params: [...c.entry.params, ...c.document.params] };
}

export function pgMetadataSql(column: string, conditions: readonly MetadataCondition[], opts: PgMetadataOptions): SqlFragment {
  const out: SqlFragment = { where: [], params: [] };
  for (const c of conditions) out.where.push(`coalesce(${condition(column, c, opts, out.params)}, false)`);
  return out;
}

function condition(m: string, c: MetadataCondition, opts: PgMetadataOptions, params: unknown[]): string {
  const at = () => reach(m, c.keys, '#>', params);
  const text = (cs: boolean) => {
    const t = reach(m, c.keys, '#>>', params);
    return cs ? `${t} COLLATE "C"` : `lower(${t}${opts.foldCollation ? ` COLLATE ${opts.foldCollation}` : ''}) COLLATE "C"`;
  };
  switch (c.op) {
    case 'eq':
      return matches(m, c.keys, c.value, c.cs, opts, params);
    case 'ne':
      return `NOT coalesce(${matches(m, c.keys, c.value, c.cs, opts, params)}, false)`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const sqlOp = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[c.op];
      if (typeof c.value === 'number') {
        const x = at();
        const y = at();
        params.push(c.value);
        return `(jsonb_typeof(${x}) = 'number' AND (${y})::float8 ${sqlOp} ?::float8)`;
      }
      const x = at();
      const t = text(c.cs);
      params.push(c.cs ? c.value : fold(c.value));
      return `(jsonb_typeof(${x}) = 'string' AND ${t} ${sqlOp} ?::text)`;
    }
    case 'in':
    case 'not_in': {
      const any = `(${c.value.map((v) => `coalesce(${matches(m, c.keys, v, c.cs, opts, params)}, false)`).join(' OR ')})`;
      return c.op === 'in' ? any : `NOT ${any}`;
    }
    case 'exists':
      return `(${at()} IS NOT NULL)`;
    case 'not_exists':
      return `(${at()} IS NULL)`;
    case 'is_null':
      return `(jsonb_typeof(${at()}) = 'null')`;
    case 'is_not_null': {
      const x = at();
      return `(${x} IS NOT NULL AND jsonb_typeof(${at()}) <> 'null')`;
    }
    case 'contains':
    case 'starts_with':
    case 'ends_with': {
      const x = at();
      const t = text(c.cs);
      const needle = c.cs ? c.value : fold(c.value);
      if (c.op === 'contains') {
        params.push(needle);
        return `(jsonb_typeof(${x}) = 'string' AND strpos(${t}, ?::text) > 0)`;
      }
      if (c.op === 'starts_with') {
        params.push(needle);
        return `(jsonb_typeof(${x}) = 'string' AND strpos(${t}, ?::text) = 1)`;
      }
      params.push(needle, needle);
      return `(jsonb_typeof(${x}) = 'string' AND right(${t}, length(?::text)) = ?::text)`;
    }
    case 'array_contains': {
      if (c.cs || typeof c.value !== 'string') {
        params.push(JSON.stringify(nest(c.keys, [c.value])));
        return `(${m} @> ?::jsonb)`;
      }
      const x = at();
      const y = at();
      params.push(fold(c.value));
      return `(jsonb_typeof(${x}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(${y}) j(v) WHERE jsonb_typeof(j.v) = 'string' AND lower((j.v #>> '{}')${opts.foldCollation ? ` COLLATE ${opts.foldCollation}` : ''}) COLLATE "C" = ?::text))`;
    }
  }
}

/** True when the value at the path equals v (typed; strings folded unless case-sensitive). */
function matches(m: string, keys: readonly string[], v: Scalar, cs: boolean, opts: PgMetadataOptions, params: unknown[]): string {
  if (typeof v !== 'string' || cs) {
    // containment: typed as JSON is, served by the GIN index (5 and 5.0 are equal, as in SQLite)
    params.push(JSON.stringify(nest(keys, v)));
    return `(${m} @> ?::jsonb)`;
  }
  const x = reach(m, keys, '#>', params);
  const t = reach(m, keys, '#>>', params);
  params.push(fold(v));
  return `(jsonb_typeof(${x}) = 'string' AND lower(${t}${opts.foldCollation ? ` COLLATE ${opts.foldCollation}` : ''}) COLLATE "C" = ?::text)`;
}

/**
 * The value at a dotted path (`#>` as jsonb, `#>>` as text). PostgreSQL's path operators read a
 * segment that parses as an integer (`items.0`, ` 1`, `-1`) as an index when they meet an array;
 * SQLite's path (`$."items"."0"`, metadata-filter.ts jsonPath) only ever names an object's key.
 * So such a segment is reached only through an object, and the common path stays one operator.
 */
function reach(m: string, keys: readonly string[], operator: '#>' | '#>>', params: unknown[]): string {
  const guards: string[] = [];
  keys.forEach((k, i) => {
    if (!INDEX_LIKE.test(k)) return;
    params.push(keys.slice(0, i));
    guards.push(`jsonb_typeof(${m} #> ?::text[]) = 'object'`);
  });
  params.push(keys);
  const value = `(${m} ${operator} ?::text[])`;
  return guards.length ? `(CASE WHEN ${guards.join(' AND ')} THEN ${value} END)` : value;
}

/** What PostgreSQL's strtoint would take as an array index: optional spaces and sign, then digits. */
const INDEX_LIKE = /^\s*[+-]?\d+\s*$/;

/** {"team": {"name": v}} for team.name. */
function nest(keys: readonly string[], v: unknown): unknown {
  return keys.reduceRight<unknown>((inner, k) => ({ [k]: inner }), v);
}

/** `?` placeholders numbered from $first on (the SQL has no other question marks). */
export function numbered(sql: string, first: number): string {
  let n = first;
  return sql.replace(/\?/g, () => `$${n++}`);
}
