// Tool schemas are converted to JSON Schema once per process, not once per request. The
// 2026-07-28 revision builds a server per request (mcp/server.ts), and the SDK converts a
// tool's zod input schema (for its Mcp-Param header check) and output schema (to validate
// structuredContent) on every tools/call of each new server: ~0.4 ms a call, more than a
// keyword search costs. zod lets a schema's Standard Schema surface be replaced; this one
// answers the JSON Schema from a cache, deep-frozen: the SDK only reads it (spreading it into
// new objects where it adds to it), and a change would throw rather than leak into later calls.
import type { z } from 'zod';

type JsonSchemaOptions = { target: string; libraryOptions?: Record<string, unknown> };
type Converter = (options: JsonSchemaOptions) => Record<string, unknown>;

export function convertedOnce<T extends z.ZodType>(schema: T): T {
  const std = schema['~standard'] as T['~standard'] & { jsonSchema: { input: Converter; output: Converter } };
  const cache = new Map<string, Record<string, unknown>>();
  const memo =
    (io: 'input' | 'output'): Converter =>
    (options) => {
      const key = `${io} ${options.target} ${JSON.stringify(options.libraryOptions ?? null)}`;
      let json = cache.get(key);
      if (!json) cache.set(key, (json = deepFreeze(std.jsonSchema[io](options))));
      return json;
    };
  (schema as { '~standard': unknown })['~standard'] = { ...std, jsonSchema: { input: memo('input'), output: memo('output') } };
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
