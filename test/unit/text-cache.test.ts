// DocumentTextCache: reads once per generation, evicts the least recently used beyond its size,
// never keeps a huge document, and forgets everything when the index changes.
import { describe, expect, it } from 'vitest';
import { DocumentTextCache } from '../../src-main/engine/search/text-cache.js';

function cacheOver(texts: Record<number, string>, maxChars: number) {
  const reads: number[] = [];
  const cache = new DocumentTextCache(
    (id) => {
      reads.push(id);
      return texts[id];
    },
    maxChars,
    maxChars / 2,
  );
  return { cache, reads };
}

describe('DocumentTextCache', () => {
  it('reads a document once, then answers from memory until the generation changes', () => {
    const texts: Record<number, string> = { 1: 'one', 2: 'two' };
    const { cache, reads } = cacheOver(texts, 1000);
    expect(cache.get(1, 0)).toBe('one');
    expect(cache.get(1, 0)).toBe('one');
    expect(reads).toEqual([1]);
    texts[1] = 'one, edited';
    expect(cache.get(1, 1)).toBe('one, edited');
    expect(reads).toEqual([1, 1]);
    expect(cache.get(3, 1)).toBeUndefined();
  });

  it('evicts the least recently used documents beyond its size and never keeps a huge one', () => {
    const texts: Record<number, string> = { 1: 'a'.repeat(40), 2: 'b'.repeat(40), 3: 'c'.repeat(40), 4: 'd'.repeat(200) };
    const { cache, reads } = cacheOver(texts, 100);
    cache.get(1, 0);
    cache.get(2, 0);
    cache.get(1, 0); // 1 is now the most recent
    cache.get(3, 0); // over 100 chars: 2 goes
    expect(reads).toEqual([1, 2, 3]);
    cache.get(1, 0);
    cache.get(3, 0);
    expect(reads).toEqual([1, 2, 3]);
    cache.get(2, 0);
    expect(reads).toEqual([1, 2, 3, 2]);
    expect(cache.get(4, 0)).toBe(texts[4]);
    expect(cache.get(4, 0)).toBe(texts[4]);
    expect(reads.filter((id) => id === 4)).toHaveLength(2);
  });
});
