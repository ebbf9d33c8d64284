// The Connect screen's request preview serialises only the first few dozen characters of a call's
// arguments: jsonPrefix must agree with JSON.stringify on every character it keeps, for any value.
import { describe, expect, it } from 'vitest';
import { jsonPrefix } from '../../src-main/mcp/transports/request-log.js';

/** A small deterministic generator (mulberry32), so a failure names a reproducible value. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'jitter ', '"', '\\', '\n', 'é', '中文', '😀', '\u0001', ' ', 'token=abc'];

function value(r: () => number, depth: number): unknown {
  const pick = Math.floor(r() * (depth > 3 ? 5 : 8));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return r() < 0.2 ? Number.NaN : Math.round((r() - 0.5) * 1e6) / 100;
    case 3:
    case 4: return Array.from({ length: Math.floor(r() * 40) }, () => PIECES[Math.floor(r() * PIECES.length)]).join('');
    case 5: return Array.from({ length: Math.floor(r() * 6) }, () => (r() < 0.1 ? undefined : value(r, depth + 1)));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 6); i > 0; i--) o[`k${i}${PIECES[Math.floor(r() * PIECES.length)]}`] = r() < 0.1 ? undefined : value(r, depth + 1);
      return o;
    }
  }
}

describe('jsonPrefix', () => {
  it('is JSON.stringify when that fits, else longer than the limit and equal to it on the first `max` characters', () => {
    const r = random(7);
    let cut = 0;
    for (let i = 0; i < 3000; i++) {
      const v = value(r, 0);
      const max = 1 + Math.floor(r() * 80);
      const full = JSON.stringify(v);
      const prefix = jsonPrefix(v, max);
      if (full.length <= max) {
        expect(prefix).toBe(full);
      } else {
        cut++;
        expect(prefix.length).toBeGreaterThan(max);
        expect(prefix.slice(0, max)).toBe(full.slice(0, max));
      }
    }
    expect(cut).toBeGreaterThan(500); // the generator makes values longer than the limit, often
  });

  it('does not serialise a long batch past the limit', () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ thread_id: 't', source: 'agent', text: `entry ${i} `.repeat(40) }));
    const prefix = jsonPrefix({ entries }, 60);
    expect(prefix.length).toBeLessThan(600);
    expect(prefix.slice(0, 60)).toBe(JSON.stringify({ entries }).slice(0, 60));
  });
});
