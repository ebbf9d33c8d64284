// DocumentTextCache: keeps the text windows it is given, evicts the least recently used beyond its
// size, never keeps a huge one, and forgets everything when cleared (the index changed).
import { describe, expect, it } from 'vitest';
import { DocumentTextCache } from '../../src-main/engine/search/text-cache.js';

/** A read-through over `texts` as PageAnchors uses the cache: get, else read and put. */
function cacheOver(texts: Record<number, string>, maxChars: number) {
  const reads: number[] = [];
  const cache = new DocumentTextCache(maxChars, maxChars / 2);
  const get = (id: number): string | undefined => {
    const hit = cache.get(id);
    if (hit !== undefined) return hit.text;
    reads.push(id);
    const text = texts[id];
    if (text !== undefined) cache.put(id, { start: id, text });
    return text;
  };
  return { cache, get, reads };
}

describe('DocumentTextCache', () => {
  it('reads a document once, then answers from memory until it is cleared', () => {
    const texts: Record<number, string> = { 1: 'one', 2: 'two' };
    const { cache, get, reads } = cacheOver(texts, 1000);
    expect(get(1)).toBe('one');
    expect(get(1)).toBe('one');
    expect(reads).toEqual([1]);
    texts[1] = 'one, edited';
    cache.clear();
    expect(get(1)).toBe('one, edited');
    expect(reads).toEqual([1, 1]);
    expect(get(3)).toBeUndefined();
  });

  it('evicts the least recently used documents beyond its size and never keeps a huge one', () => {
    const texts: Record<number, string> = { 1: 'a'.repeat(40), 2: 'b'.repeat(40), 3: 'c'.repeat(40), 4: 'd'.repeat(200) };
    const { get, reads } = cacheOver(texts, 100);
    get(1);
    get(2);
    get(1); // 1 is now the most recent
    get(3); // over 100 chars: 2 goes
    expect(reads).toEqual([1, 2, 3]);
    get(1);
    get(3);
    expect(reads).toEqual([1, 2, 3]);
    get(2);
    expect(reads).toEqual([1, 2, 3, 2]);
    expect(get(4)).toBe(texts[4]);
    expect(get(4)).toBe(texts[4]);
    expect(reads.filter((id) => id === 4)).toHaveLength(2);
  });
});
