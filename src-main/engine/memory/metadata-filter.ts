// Metadata filters: simple equality per key, and the context server's 16 operators with nested
// paths (team.name) and case_sensitive. checkMetadata() is the one validator: a bad key, an
// unknown operator or a value of the wrong type for its operator is an INVALID_INPUT naming the
// filter, and nothing runs. What it returns is data (store/memory-rows.ts MetadataCondition), which
// each backend renders into its SQL (store/sqlite/memory-filters.ts: json_extract / json_type;
// store/postgres/memory-filters.ts: jsonb operators), with paths and values bound as parameters.
// Every check is typed: a number never equals the string "5", true is not 1. Each condition is 0 or
// 1 (never NULL), so ne / not_in hold for entries that lack the key (as in most document stores).
import { invalidInput } from '../errors.js';
import type { MetadataCondition, Scalar } from '../store/memory-rows.js';
import type { MetadataFilter, MetadataOperator } from '../types/memory.js';

export const METADATA_OPERATORS: readonly MetadataOperator[] = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'exists', 'not_exists',
  'contains', 'starts_with', 'ends_with', 'is_null', 'is_not_null', 'array_contains',
];

const KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;


/** The key's segments (team.name → team, name), or INVALID_INPUT saying what a key may hold. */
function keySegments(key: string, what: string): string[] {
  if (!KEY.test(key)) throw invalidInput(`${what}: "${key}" is not a metadata key (letters, digits, _ and -, nested keys joined with dots)`);
  return key.split('.');
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
