// Tool schemas converted to JSON Schema once (mcp/tools/schema-cache.ts): the same JSON Schema as a
// fresh conversion, frozen (a caller changing it would throw, not corrupt later calls), validation unchanged.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { convertedOnce } from '../../src-main/mcp/tools/schema-cache.js';

const shape = () => z.object({ query: z.string().min(1).describe('What to look for'), limit: z.number().int().default(10) });

describe('convertedOnce', () => {
  it('answers the JSON Schema a fresh conversion gives, input and output, frozen', () => {
    const cached = convertedOnce(shape());
    const fresh = shape()['~standard'].jsonSchema;
    for (const io of ['input', 'output'] as const) {
      const a = cached['~standard'].jsonSchema[io]({ target: 'draft-2020-12' });
      expect(a).toEqual(fresh[io]({ target: 'draft-2020-12' }));
      expect(() => ((a as Record<string, unknown>).type = 'changed')).toThrow(TypeError);
      expect(() => ((a.properties as Record<string, Record<string, unknown>>).query!.minLength = 5)).toThrow(TypeError);
      expect(cached['~standard'].jsonSchema[io]({ target: 'draft-2020-12' })).toEqual(fresh[io]({ target: 'draft-2020-12' }));
    }
    expect(cached['~standard'].jsonSchema.input({ target: 'draft-07' })).toEqual(fresh.input({ target: 'draft-07' }));
  });

  it('validates as before', () => {
    const cached = convertedOnce(shape());
    expect(cached.parse({ query: 'x' })).toEqual({ query: 'x', limit: 10 });
    expect(cached.safeParse({ query: '' }).success).toBe(false);
    expect(cached['~standard'].validate({ query: 'x' })).toEqual({ value: { query: 'x', limit: 10 } });
  });
});
