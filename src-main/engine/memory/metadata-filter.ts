// Metadata filters: simple equality per key, and the context server's 16 operators with nested
// paths (team.name) and case_sensitive. checkMetadata() is the one validator both backends share:
// a bad key, an unknown operator or a value of the wrong type for its operator is an
// INVALID_INPUT naming the filter, and nothing runs. What it returns is data (MetadataCondition),
// which each backend renders into its SQL: SQLite's json_extract / json_type here, PostgreSQL's
// jsonb operators in metadata-filter-pg.ts. Paths and values are bound as parameters, never
// spliced into the SQL. Every check is typed: a number never equals the string "5", true is not
// 1. Each condition is 0 or 1 (never NULL), so ne / not_in hold for entries that lack the key (as
// in most document stores).
import { invalidInput } from '../errors.js';
import type { MetadataFilter, MetadataOperator } from '../types/memory.js';

export const METADATA_OPERATORS: readonly MetadataOperator[] = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists',
  'contains', 'starts_with', 'ends_with', 'is_null', 'is_not_null', 'array_contains',
];

const KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export type Scalar = string | number | boolean | null;

/** One checked condition: the key's segments, the operator and a value of the type the operator takes. */
export type MetadataCondition =
  | { op: 'eq' | 'ne'; keys: string[]; value: Scalar; cs: boolean }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; keys: string[]; value: number | string; cs: boolean }
  | { op: 'in' | 'not_in'; keys: string[]; value: (string | number | boolean)[]; cs: boolean }
  | { op: 'exists' | 'not_exists' | 'is_null' | 'is_not_null'; keys: string[] }
  | { op: 'contains' | 'starts_with' | 'ends_with'; keys: string[]; value: string; cs: boolean }
  | { op: 'array_contains'; keys: string[]; value: string | number | boolean; cs: boolean };

export interface SqlFragment {
  where: string[];
  params: unknown[];
}

/** The key's segments (team.name → team, name), or INVALID_INPUT saying what a key may hold. */
function keySegments(key: string, what: string): string[] {
  if (!KEY.test(key)) throw invalidInput(`${what}: "${key}" is not a metadata key (letters, digits, _ and -, nested keys joined with dots)`);
  return key.split('.');
}

/** `$."team"."name"` for team.name: each segment quoted, so hyphens and digits are plain keys. */
export function jsonPath(key: string, what: string): string {
  return sqlitePath(keySegments(key, what));
}

function sqlitePath(keys: readonly string[]): string {
  return `$${keys.map((s) => `."${s}"`).join('')}`;
}

/** Lower-cases for case-insensitive comparison (the SQL side is trove_fold, the same function). */
export function fold(s: string): string {
  return s.toLowerCase();
}

/** The filters checked, in order: equality first (case-sensitive), then metadata_filters. */
export function checkMetadata(equality: Record<string, unknown> | undefined, filters: readonly MetadataFilter[] | undefined): MetadataCondition[] {
  const out: MetadataCondition[] = [];
  for (const [key, value] of Object.entries(equality ?? {})) {
    const keys = keySegments(key, `metadata.${key}`);
    if (!isScalar(value)) throw invalidInput(`metadata.${key}: simple filters compare single values; use metadata_filters (in, array_contains…) for lists`);
    out.push({ op: 'eq', keys, value, cs: true });
  }
  (filters ?? []).forEach((f, i) => out.push(checkCondition(f, `metadata_filters[${i}]`)));
  return out;
}

function checkCondition(f: MetadataFilter, what: string): MetadataCondition {
  if (typeof f !== 'object' || f === null) throw invalidInput(`${what}: a filter is an object {key, operator, value}`);
  if (typeof f.key !== 'string') throw invalidInput(`${what}.key: a metadata key is required`);
  const op = f.operator ?? 'eq';
  if (!METADATA_OPERATORS.includes(op)) throw invalidInput(`${what}: unknown operator "${String(op)}" (operators: ${METADATA_OPERATORS.join(', ')})`);
  if (f.case_sensitive !== undefined && typeof f.case_sensitive !== 'boolean') throw invalidInput(`${what}.case_sensitive must be true or false`);
  const keys = keySegments(f.key, `${what}.key`);
  const cs = f.case_sensitive === true;
  const v = f.value;
  switch (op) {
    case 'eq':
    case 'ne':
      return { op, keys, value: scalar(v, op, what), cs };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'string') return { op, keys, value: v, cs };
      throw invalidInput(`${what}: operator ${op} compares a number or a string, not ${describe(v)}`);
    case 'in':
    case 'not_in':
      if (!Array.isArray(v) || !v.length || !v.every((x) => isScalar(x) && x !== null)) {
        throw invalidInput(`${what}: operator ${op} needs a non-empty list of strings, numbers or booleans, not ${describe(v)}`);
      }
      return { op, keys, value: v as (string | number | boolean)[], cs };
    case 'exists':
    case 'not_exists':
    case 'is_null':
    case 'is_not_null':
      return { op, keys };
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      if (typeof v !== 'string' || !v) throw invalidInput(`${what}: operator ${op} needs a non-empty string, not ${describe(v)}`);
      return { op, keys, value: v, cs };
    case 'array_contains':
      if (!isScalar(v) || v === null) throw invalidInput(`${what}: operator array_contains needs one string, number or boolean, not ${describe(v)}`);
      return { op, keys, value: v, cs };
  }
}

/** The filters as SQLite over a JSON column (checked first: see checkMetadata). */
export function metadataSql(column: string, equality: Record<string, unknown> | undefined, filters: readonly MetadataFilter[] | undefined): SqlFragment {
  return sqliteMetadataSql(column, checkMetadata(equality, filters));
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

function scalar(v: unknown, op: string, what: string): Scalar {
  if (v === undefined) throw invalidInput(`${what}: operator ${op} needs a value`);
  if (!isScalar(v)) throw invalidInput(`${what}: operator ${op} compares one string, number, boolean or null, not ${describe(v)}`);
  return v;
}

function isScalar(v: unknown): v is Scalar {
  return v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}
