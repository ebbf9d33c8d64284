// The retrieval modes under a token budget, on real text and the real chunker: the estimate
// ceil(chars / chars_per_token) never exceeds max_tokens in any mode, whatever the budget,
// the characters per token or the text (CJK, emoji at a cut); siblings grow around the anchor
// while they fit; full pages through a long text by cursor and refuses a stale one.
import { describe, expect, it } from 'vitest';
import { chunkOnTheFly, findAnchor, matcherFor } from '../../src-main/engine/knowledge/anchor.js';
import { budgetChars, estimateTokens } from '../../src-main/engine/knowledge/options.js';
import { retrieve, siblings, type ItemChunk, type ResolvedRetrieval } from '../../src-main/engine/knowledge/retrieval.js';
import { TroveError } from '../../src-main/engine/errors.js';

const paragraph = (i: number) => `Paragraph ${i} talks about retries, backoff and jitter. `.repeat(3 + (i % 4)).trim();
const TEXT = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n${paragraph(i)}\n`).join('\n');
const CJK = Array.from({ length: 30 }, (_, i) => `第${i}章 重试与退避策略的说明，包含抖动。😀 `.repeat(5)).join('\n\n');

function run(text: string, chunks: ItemChunk[], options: Partial<ResolvedRetrieval>, extra: { query?: string; cursor?: string; version?: string } = {}) {
  const matcher = matcherFor(extra.query);
  const anchor = findAnchor(text, chunks, undefined, matcher);
  return retrieve({
    text,
    chunks,
    chunking: 'on_the_fly',
    anchor: anchor.position,
    anchoredBy: anchor.by,
    matcher,
    options: { mode: 'snippet', snippetLength: 300, maxTokens: 5000, charsPerToken: 4, siblingWindow: 1, ...options },
    cursor: extra.cursor,
    version: extra.version ?? 'v1',
  });
}

describe('token budget', () => {
  const modes = ['snippet', 'chunk', 'chunk_with_siblings', 'full'] as const;
  const budgets = [16, 17, 50, 333, 2000];
  const cpts = [1, 2.5, 3.3, 4, 7];
  for (const [name, text] of [
    ['latin', TEXT],
    ['cjk + emoji', CJK],
  ] as const) {
    it(`holds exactly for every mode, budget and chars_per_token (${name})`, () => {
      const chunks = chunkOnTheFly(text, 600, 80);
      expect(chunks.length).toBeGreaterThan(5);
      for (const mode of modes) {
        for (const maxTokens of budgets) {
          for (const charsPerToken of cpts) {
            for (const query of [undefined, 'jitter backoff', '抖动']) {
              const { content, info } = run(text, chunks, { mode, maxTokens, charsPerToken, siblingWindow: 3 }, { query });
              const where = `${mode} max ${maxTokens} cpt ${charsPerToken} q ${query}`;
              expect(Math.ceil(content.length / charsPerToken), where).toBeLessThanOrEqual(maxTokens);
              expect(info.tokens, where).toBe(Math.ceil(content.length / charsPerToken));
              expect(info.max_tokens).toBe(maxTokens);
              expect(content.length, where).toBeGreaterThan(0);
              // never half a surrogate pair at either end
              expect(/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(content), where).toBe(false);
            }
          }
        }
      }
    });
  }

  it('budgetChars is the largest length whose estimate fits', () => {
    for (const [max, cpt] of [[2000, 4], [2000, 3.3], [17, 2.5], [16, 1], [100, 7]] as const) {
      const chars = budgetChars(max, cpt);
      expect(estimateTokens(chars, cpt)).toBeLessThanOrEqual(max);
      expect(estimateTokens(chars + 1, cpt)).toBeGreaterThan(max);
    }
  });
});

describe('modes', () => {
  const chunks = chunkOnTheFly(TEXT, 400, 0);

  it('snippet: plain text around the query, at most snippet_length', () => {
    const { content, info } = run(TEXT, chunks, { mode: 'snippet', snippetLength: 80 }, { query: 'jitter' });
    expect(content.length).toBeLessThanOrEqual(80);
    expect(content).toMatch(/jitter/);
    expect(content).not.toMatch(/\n|\s{2}/);
    expect(info.anchored_by).toBe('query');
  });

  it('chunk: the anchor chunk, cut around the query when over budget', () => {
    const whole = run(TEXT, chunks, { mode: 'chunk' }, { query: 'Part 7' });
    const anchor = chunks.find((c) => c.index === whole.info.anchor)!;
    expect(whole.content).toBe(TEXT.slice(anchor.charStart, anchor.charEnd));
    expect(whole.info.truncated).toBe(false);
    const cut = run(TEXT, chunks, { mode: 'chunk', maxTokens: 10 }, { query: 'jitter' });
    expect(cut.info.truncated).toBe(true);
    expect(cut.content.length).toBeLessThanOrEqual(40);
  });

  it('chunk_with_siblings: grows left and right around the anchor while the span fits', () => {
    const anchorAt = 10;
    const budget = budgetChars(300, 4);
    const span = siblings(chunks, anchorAt, 2, budget);
    expect(span).toContain(anchorAt);
    expect(span.length).toBeGreaterThan(1);
    expect(chunks[span.at(-1)!]!.charEnd - chunks[span[0]!]!.charStart).toBeLessThanOrEqual(budget);
    // contiguous, and at most the window on each side
    expect(span).toEqual(Array.from({ length: span.length }, (_, i) => span[0]! + i));
    expect(anchorAt - span[0]!).toBeLessThanOrEqual(2);
    expect(span.at(-1)! - anchorAt).toBeLessThanOrEqual(2);
    // a window of 0 is the anchor alone; a huge budget takes the whole window
    expect(siblings(chunks, anchorAt, 0, 1e9)).toEqual([anchorAt]);
    expect(siblings(chunks, anchorAt, 3, 1e9)).toEqual([7, 8, 9, 10, 11, 12, 13]);
    expect(siblings(chunks, 0, 2, 1e9)).toEqual([0, 1, 2]);
  });

  it('full: pages by cursor until the end, each page within the budget, covering the text once', () => {
    let cursor: string | undefined;
    let seen = '';
    let pages = 0;
    do {
      const { content, info } = run(TEXT, chunks, { mode: 'full', maxTokens: 300, charsPerToken: 4 }, { cursor });
      expect(info.tokens).toBeLessThanOrEqual(300);
      expect(info.char_start).toBe(seen.length);
      seen += content;
      cursor = info.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toBe(TEXT);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(TEXT.length / 1200)); // 300 tokens × 4 characters a page at most
  });

  it('full: a cursor from another version of the item, or a made-up one, is a clear INVALID_INPUT', () => {
    const first = run(TEXT, chunks, { mode: 'full', maxTokens: 100 });
    const stale = () => run(TEXT, chunks, { mode: 'full', maxTokens: 100 }, { cursor: first.info.next_cursor!, version: 'v2' });
    expect(stale).toThrow(TroveError);
    expect(stale).toThrow(/changed since this cursor/);
    expect(() => run(TEXT, chunks, { mode: 'full' }, { cursor: 'not-a-cursor' })).toThrow(/not one knowledge.get returned/);
  });

  it('an empty item gives empty content, not an error', () => {
    const { content, info } = run('', [], { mode: 'chunk_with_siblings' });
    expect(content).toBe('');
    expect(info.tokens).toBe(0);
    expect(info.anchor).toBeNull();
  });
});

describe('anchors', () => {
  const chunks = chunkOnTheFly(TEXT, 400, 0);

  it('a loc names a chunk by index, line or offset; a wrong one says which exist', () => {
    expect(findAnchor(TEXT, chunks, { chunk_index: 3 }, null)).toEqual({ position: 3, by: 'loc' });
    const c = chunks[5]!;
    expect(findAnchor(TEXT, chunks, { line: c.lineStart! }, null).position).toBe(5);
    expect(findAnchor(TEXT, chunks, { approx_offset: c.charStart + 1 }, null).position).toBe(5);
    expect(() => findAnchor(TEXT, chunks, { chunk_index: 999 }, null)).toThrow(/not a chunk of this item \(it has chunks 0–\d+\)/);
  });

  it('without a loc, the chunk with the most distinct query words wins; without words, the first', () => {
    const text = 'alpha beta\n\ngamma delta epsilon\n\nbeta gamma delta\n';
    const cs = chunkOnTheFly(text, 16, 0);
    expect(findAnchor(text, cs, undefined, matcherFor('gamma delta epsilon'))).toEqual({ position: cs.findIndex((x) => text.slice(x.charStart, x.charEnd).includes('epsilon')), by: 'query' });
    expect(findAnchor(text, cs, undefined, matcherFor('the of'))).toEqual({ position: 0, by: 'first' });
    expect(findAnchor(text, cs, undefined, null)).toEqual({ position: 0, by: 'first' });
  });
});
