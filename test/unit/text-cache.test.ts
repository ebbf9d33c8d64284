// DocumentTextCache: keeps the stretches of documents' texts it is given, serves any range a kept
// stretch covers (to the text's end when the stretch runs there), evicts the least recently used
// documents beyond its size, never keeps a huge stretch, and forgets everything when cleared.
import { describe, expect, it } from 'vitest';
import { DocumentTextCache } from '../../src-main/engine/search/text-cache.js';

describe('DocumentTextCache', () => {
  it('serves ranges a kept stretch covers, and only those, until it is cleared', () => {
    const cache = new DocumentTextCache(1000);
    cache.put(1, { start: 10, text: 'abcdefghij', toEnd: false }); // chars 10–19 of document 1
    expect(cache.find(1, 10, 20)?.text).toBe('abcdefghij');
    expect(cache.find(1, 12, 15)?.start).toBe(10);
    expect(cache.find(1, 9, 15)).toBeUndefined(); // starts before the stretch
    expect(cache.find(1, 15, 21)).toBeUndefined(); // runs past it, and the text may go on
    expect(cache.find(2, 10, 20)).toBeUndefined();
    cache.put(1, { start: 30, text: 'xyz', toEnd: true }); // the text ends at 33
    expect(cache.find(1, 31, 40)?.text).toBe('xyz');
    expect(cache.find(1, 12, 15)?.start).toBe(10); // both stretches kept
    cache.clear();
    expect(cache.find(1, 12, 15)).toBeUndefined();
  });

  it('evicts the least recently used documents beyond its size and never keeps a huge stretch', () => {
    const cache = new DocumentTextCache(100, 50);
    const put = (id: number, n: number) => cache.put(id, { start: 0, text: 'x'.repeat(n), toEnd: true });
    put(1, 40);
    put(2, 40);
    expect(cache.find(1, 0, 5)).toBeDefined(); // 1 is now the most recent
    put(3, 40); // over 100 chars: 2 goes
    expect(cache.find(2, 0, 5)).toBeUndefined();
    expect(cache.find(1, 0, 5)).toBeDefined();
    expect(cache.find(3, 0, 5)).toBeDefined();
    put(4, 60); // longer than a stretch may be
    expect(cache.find(4, 0, 5)).toBeUndefined();
  });

  it('keeps a few stretches per document, the oldest going first', () => {
    const cache = new DocumentTextCache(10_000);
    for (let i = 0; i < 5; i++) cache.put(7, { start: i * 100, text: 'y'.repeat(50), toEnd: false });
    expect(cache.find(7, 0, 10)).toBeUndefined();
    expect(cache.find(7, 400, 410)?.start).toBe(400);
  });
});
