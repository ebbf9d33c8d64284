// The memory room's small pure parts: JSON Merge Patch against RFC 7396's own examples, the ISO
// 8601 forms dates may take, and the context server's text truncation.
import { describe, expect, it } from 'vitest';
import { parseMemoryDate } from '../../src-main/engine/memory/dates.js';
import { mergePatch } from '../../src-main/engine/memory/merge-patch.js';
import { truncate } from '../../src-main/mcp/tools/memory-shapes.js';

describe('mergePatch (RFC 7396, appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  it.each(cases)('%j patched with %j is %j', (target, patch, result) => {
    expect(mergePatch(target, patch)).toEqual(result);
  });

  it('leaves the target untouched and treats "__proto__" as a plain member', () => {
    const target = { a: { b: 1 } };
    const out = mergePatch(target, JSON.parse('{"a":{"c":2},"__proto__":{"polluted":true}}')) as Record<string, unknown>;
    expect(target).toEqual({ a: { b: 1 } });
    expect(out.a).toEqual({ b: 1, c: 2 });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(['a', '__proto__']);
  });
});

describe('parseMemoryDate', () => {
  const at = (s: string) => new Date(s).getTime();
  it.each([
    ['2025-11-29', false, at('2025-11-29T00:00:00.000Z')],
    ['2025-11-29', true, at('2025-11-29T23:59:59.999Z')],
    ['2025-11-29T10:00:00', false, at('2025-11-29T10:00:00Z')],
    ['2025-11-29T10:00', false, at('2025-11-29T10:00:00Z')],
    ['2025-11-29 10:00:00', false, at('2025-11-29T10:00:00Z')],
    ['2025-11-29T10:00:00Z', false, at('2025-11-29T10:00:00Z')],
    ['2025-11-29T10:00:00+02:00', false, at('2025-11-29T08:00:00Z')],
    ['2025-11-29T10:00:00-0530', false, at('2025-11-29T15:30:00Z')],
    ['2025-11-29T10:00:00.123Z', false, at('2025-11-29T10:00:00.123Z')],
    ['2025-11-29T10:00:00.1234Z', false, at('2025-11-29T10:00:00.124Z')],
    ['2025-11-29T10:00:00.1234Z', true, at('2025-11-29T10:00:00.123Z')],
    ['2025-11-29T23:59:59.999999', true, at('2025-11-29T23:59:59.999Z')],
    ['2024-02-29', false, at('2024-02-29T00:00:00Z')],
  ] as const)('%s (end %s)', (s, end, ms) => {
    expect(parseMemoryDate(s, 'start_date', end)).toBe(ms);
  });

  it.each(['29/11/2025', '2025-11-31', '2025-02-29', '2025-11-29T24:00:00', '2025-11-29T10:60', 'tomorrow', '', '2025-11-29T10:00:00+25:00'])('refuses %j', (s) => {
    expect(() => parseMemoryDate(s, 'end_date')).toThrow(/^end_date (is not|has an impossible)/);
  });
});

describe('truncate', () => {
  it('leaves short text alone and cuts long text at a nearby word boundary with ...', () => {
    expect(truncate('short')).toEqual({ text: 'short', truncated: false });
    const long = `${'word '.repeat(100)}`;
    const t = truncate(long, 300);
    expect(t.truncated).toBe(true);
    expect(t.text.endsWith('word...')).toBe(true);
    expect(t.text.length).toBeLessThanOrEqual(303);
    expect(truncate('x'.repeat(400), 300).text).toBe(`${'x'.repeat(300)}...`);
  });
});
