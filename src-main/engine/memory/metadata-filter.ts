// Metadata filters as SQL over a JSON column: simple equality per key, and the context server's
// 16 operators with nested paths (team.name) and case_sensitive. Paths and values are bound as
// parameters, never spliced into the SQL. Every check is typed: a number never equals the string
// "5", true is not 1. Each condition is 0 or 1 (never NULL), so ne / not_in hold for entries that
// lack the key (as in most document stores). A bad key, an unknown operator or a value of the
// wrong type for its operator is an INVALID_INPUT naming the filter; nothing runs.
import { invalidInput } from '../errors.js';
import type { MetadataFilter, MetadataOperator } from '../types/memory.js';

export const METADATA_OPERATORS: readonly MetadataOperator[] = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists',
  'contains', 'starts_with', 'ends_with', 'is_null', 'is_not_null', 'array_contains',
];

const KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

type Scalar = string | number | boolean | null;

export interface SqlFragment {
  where: string[];
  params: unknown[];
}

/** `$."team"."name"` for team.name: each segment quoted, so hyphens and digits are plain keys. */
export function jsonPath(key: string, what: string): string {
  if (!KEY.test(key)) throw invalidInput(`${what}: "${key}" is not a metadata key (letters, digits, _ and -, nested keys joined with dots)`);
  return `$${key.split('.').map((s) => `."${s}"`).join('')}`;
}

/** Lower-cases for case-insensitive comparison (the SQL side is trove_fold, the same function). */
export function fold(s: string): string {
  return s.toLowerCase();
}

export function metadataSql(column: string, equality: Record<string, unknown> | undefined, filters: readonly MetadataFilter[] | undefined): SqlFragment {
  const out: SqlFragment = { where: [], params: [] };
  for (const [key, value] of Object.entries(equality ?? {})) {
    const path = jsonPath(key, `metadata.${key}`);
    if (!isScalar(value)) throw invalidInput(`metadata.${key}: simple filters compare single values; use metadata_filters (in, array_contains…) for lists`);
    out.where.push(matches(column, path, value, true, out.params));
  }
  (filters ?? []).forEach((f, i) => out.where.push(condition(column, f, `metadata_filters[${i}]`, out.params)));
  return out;
}

function condition(m: string, f: MetadataFilter, what: string, params: unknown[]): string {
  if (typeof f !== 'object' || f === null) throw invalidInput(`${what}: a filter is an object {key, operator, value}`);
  if (typeof f.key !== 'string') throw invalidInput(`${what}.key: a metadata key is required`);
  const op = f.operator ?? 'eq';
  if (!METADATA_OPERATORS.includes(op)) throw invalidInput(`${what}: unknown operator "${String(op)}" (operators: ${METADATA_OPERATORS.join(', ')})`);
  if (f.case_sensitive !== undefined && typeof f.case_sensitive !== 'boolean') throw invalidInput(`${what}.case_sensitive must be true or false`);
  const path = jsonPath(f.key, `${what}.key`);
  const cs = f.case_sensitive === true;
  const v = f.value;
  const type = `json_type(${m}, ?)`;
  switch (op) {
    case 'eq':
      return matches(m, path, scalar(v, op, what), cs, params);
    case 'ne':
      return `NOT ${matches(m, path, scalar(v, op, what), cs, params)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const sqlOp = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
      if (typeof v === 'number' && Number.isFinite(v)) {
        params.push(path, path, v);
        return `(ifnull(${type}, '') IN ('integer', 'real') AND json_extract(${m}, ?) ${sqlOp} ?)`;
      }
      if (typeof v === 'string') {
        params.push(path, path, cs ? v : fold(v));
        return `(${type} IS 'text' AND ${cs ? `json_extract(${m}, ?)` : `trove_fold(json_extract(${m}, ?))`} ${sqlOp} ?)`;
      }
      throw invalidInput(`${what}: operator ${op} compares a number or a string, not ${describe(v)}`);
    }
    case 'in':
    case 'not_in': {
      if (!Array.isArray(v) || !v.length || !v.every((x) => isScalar(x) && x !== null)) {
        throw invalidInput(`${what}: operator ${op} needs a non-empty list of strings, numbers or booleans, not ${describe(v)}`);
      }
      const any = `(${v.map((x) => matches(m, path, x as Scalar, cs, params)).join(' OR ')})`;
      return op === 'in' ? any : `NOT ${any}`;
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
      if (typeof v !== 'string' || !v) throw invalidInput(`${what}: operator ${op} needs a non-empty string, not ${describe(v)}`);
      const needle = cs ? v : fold(v);
      const field = cs ? `json_extract(${m}, ?)` : `trove_fold(json_extract(${m}, ?))`;
      params.push(path, path);
      if (op === 'contains') {
        params.push(needle);
        return `(${type} IS 'text' AND instr(${field}, ?) > 0)`;
      }
      if (op === 'starts_with') {
        params.push(needle);
        return `(${type} IS 'text' AND instr(${field}, ?) = 1)`;
      }
      params.push(needle, needle);
      return `(${type} IS 'text' AND substr(${field}, -length(?)) = ?)`;
    }
    case 'array_contains': {
      if (!isScalar(v) || v === null) throw invalidInput(`${what}: operator array_contains needs one string, number or boolean, not ${describe(v)}`);
      params.push(path, path);
      return `(${type} IS 'array' AND EXISTS (SELECT 1 FROM json_each(${m}, ?) j WHERE ${elementMatches(v, cs, params)}))`;
    }
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
