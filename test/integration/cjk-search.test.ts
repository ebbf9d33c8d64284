// Chinese and Japanese are searchable: CJK runs are indexed and queried as bigrams, so a word
// inside a sentence with no spaces is found (unicode61 alone makes the sentence one token).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/cjk');
describeBackends('CJK search', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    const files = Object.fromEntries(fs.readdirSync(FIXTURES).map((f) => [f, fs.readFileSync(path.join(FIXTURES, f))]));
    ({ engine } = await b.indexedFolder(files, 'cjk'));
  });

  const top = async (query: string, syntax: 'match' | 'phrase' | 'prefix' | 'boolean' = 'match') =>
    (await engine.search({ query, syntax })).results.map((r) => r.path);

  describe('Chinese', () => {
    it('finds a word in the middle of a sentence', async () => {
      expect((await top('信息检索'))[0]).toBe('zh-search.md');
      expect(await top('鸡蛋')).toEqual(['zh-cooking.md']);
      expect((await top('西红柿炒鸡蛋'))[0]).toBe('zh-cooking.md');
    });

    it('finds a query that is a question, ranking the right document first', async () => {
      expect((await top('中文为什么需要分词'))[0]).toBe('zh-search.md');
    });

    it('phrase and boolean work on Chinese', async () => {
      expect(await top('二元语法', 'phrase')).toEqual(['zh-search.md']);
      expect((await top('鸡蛋 OR 分词', 'boolean')).sort()).toEqual(['zh-cooking.md', 'zh-search.md']);
      expect(await top('家常菜 -鸡蛋', 'boolean')).toEqual([]);
      expect(await top('检索 -鸡蛋', 'boolean')).toEqual(['zh-search.md']);
    });

    it('snippets show the matching line with its number', async () => {
      const [hit] = (await engine.search({ query: '二元语法' })).results;
      expect(hit!.snippet).toMatch(/^\d+: /m);
      expect(hit!.snippet).toContain('8: 中文句子之间没有空格');
    });
  });

  describe('Japanese', () => {
    it('finds kanji, kana and katakana words inside sentences', async () => {
      expect(await top('天気')).toEqual(['ja-tokyo.md']);
      expect(await top('傘')).toEqual(['ja-tokyo.md']); // a single character: only inside bigrams in the index
      expect(await top('傘', 'phrase')).toEqual(['ja-tokyo.md']);
      expect(await top('"傘" AND 雨', 'boolean')).toEqual(['ja-tokyo.md']);
      expect(await top('データベース')).toEqual(['ja-search.md']);
      expect(await top('形態素解析')).toEqual(['ja-search.md']);
    });

    it('ranks the right document for a natural question', async () => {
      expect((await top('東京の明日の天気は'))[0]).toBe('ja-tokyo.md');
    });

    it('phrase matching respects order', async () => {
      expect(await top('雨が降る', 'phrase')).toEqual(['ja-tokyo.md']);
      expect(await top('降る雨が', 'phrase')).toEqual([]);
    });
  });

  describe('mixed scripts', () => {
    it('finds Latin words and CJK words in the same document', async () => {
      expect(await top('bm25')).toEqual(['mixed.md']);
      expect((await top('FTS5 全文搜索'))[0]).toBe('mixed.md');
      expect(await top('スコア順')).toEqual(['mixed.md']);
    });

    it('explain lists CJK bigrams as matched body terms', async () => {
      const [hit] = (await engine.search({ query: '全文搜索', explain: true })).results;
      expect(hit!.path).toBe('mixed.md');
      expect((hit!.explain as { fields: { body: string[] } }).fields.body).toEqual(expect.arrayContaining(['全文', '文搜', '搜索']));
    });
  });
});
