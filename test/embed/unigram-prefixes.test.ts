// The packed piece trie that replaces @huggingface/tokenizers' Unigram trie (embed/unigram-prefixes.ts)
// must tokenise exactly as the library's own: the same tokenizer built twice from one tokenizer.json,
// one of them compacted, encodes every text to the same ids.
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { compactUnigram, PieceTrie } from '../../src-main/engine/embed/unigram-prefixes.js';

const pieces = [
  '<unk>', '<s>', '</s>', '▁', '▁the', '▁th', '▁t', 'e', 'h', 't', 'the', 'he', '▁search', '▁sea', 'rch', 's', 'a', 'r', 'c',
  '▁東京', '東', '京', '都', '▁😀', '😀', '👍', '🏽', 'ü', 'ß', '▁stra', 'ße', '▁naïve', 'ï', 'n', 'v', 'i', '▁café', 'é', 'f', 'o', 'x',
  '▁한국', '어', '▁العربية', '\u{e000}x', '\u{e000}', '\u{10000}', 'ab', 'abc', 'abcd', 'b', 'd', '▁a',
];
const tokenizerJson = () => ({
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [
    { id: 0, content: '<unk>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: 1, content: '<s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: 2, content: '</s>', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
  ],
  normalizer: null,
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
  post_processor: null,
  decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
  // scores favour longer pieces a little, so the lattice has real choices to make
  model: { type: 'Unigram', unk_id: 0, byte_fallback: false, vocab: pieces.map((p, i) => [p, -1 - (i % 7) / [...p].length]) },
});

const texts = [
  'the search',
  'thethe theth searchsearch',
  '東京都 東京',
  '😀👍🏽 😀',
  'naïve café straße Straße',
  '한국어 العربية',
  'abcd abc ab a abcdx dcba',
  'zzz unknown qqq',
  '',
  '▁▁ the',
  '\u{e000}x \u{10000}\u{e000} \u{e000}',
];

describe('PieceTrie in place of the Unigram trie', () => {
  it('encodes every text as the library does', () => {
    const library = new Tokenizer(tokenizerJson(), {});
    const compact = new Tokenizer(tokenizerJson(), {});
    expect(compactUnigram(compact)).toBe(true);
    for (const text of texts) expect(compact.encode(text).ids, text).toEqual(library.encode(text).ids);
    // the texts exercise real pieces, not only the unknown one
    expect(new Set(texts.flatMap((t) => library.encode(t).ids)).size).toBeGreaterThan(15);
  });

  it('yields the pieces that start at a position, shortest first', () => {
    const trie = new PieceTrie(pieces);
    expect([...trie.common_prefix_search(Array.from('▁thesis'), 0)]).toEqual(['▁', '▁t', '▁th', '▁the']);
    expect([...trie.common_prefix_search(Array.from('xabcde'), 1)]).toEqual(['a', 'ab', 'abc', 'abcd']);
    expect([...trie.common_prefix_search(Array.from('😀👍🏽'), 1)]).toEqual(['👍']);
    expect([...trie.common_prefix_search(Array.from('▁東京都'), 0)]).toEqual(['▁', '▁東京']);
    expect([...trie.common_prefix_search(Array.from('qq'), 0)]).toEqual([]);
    expect([...trie.common_prefix_search([], 0)]).toEqual([]);
  });

  it('leaves a tokenizer of another model as it is', () => {
    const wordPiece = new Tokenizer(
      {
        version: '1.0',
        truncation: null,
        padding: null,
        added_tokens: [],
        normalizer: null,
        pre_tokenizer: { type: 'Whitespace' },
        post_processor: null,
        decoder: null,
        model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: { '[UNK]': 0, the: 1, search: 2 } },
      },
      {},
    );
    expect(compactUnigram(wordPiece)).toBe(false);
    expect(wordPiece.encode('the search').ids).toEqual([1, 2]);
  });
});
