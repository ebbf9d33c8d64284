// get and multi_get: every locator form, line ranges, did-you-mean, globs and lists, size and line limits.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('get and multi_get', (b) => {
  let engine: Engine;
  const twenty = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');

  beforeAll(async () => {
    const notes = tempDir();
    writeTree(notes, {
      'guide.md': '---\ntitle: The Guide\ntags: [howto]\n---\n# Guide\n\nfirst paragraph\n',
      'lines.txt': twenty,
      'docs/setup.md': '# Setup\n\ninstall steps',
      'docs/usage.md': '# Usage\n\nrun it',
      'docs/my file.md': 'spaces in the name',
      'big.md': `# Big\n\n${'x'.repeat(20_000)}`,
      'shared.md': 'in notes',
      'docs-old/setup.md': '# Old setup',
      'docs.md': 'beside the folder',
    });
    const other = tempDir();
    writeTree(other, { 'shared.md': 'in other', 'only-other.md': 'other only' });
    engine = await b.open();
    await engine.addCollection({ root: notes, name: 'notes' });
    await engine.addCollection({ root: other, name: 'other' });
    const zh = tempDir();
    writeTree(zh, { '会议/记录 一.md': '# 会议记录\n\n讨论了检索功能。' });
    await engine.addCollection({ root: zh, name: '笔记' });
    await engine.index();
  });

  describe('get', () => {
    it('by relative path, collection/path, #docid, trove:// URI and path:LINE', async () => {
      const byPath = await engine.get('guide.md');
      expect(byPath).toMatchObject({ collection: 'notes', path: 'guide.md', title: 'The Guide', kind: 'markdown', tags: ['howto'], uri: 'trove://notes/guide.md' });
      expect(byPath.text).toContain('first paragraph');
      expect(byPath.text.startsWith('---\ntitle: The Guide')).toBe(true); // the file as it is, front matter included
      expect(byPath.metadata).toMatchObject({ title: 'The Guide' });
      expect((await engine.get('notes/guide.md')).docid).toBe(byPath.docid);
      expect((await engine.get(`#${byPath.docid}`)).path).toBe('guide.md');
      expect((await engine.get(byPath.docid)).path).toBe('guide.md'); // bare docid
      expect((await engine.get('trove://notes/guide.md')).docid).toBe(byPath.docid);
      expect((await engine.get(byPath.uri)).docid).toBe(byPath.docid);
      expect((await engine.get('trove://notes/docs/my%20file.md')).text).toBe('spaces in the name');
      expect((await engine.get('docs/my file.md')).path).toBe('docs/my file.md');

      const at = await engine.get('lines.txt:5');
      expect(at.fromLine).toBe(5);
      expect(at.text.split('\n')[0]).toBe('line 5');
      expect((await engine.get(`#${(await engine.get('lines.txt')).docid}:18`)).text).toBe('line 18\nline 19\nline 20');
      expect((await engine.get('trove://notes/lines.txt:19')).text).toBe('line 19\nline 20');
    });

    it('round-trips URIs of non-ASCII collection and file names', async () => {
      const doc = await engine.get('笔记/会议/记录 一.md');
      expect(doc.uri).toBe('trove://%E7%AC%94%E8%AE%B0/%E4%BC%9A%E8%AE%AE/%E8%AE%B0%E5%BD%95%20%E4%B8%80.md');
      expect((await engine.get(doc.uri)).docid).toBe(doc.docid);
      expect((await engine.search({ query: '检索功能' })).results[0]).toMatchObject({ uri: doc.uri, collection: '笔记', path: '会议/记录 一.md' });
    });

    it('fromLine, maxLines and lineNumbers', async () => {
      const r = await engine.get('lines.txt', { fromLine: 3, maxLines: 4, lineNumbers: true });
      expect(r.text).toBe('3: line 3\n4: line 4\n5: line 5\n6: line 6');
      expect(r).toMatchObject({ fromLine: 3, toLine: 6, totalLines: 20, truncated: true });
      const whole = await engine.get('lines.txt');
      expect(whole).toMatchObject({ fromLine: 1, toLine: 20, totalLines: 20, truncated: false });
      expect(whole.text).toBe(twenty);
      expect(await engine.get('lines.txt', { fromLine: 19, maxLines: 10 })).toMatchObject({ text: 'line 19\nline 20', truncated: false });
      expect((await engine.get('lines.txt', { fromLine: 500 })).fromLine).toBe(20); // clamped to the last line
      expect((await troveErrorAsync(() => engine.get('lines.txt', { fromLine: 0 }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.get('lines.txt', { maxLines: -1 }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.get('lines.txt', { maxLines: 1.5 }))).code).toBe('INVALID_INPUT');
    });

    it('says which collection to choose when a path is in several', async () => {
      const err = await troveErrorAsync(() => engine.get('shared.md'));
      expect(err.code).toBe('INVALID_INPUT');
      expect(err.message).toMatch(/notes\/shared\.md.*other\/shared\.md|other\/shared\.md.*notes\/shared\.md/);
      expect((await engine.get('other/shared.md')).text).toBe('in other');
      expect((await engine.get('trove://notes/shared.md')).text).toBe('in notes');
    });

    it('not found gives up to 3 "did you mean" suggestions', async () => {
      // within a named collection: paths relative to it
      const err = await troveErrorAsync(() => engine.get('trove://notes/docs/setpu.md'));
      expect(err.code).toBe('NOT_FOUND');
      const suggestions = (err.details as { suggestions: string[] }).suggestions;
      expect(suggestions[0]).toBe('docs/setup.md');
      expect(suggestions.length).toBeLessThanOrEqual(3);
      expect(err.message).toMatch(/did you mean docs\/setup\.md/);
      // across collections: collection/path
      const plain = await troveErrorAsync(() => engine.get('notes/docs/setpu.md'));
      expect((plain.details as { suggestions: string[] }).suggestions[0]).toBe('notes/docs/setup.md');

      const anywhere = await troveErrorAsync(() => engine.get('gude.md'));
      expect((anywhere.details as { suggestions: string[] }).suggestions).toContain('notes/guide.md');
      expect((await troveErrorAsync(() => engine.get('#abcdef12'))).code).toBe('NOT_FOUND');
      expect((await troveErrorAsync(() => engine.get('trove://nope/x.md'))).code).toBe('NOT_FOUND');
      const unrelated = await troveErrorAsync(() => engine.get('zzzzzzzzzzzzzzzzzzzzzz.pdf'));
      expect((unrelated.details as { suggestions: string[] }).suggestions).toEqual([]);
    });
  });

  describe('multi_get', () => {
    it('by glob, across collections or within one', async () => {
      const r = await engine.multiGet('docs/*.md');
      expect(r.documents.map((d) => d.path).sort()).toEqual(['docs/my file.md', 'docs/setup.md', 'docs/usage.md']);
      expect(r.notFound).toEqual([]);
      expect((await engine.multiGet('other/*.md')).documents.map((d) => `${d.collection}/${d.path}`).sort()).toEqual(['other/only-other.md', 'other/shared.md']);
      expect((await engine.multiGet('**/shared.md')).documents.map((d) => d.collection).sort()).toEqual(['notes', 'other']);
      // a glob's literal folder is read as a range of paths: its neighbours in sort order stay out, the
      // collection's name may lead it, and `folder/**` matches the folder's own path as picomatch does
      expect((await engine.multiGet('notes/docs/*.md')).documents.map((d) => d.path).sort()).toEqual(['docs/my file.md', 'docs/setup.md', 'docs/usage.md']);
      expect((await engine.multiGet('docs/**')).documents.map((d) => d.path).sort()).toEqual(['docs/my file.md', 'docs/setup.md', 'docs/usage.md']);
      expect((await engine.multiGet('docs*/setup.md')).documents.map((d) => d.path).sort()).toEqual(['docs-old/setup.md', 'docs/setup.md']);
      expect((await engine.multiGet('guide.md/**')).documents.map((d) => d.path)).toEqual(['guide.md']);
      expect((await engine.multiGet('笔记/会议/*.md')).documents.map((d) => d.path)).toEqual(['会议/记录 一.md']);
      expect((await engine.multiGet('会议/*.md')).documents.map((d) => d.collection)).toEqual(['笔记']);
      const none = await engine.multiGet('nothing/**/*.pdf');
      expect(none.documents).toEqual([]);
      expect(none.notFound[0]).toMatchObject({ locator: 'nothing/**/*.pdf' });
    });

    it('by comma-separated list, reporting the missing ones with suggestions', async () => {
      const r = await engine.multiGet('docs/setup.md, other/only-other.md ,docs/usge.md');
      expect(r.documents.map((d) => d.path)).toEqual(['docs/setup.md', 'only-other.md']);
      expect(r.notFound).toHaveLength(1);
      expect(r.notFound[0]).toMatchObject({ locator: 'docs/usge.md' });
      expect(r.notFound[0]!.suggestions).toContain('notes/docs/usage.md');
      const byDocid = await engine.multiGet(`#${(await engine.get('guide.md')).docid},lines.txt`);
      expect(byDocid.documents.map((d) => d.path)).toEqual(['guide.md', 'lines.txt']);
    });

    it('skips documents over maxBytes (default 10240) with a notice', async () => {
      const r = await engine.multiGet('big.md,guide.md');
      const big = r.documents.find((d) => d.path === 'big.md')!;
      expect(big.text).toBeUndefined();
      expect(big.skipped).toMatch(/over maxBytes \(10240\)/);
      expect(r.documents.find((d) => d.path === 'guide.md')!.text).toContain('first paragraph');
      expect((await engine.multiGet('big.md', { maxBytes: 100_000 })).documents[0]!.text!.length).toBeGreaterThan(20_000);
      expect((await engine.multiGet('guide.md', { maxBytes: 10 })).documents[0]!.skipped).toMatch(/over maxBytes \(10\)/);
    });

    it('truncates to maxLines with a "[... truncated N more lines]" marker', async () => {
      const [doc] = (await engine.multiGet('lines.txt', { maxLines: 5 })).documents;
      expect(doc!.text).toBe('line 1\nline 2\nline 3\nline 4\nline 5\n\n[... truncated 15 more lines]');
      expect(doc!.truncated).toBe(true);
      const [numbered] = (await engine.multiGet('lines.txt', { maxLines: 2, lineNumbers: true })).documents;
      expect(numbered!.text).toBe('1: line 1\n2: line 2\n\n[... truncated 18 more lines]');
      expect((await engine.multiGet('lines.txt', { maxLines: 20 })).documents[0]!.truncated).toBe(false);
    });

    it('refuses empty input and bad limits', async () => {
      expect((await troveErrorAsync(() => engine.multiGet(' , ,'))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.multiGet('*.md', { maxBytes: 0 }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.multiGet('*.md', { maxLines: 0 }))).code).toBe('INVALID_INPUT');
    });
  });
});
